package sdql

// Children returns the direct sub-expressions of e, in source order.
func Children(e Expr) []Expr { return AppendChildren(nil, e) }

// AppendChildren appends the direct sub-expressions of e (in the order of
// Children) to dst and returns it: a caller that walks many nodes passes
// a small buffer of its own, to allocate nothing.
func AppendChildren(dst []Expr, e Expr) []Expr {
	switch e := e.(type) {
	case *SumExpr:
		return append(dst, e.Src, e.Body)
	case *DictExpr:
		for _, en := range e.Entries {
			dst = append(dst, en.Key, en.Val)
		}
		return dst
	case *LookupExpr:
		return append(dst, e.X, e.Key)
	case *SliceExpr:
		return append(dst, e.X, e.Lo, e.Hi)
	case *RangeExpr:
		return append(dst, e.Lo, e.Hi)
	case *LetExpr:
		return append(append(dst, e.Values...), e.Body)
	case *IfExpr:
		if e.Else == nil {
			return append(dst, e.Cond, e.Then)
		}
		return append(dst, e.Cond, e.Then, e.Else)
	case *UnaryExpr:
		return append(dst, e.X)
	case *BinaryExpr:
		return append(dst, e.X, e.Y)
	case *CallExpr:
		if e.Y != nil {
			return append(dst, e.X, e.Y)
		}
		return append(dst, e.X)
	case *UniqueExpr:
		return append(dst, e.X)
	case *OneHotExpr:
		return append(dst, e.X)
	}
	return dst
}

// WithChildren returns a copy of e whose direct sub-expressions are kids
// (in the order of Children). Leaves are returned unchanged.
func WithChildren(e Expr, kids []Expr) Expr {
	switch e := e.(type) {
	case *SumExpr:
		c := *e
		c.Src, c.Body = kids[0], kids[1]
		return &c
	case *DictExpr:
		c := *e
		c.Entries = make([]Entry, len(e.Entries))
		for i := range c.Entries {
			c.Entries[i] = Entry{Key: kids[2*i], Val: kids[2*i+1]}
		}
		return &c
	case *LookupExpr:
		return &LookupExpr{X: kids[0], Key: kids[1]}
	case *SliceExpr:
		return &SliceExpr{X: kids[0], Lo: kids[1], Hi: kids[2]}
	case *RangeExpr:
		return &RangeExpr{Lparen: e.Lparen, Lo: kids[0], Hi: kids[1]}
	case *LetExpr:
		c := *e
		c.Names = append([]Binder(nil), e.Names...)
		c.Values = append([]Expr(nil), kids[:len(e.Values)]...)
		c.Body = kids[len(e.Values)]
		return &c
	case *IfExpr:
		c := *e
		c.Cond, c.Then = kids[0], kids[1]
		if e.Else != nil {
			c.Else = kids[2]
		}
		return &c
	case *UnaryExpr:
		c := *e
		c.X = kids[0]
		return &c
	case *BinaryExpr:
		c := *e
		c.X, c.Y = kids[0], kids[1]
		return &c
	case *CallExpr:
		c := *e
		c.X = kids[0]
		if e.Y != nil {
			c.Y = kids[1]
		}
		return &c
	case *UniqueExpr:
		c := *e
		c.X = kids[0]
		return &c
	case *OneHotExpr:
		c := *e
		c.X = kids[0]
		return &c
	}
	return e
}

// Inspect calls f for e and, while f returns true, for its sub-expressions
// in depth-first order.
func Inspect(e Expr, f func(Expr) bool) {
	if e == nil || !f(e) {
		return
	}
	for _, k := range Children(e) {
		Inspect(k, f)
	}
}

// Transform rebuilds e bottom-up, replacing every node n by f(n) after its
// children have been transformed.
func Transform(e Expr, f func(Expr) Expr) Expr {
	return f(MapChildren(e, func(k Expr) Expr { return Transform(k, f) }))
}

// Binders returns the names e binds in its i-th child (Children order):
// the key and value of a sum in its body, a let's earlier names in its
// later values and body.
func Binders(e Expr, i int) []string {
	switch e := e.(type) {
	case *SumExpr:
		if i == 1 {
			return []string{e.Key.Name, e.Val.Name}
		}
	case *LetExpr:
		var names []string
		for j := 0; j < i && j < len(e.Names); j++ {
			names = append(names, e.Names[j].Name)
		}
		return names
	}
	return nil
}

// FreeVars returns the free variables of e, in order of first occurrence.
func FreeVars(e Expr) []string {
	var out []string
	seen := map[string]bool{}
	var walk func(e Expr, bound map[string]int)
	walk = func(e Expr, bound map[string]int) {
		if id, ok := e.(*Ident); ok {
			if bound[id.Name] == 0 && !seen[id.Name] {
				seen[id.Name] = true
				out = append(out, id.Name)
			}
			return
		}
		for i, k := range Children(e) {
			bs := Binders(e, i)
			for _, b := range bs {
				bound[b]++
			}
			walk(k, bound)
			for _, b := range bs {
				bound[b]--
			}
		}
	}
	walk(e, map[string]int{})
	return out
}

// MapChildren returns e with every direct sub-expression replaced by f of
// it; e itself when f changes none.
func MapChildren(e Expr, f func(Expr) Expr) Expr {
	kids := Children(e)
	if len(kids) == 0 {
		return e
	}
	nk := make([]Expr, len(kids))
	changed := false
	for i, k := range kids {
		nk[i] = f(k)
		changed = changed || nk[i] != k
	}
	if !changed {
		return e
	}
	return WithChildren(e, nk)
}

// Any reports whether e or any of its sub-expressions satisfies pred.
func Any(e Expr, pred func(Expr) bool) bool {
	found := false
	Inspect(e, func(x Expr) bool {
		found = found || pred(x)
		return !found
	})
	return found
}

// A FreeUse is where a free variable of a program is first used, and what
// is in scope there (FirstFreeUse).
type FreeUse struct {
	// Pos is the variable's first free occurrence.
	Pos Pos
	// Called: that occurrence is looked up or called, name(...).
	Called bool
	// InScope are the names bound at that place (loop and let variables),
	// innermost first, each once.
	InScope []string
}

// FirstFreeUse returns where name first occurs free in e (an occurrence
// no enclosing sum or let binds), in the order the text reads, with the
// names in scope there; ok is false when name does not occur free.
func FirstFreeUse(e Expr, name string) (use FreeUse, ok bool) {
	var scope []string // bound names, outermost first
	var walk func(e Expr) bool
	walk = func(e Expr) bool {
		if l, isLookup := e.(*LookupExpr); isLookup {
			if id, isIdent := l.X.(*Ident); isIdent && id.Name == name && !bound(scope, name) {
				use, ok = FreeUse{Pos: id.NamePos, Called: true, InScope: inScope(scope)}, true
				return true
			}
		}
		if id, isIdent := e.(*Ident); isIdent {
			if id.Name == name && !bound(scope, name) {
				use, ok = FreeUse{Pos: id.NamePos, InScope: inScope(scope)}, true
				return true
			}
			return false
		}
		for i, k := range Children(e) {
			bs := Binders(e, i)
			scope = append(scope, bs...)
			found := walk(k)
			scope = scope[:len(scope)-len(bs)]
			if found {
				return true
			}
		}
		return false
	}
	walk(e)
	return use, ok
}

func bound(scope []string, name string) bool {
	for _, s := range scope {
		if s == name {
			return true
		}
	}
	return false
}

// inScope lists scope's names innermost first, each once, without "_".
func inScope(scope []string) []string {
	var out []string
	seen := map[string]bool{}
	for i := len(scope) - 1; i >= 0; i-- {
		if n := scope[i]; n != "_" && !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}
