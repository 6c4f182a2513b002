package lower

import (
	"github.com/nablasd/nablasd/sdql"
)

// linearIn reports whether e is additive in the variable v: e(a + b) =
// e(a) + e(b) for every value of v, so that visiting a repeated key once
// per occurrence adds up to visiting it once with the values merged.
// Every term must scale with v: a term without v (a constant) is counted
// once per visit. It is conservative: false when unsure.
func linearIn(e sdql.Expr, v string) bool {
	if v == "_" {
		return false
	}
	switch x := e.(type) {
	case *sdql.Ident:
		return x.Name == v
	case *sdql.UniqueExpr:
		return linearIn(x.X, v)
	case *sdql.BinaryExpr:
		switch x.Op {
		case sdql.ADD, sdql.SUB:
			return linearIn(x.X, v) && linearIn(x.Y, v)
		case sdql.MUL:
			mx, my := mentions(x.X, v), mentions(x.Y, v)
			return mx && !my && linearIn(x.X, v) || my && !mx && linearIn(x.Y, v)
		case sdql.QUO:
			return !mentions(x.Y, v) && linearIn(x.X, v)
		}
	case *sdql.UnaryExpr:
		return x.Op == sdql.SUB && linearIn(x.X, v)
	case *sdql.DictExpr:
		for _, en := range x.Entries {
			if mentions(en.Key, v) || !linearIn(en.Val, v) {
				return false
			}
		}
		return len(x.Entries) > 0
	case *sdql.SumExpr:
		if mentions(x.Src, v) {
			// a sum over v itself whose body is linear in the value
			id, ok := x.Src.(*sdql.Ident)
			return ok && id.Name == v && x.Key.Name != v && x.Val.Name != v &&
				!mentions(x.Body, v) && linearIn(x.Body, x.Val.Name)
		}
		return x.Key.Name != v && x.Val.Name != v && linearIn(x.Body, v)
	case *sdql.LetExpr:
		for i, n := range x.Names {
			if mentions(x.Values[i], v) || n.Name == v {
				return false
			}
		}
		return linearIn(x.Body, v)
	case *sdql.IfExpr:
		if mentions(x.Cond, v) || !linearIn(x.Then, v) {
			return false
		}
		return x.Else == nil || linearIn(x.Else, v)
	case *sdql.LookupExpr:
		return !mentions(x.Key, v) && linearIn(x.X, v)
	}
	return false
}

// mentions reports whether v occurs free in e.
func mentions(e sdql.Expr, v string) bool {
	for _, f := range sdql.FreeVars(e) {
		if f == v {
			return true
		}
	}
	return false
}

// cheapView reports whether a dictionary expression costs no more to read
// in place, wherever it is used, than to read built: a name, a lookup of
// one, a scaled cheap view, or a sum over a range, an array segment or a
// name whose body is a singleton keyed by the sum's own key (or a range's
// value) with a value that is a cheap view or a scalar without
// reductions.
func cheapView(e sdql.Expr) bool {
	switch x := e.(type) {
	case *sdql.Ident, *sdql.ZeroExpr:
		return true
	case *sdql.LookupExpr:
		return cheapView(x.X) && !hasSum(x.Key)
	case *sdql.DictExpr:
		for _, en := range x.Entries {
			if hasSum(en.Key) || !cheapValue(en.Val) {
				return false
			}
		}
		return true
	case *sdql.BinaryExpr:
		if x.Op == sdql.MUL || x.Op == sdql.QUO {
			// c * view, view * c, view / c: a scalar factor without sums
			return cheapView(x.X) && !hasSum(x.Y) || cheapView(x.Y) && !hasSum(x.X)
		}
	case *sdql.IfExpr:
		return !hasSum(x.Cond) && cheapView(x.Then) && (x.Else == nil || cheapView(x.Else))
	case *sdql.SumExpr:
		k, v, ok := singleton(x.Body)
		if !ok {
			return false
		}
		id, ok := stripUnique(k).(*sdql.Ident)
		if !ok {
			return false
		}
		switch x.Src.(type) {
		case *sdql.RangeExpr:
			if id.Name != x.Key.Name && id.Name != x.Val.Name {
				return false
			}
		case *sdql.SliceExpr:
			if id.Name != x.Key.Name && id.Name != x.Val.Name {
				return false
			}
		case *sdql.Ident, *sdql.LookupExpr:
			if id.Name != x.Key.Name || !lookupChain(x.Src) {
				return false
			}
		default:
			return false
		}
		return cheapValue(v)
	}
	return false
}

func cheapValue(e sdql.Expr) bool {
	switch e.(type) {
	case *sdql.DictExpr, *sdql.SumExpr, *sdql.Ident, *sdql.LookupExpr, *sdql.ZeroExpr:
		if !hasSum(e) {
			return true
		}
		return cheapView(e)
	}
	return !hasSum(e)
}

func hasSum(e sdql.Expr) bool {
	return sdql.Any(e, func(x sdql.Expr) bool { _, ok := x.(*sdql.SumExpr); return ok })
}

// usesOf counts the uses of the name bound by binding i of let in the rest
// of the let (the later bindings and the body), and whether one of them
// is inside a sum there (read in a loop).
func usesOf(let *sdql.LetExpr, i int, name string) (uses int, inLoop bool) {
	var walk func(e sdql.Expr, loop bool)
	walk = func(e sdql.Expr, loop bool) {
		if id, ok := e.(*sdql.Ident); ok && id.Name == name {
			uses++
			inLoop = inLoop || loop
			return
		}
		_, isSum := e.(*sdql.SumExpr)
		for c, k := range sdql.Children(e) {
			shadow := false
			for _, b := range sdql.Binders(e, c) {
				if b == name {
					shadow = true
				}
			}
			if shadow {
				continue
			}
			// the source of a sum runs once; its body in the loop
			walk(k, loop || isSum && c > 0)
		}
	}
	for j := i + 1; j < len(let.Names); j++ {
		walk(let.Values[j], false)
		if let.Names[j].Name == name {
			return
		}
	}
	walk(let.Body, false)
	return
}

// loopsPerEntry reports whether lowering e once, for one entry of a
// sum's source whose value is named v, runs a loop over something other
// than that value: a sum over another source, or a dictionary other than
// v read whole (added, scaled, multiplied). Fusing a source whose keys
// repeat into such a consumer repeats the loop once per duplicate, so
// iterate then builds the source first. Names let-bound to expressions
// of v count as v. Conservative: true when unsure.
func (l *lowerer) loopsPerEntry(e sdql.Expr, v string) bool {
	own := map[string]bool{v: true}
	ofV := func(x sdql.Expr) bool {
		for _, f := range sdql.FreeVars(x) {
			if own[f] {
				return true
			}
		}
		return false
	}
	var walk func(x sdql.Expr) bool
	walk = func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.SumExpr:
			if !ofV(x.Src) {
				return true
			}
			return walk(x.Src) || walk(x.Body)
		case *sdql.LetExpr:
			for i, n := range x.Names {
				if walk(x.Values[i]) {
					return true
				}
				if ofV(x.Values[i]) {
					own[n.Name] = true
				}
			}
			return walk(x.Body)
		case *sdql.Ident:
			return l.vkindOf(x) == kDict && !own[x.Name]
		case *sdql.LookupExpr:
			if l.vkindOf(x) == kDict {
				return !ofV(x)
			}
			// a scalar read: locating the key, no loop, unless the
			// dictionary looked up is itself computed
			root := x.X
			for {
				lk, ok := root.(*sdql.LookupExpr)
				if !ok {
					break
				}
				if walk(lk.Key) {
					return true
				}
				root = lk.X
			}
			if _, ok := root.(*sdql.Ident); !ok && walk(root) {
				return true
			}
			return walk(x.Key)
		}
		for _, c := range sdql.Children(x) {
			if walk(c) {
				return true
			}
		}
		return false
	}
	return walk(e)
}

// piecewise reports whether a sum with this body may take its source's
// entries piece by piece, duplicate keys and all: the body is additive in
// the value (linearIn) and runs no loop of its own per entry
// (loopsPerEntry), so visiting a key twice costs no more than merging.
func (l *lowerer) piecewise(body sdql.Expr, val string) bool {
	return linearIn(body, val) && !l.loopsPerEntry(body, val)
}

// lookupChain reports whether e is a name or a chain of lookups of one
// at keys without reductions (U, U(i), M(i)(j)): reading it locates, it
// builds nothing.
func lookupChain(e sdql.Expr) bool {
	switch x := e.(type) {
	case *sdql.Ident:
		return true
	case *sdql.LookupExpr:
		return !hasSum(x.Key) && lookupChain(x.X)
	}
	return false
}
