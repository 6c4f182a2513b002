package fuse

import "github.com/nablasd/nablasd/sdql"

// ResolveMembership is a whole-program pass for lookups at keys known to be
// stored. Inside sum(<k, v> in D), a lookup X(k) where X is, or is let-bound
// (possibly through lookups) to, a dictionary built by
//
//	sum(<k2, v2> in D) { k2 -> E }
//
// over the same D is E[k2 := k, v2 := v]: the dictionary's keys are D's keys,
// each once, and k is one of them. This is what removes the onehot tensors of
// gradients with respect to sparse inputs without knowing them dense:
// onehot[tensor 2] B looked up at B's own row k and column j is {k -> {j -> 1}}.
//
// A lookup Y(x) of a let-bound sum(<k2, v2> in D) { k2 -> sum(<a, b> in v2) F }
// resolves on the way to sum(<a, b> in D(x)) F[k2 := x]: when x is not stored
// both are zero, since the body is a sum over v2.
//
// A lookup of a let-bound dictionary that its scope uses more than once,
// whose E holds a reduction (a sum of numbers), is left alone: the
// dictionary is built anyway, and reading its entry costs less than the
// reduction (the reverse sweep of tanh(A tanh(A x)) reads the primal's
// tanh(A x) instead of computing A x again).
//
// Every fact (a let, an enclosing sum) is used only where the names it
// mentions still mean what they meant where it was recorded.
var ResolveMembership = Named("ResolveMembership", func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
	m := &membership{bind: map[string]int{}, lets: map[string]letFact{}}
	out := m.walk(e)
	return out, m.changed
})

type letFact struct {
	id    int // the binding the name refers to
	value sdql.Expr
	snap  map[string]int // bindings of value's free variables
	uses  int            // occurrences of the name in the let's scope
}

type iterFact struct {
	keyID, valID int
	key, val     string
	src          sdql.Expr
	snap         map[string]int
}

type membership struct {
	next    int
	bind    map[string]int // current binding of each name (0: free)
	lets    map[string]letFact
	iters   []iterFact
	changed bool
}

func (m *membership) snapshot(e sdql.Expr) map[string]int {
	s := map[string]int{}
	for _, v := range sdql.FreeVars(e) {
		s[v] = m.bind[v]
	}
	return s
}

func (m *membership) valid(s map[string]int) bool {
	for v, id := range s {
		if m.bind[v] != id {
			return false
		}
	}
	return true
}

// enter binds a name and returns a function that restores the outer binding.
func (m *membership) enter(name string) (int, func()) {
	if name == "_" {
		return 0, func() {}
	}
	old := m.bind[name]
	oldLet, hadLet := m.lets[name]
	m.next++
	m.bind[name] = m.next
	delete(m.lets, name)
	return m.next, func() {
		m.bind[name] = old
		if hadLet {
			m.lets[name] = oldLet
		} else {
			delete(m.lets, name)
		}
	}
}

func (m *membership) walk(e sdql.Expr) sdql.Expr {
	switch x := e.(type) {
	case *sdql.SumExpr:
		src := m.walk(x.Src)
		snap := m.snapshot(src)
		kid, leaveK := m.enter(x.Key.Name)
		vid, leaveV := m.enter(x.Val.Name)
		m.iters = append(m.iters, iterFact{keyID: kid, valID: vid, key: x.Key.Name, val: x.Val.Name, src: src, snap: snap})
		body := m.walk(x.Body)
		m.iters = m.iters[:len(m.iters)-1]
		leaveV()
		leaveK()
		if src == x.Src && body == x.Body {
			return x
		}
		return &sdql.SumExpr{Sum: x.Sum, Key: x.Key, Val: x.Val, Src: src, Body: body}
	case *sdql.LetExpr:
		var leaves []func()
		vals := make([]sdql.Expr, len(x.Values))
		changed := false
		for i, b := range x.Names {
			vals[i] = m.walk(x.Values[i])
			changed = changed || vals[i] != x.Values[i]
			snap := m.snapshot(vals[i])
			id, leave := m.enter(b.Name)
			leaves = append(leaves, leave)
			if b.Name != "_" {
				uses, _ := occurrences(x.Body, b.Name)
				for _, v := range x.Values[i+1:] {
					n, _ := occurrences(v, b.Name)
					uses += n
				}
				m.lets[b.Name] = letFact{id: id, value: vals[i], snap: snap, uses: uses}
			}
		}
		body := m.walk(x.Body)
		for i := len(leaves) - 1; i >= 0; i-- {
			leaves[i]()
		}
		if !changed && body == x.Body {
			return x
		}
		return &sdql.LetExpr{Let: x.Let, Names: x.Names, Values: vals, Body: body}
	case *sdql.LookupExpr:
		if r := m.member(x); r != nil {
			m.changed = true
			return m.walk(r)
		}
		if r := m.rangeView(x); r != nil {
			m.changed = true
			return m.walk(r)
		}
	}
	return sdql.MapChildren(e, m.walk)
}

// member rewrites X(k) for k the key of an enclosing sum over the source X
// is built from; nil when it does not apply.
func (m *membership) member(l *sdql.LookupExpr) sdql.Expr {
	k, ok := l.Key.(*sdql.Ident)
	if !ok {
		return nil
	}
	var it *iterFact
	for i := len(m.iters) - 1; i >= 0; i-- {
		if m.iters[i].key == k.Name {
			it = &m.iters[i]
			break
		}
	}
	if it == nil || m.bind[k.Name] != it.keyID || !m.valid(it.snap) {
		return nil
	}
	s, body := keyedSum(m.resolve(l.X, 8))
	if s == nil || !sdql.AlphaEqual(s.Src, it.src) || hasUnique(body) {
		return nil
	}
	if id, isName := l.X.(*sdql.Ident); isName && m.lets[id.Name].uses > 1 && reduces(body) {
		// the dictionary is built anyway for its other uses: reading its
		// entry is cheaper than a reduction per lookup (a reverse sweep
		// reading the primal's tanh(A x) must not compute A x again)
		return nil
	}
	sub := map[string]sdql.Expr{s.Key.Name: &sdql.Ident{Name: k.Name}}
	if s.Val.Name != "_" {
		if it.val != "_" && m.bind[it.val] == it.valID {
			sub[s.Val.Name] = &sdql.Ident{Name: it.val}
		} else {
			sub[s.Val.Name] = &sdql.LookupExpr{X: it.src, Key: &sdql.Ident{Name: k.Name}}
		}
	}
	return sdql.Subst(body, sub)
}

// resolve follows let-bound names (whose facts are still valid) and lookups
// into keyed sums whose bodies are sums over the value, to an equivalent
// expression; it returns e itself when nothing resolves.
func (m *membership) resolve(e sdql.Expr, fuel int) sdql.Expr {
	if fuel == 0 {
		return e
	}
	switch x := e.(type) {
	case *sdql.Ident:
		f, ok := m.lets[x.Name]
		if ok && m.bind[x.Name] == f.id && m.valid(f.snap) {
			return m.resolve(f.value, fuel-1)
		}
	case *sdql.LookupExpr:
		s, body := keyedSum(m.resolve(x.X, fuel-1))
		if s == nil || hasUnique(body) {
			return e
		}
		inner, ok := body.(*sdql.SumExpr)
		if !ok || s.Val.Name == "_" {
			return e
		}
		if src, isVal := inner.Src.(*sdql.Ident); !isVal || src.Name != s.Val.Name || mentions(inner.Body, s.Val.Name) {
			return e
		}
		// zero when x.Key is not stored, like the lookup
		return sdql.Subst(body, map[string]sdql.Expr{
			s.Key.Name: x.Key,
			s.Val.Name: &sdql.LookupExpr{X: s.Src, Key: x.Key},
		})
	}
	return e
}

// reduces reports whether e holds a reduction: a sum whose body (through
// lets and conditions) is not a dictionary, so that evaluating e costs a
// loop, not the construction of a view.
func reduces(e sdql.Expr) bool {
	return sdql.Any(e, func(x sdql.Expr) bool {
		s, ok := x.(*sdql.SumExpr)
		if !ok {
			return false
		}
		b := s.Body
		for {
			switch y := b.(type) {
			case *sdql.LetExpr:
				b = y.Body
				continue
			case *sdql.IfExpr:
				if y.Else == nil {
					b = y.Then
					continue
				}
			}
			break
		}
		switch b.(type) {
		case *sdql.DictExpr, *sdql.SumExpr:
			return false
		}
		return true
	})
}

// keyedSum matches sum(<k2, v2> in D) { k2 -> E } (the key possibly
// unique(k2)) and returns the sum and E.
func keyedSum(e sdql.Expr) (*sdql.SumExpr, sdql.Expr) {
	s, ok := e.(*sdql.SumExpr)
	if !ok || s.Key.Name == "_" {
		return nil, nil
	}
	d, ok := s.Body.(*sdql.DictExpr)
	if !ok || len(d.Entries) != 1 {
		return nil, nil
	}
	key := d.Entries[0].Key
	if u, isU := key.(*sdql.UniqueExpr); isU {
		key = u.X
	}
	if id, isID := key.(*sdql.Ident); !isID || id.Name != s.Key.Name {
		return nil, nil
	}
	return s, d.Entries[0].Val
}

func mentions(e sdql.Expr, name string) bool {
	for _, v := range sdql.FreeVars(e) {
		if v == name {
			return true
		}
	}
	return false
}

// rangeView rewrites a lookup X(x) of a let-bound dictionary built over a
// range, X = sum(<k, v> in (lo:hi)) { k -> E }, into
// if lo <= x && x < hi then E[k, v := x] when E is a view of storage arrays
// (a scalar expression, or one loop over a sub-array building a singleton
// of scalars): the lookup then reads the arrays instead of a built
// dictionary, at the cost of the view, which is what looking the row up
// costs anyway. This is how a CSR row B(k) of a let-bound B becomes a loop
// over B's arrays.
func (m *membership) rangeView(l *sdql.LookupExpr) sdql.Expr {
	if _, isName := l.X.(*sdql.Ident); !isName {
		return nil
	}
	s, ok := m.resolve(l.X, 8).(*sdql.SumExpr)
	if !ok {
		return nil
	}
	r, ok := s.Src.(*sdql.RangeExpr)
	d, isDict := s.Body.(*sdql.DictExpr)
	if !ok || !isDict || len(d.Entries) != 1 {
		return nil
	}
	key := d.Entries[0].Key
	if u, isU := key.(*sdql.UniqueExpr); isU {
		key = u.X
	}
	// over a range the key and the value are the same int
	id, isID := key.(*sdql.Ident)
	if !isID || id.Name == "_" || id.Name != s.Key.Name && id.Name != s.Val.Name {
		return nil
	}
	body := d.Entries[0].Val
	if hasUnique(stripUnique(body)) || !isView(body) {
		return nil
	}
	sub := map[string]sdql.Expr{}
	for _, b := range []string{s.Key.Name, s.Val.Name} {
		if b != "_" {
			sub[b] = l.Key
		}
	}
	cond := &sdql.BinaryExpr{Op: sdql.LAND,
		X: &sdql.BinaryExpr{Op: sdql.LEQ, X: r.Lo, Y: l.Key},
		Y: &sdql.BinaryExpr{Op: sdql.LT, X: l.Key, Y: r.Hi}}
	return &sdql.IfExpr{Cond: cond, Then: sdql.Subst(body, sub)}
}

// isView reports whether e reads storage without building much: no sum, or
// one sum over a sub-array whose body is a singleton without sums.
func isView(e sdql.Expr) bool {
	s, ok := e.(*sdql.SumExpr)
	if !ok {
		return !hasSum(e)
	}
	if _, overSlice := s.Src.(*sdql.SliceExpr); !overSlice || hasSum(s.Src) {
		return false
	}
	d, ok := s.Body.(*sdql.DictExpr)
	return ok && len(d.Entries) == 1 && !hasSum(d)
}

func hasSum(e sdql.Expr) bool {
	return sdql.Any(e, func(x sdql.Expr) bool { _, ok := x.(*sdql.SumExpr); return ok })
}

// stripUnique removes unique(...) around keys of singletons directly
// inside a view's loop: there the claim is relative to that loop, which
// the rewrite keeps.
func stripUnique(e sdql.Expr) sdql.Expr {
	s, ok := e.(*sdql.SumExpr)
	if !ok {
		return e
	}
	d, ok := s.Body.(*sdql.DictExpr)
	if !ok || len(d.Entries) != 1 {
		return e
	}
	if u, isU := d.Entries[0].Key.(*sdql.UniqueExpr); isU {
		return &sdql.SumExpr{Key: s.Key, Val: s.Val, Src: s.Src, Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: u.X, Val: d.Entries[0].Val}}}}
	}
	return e
}
