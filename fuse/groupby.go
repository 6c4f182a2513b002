package fuse

import "github.com/nablasd/nablasd/sdql"

// GroupByKey is a whole-program pass that makes a sum over a matrix's
// entries linear when its body depends on the row only through the entry's
// value, linearly, and does per-entry work that depends on the column:
//
//	sum(<i, r> in M) sum(<k, a> in r) g    (i, r not free in g; g linear in a)
//	=>  sum(<k, a> in sum(<i, r> in M) sum(<k, a> in r) { k -> a }) g
//
// Σ_i g(a_ik) = g(Σ_i a_ik) for g linear in a, and g's stored keys do not
// depend on a, so both sides have the same keys and values. It turns the
// gradient of SMMM with respect to B (A's entries times B's rows) into A's
// column sums broadcast over B's rows. It fires only when g contains a sum
// whose source depends on k, so that the grouping saves work per entry.
var GroupByKey = Named("GroupByKey", func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
	changed := false
	out := sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		outer, ok := x.(*sdql.SumExpr)
		if !ok {
			return x
		}
		inner, ok := outer.Body.(*sdql.SumExpr)
		if !ok || outer.Val.Name == "_" || inner.Key.Name == "_" || inner.Val.Name == "_" {
			return x
		}
		src, isRow := inner.Src.(*sdql.Ident)
		if !isRow || src.Name != outer.Val.Name {
			return x
		}
		g, k, a := inner.Body, inner.Key.Name, inner.Val.Name
		if k == a || mentions(g, outer.Key.Name) && outer.Key.Name != "_" || mentions(g, outer.Val.Name) ||
			!linearIn(g, a) || !loopsOver(g, k) || hasUnique(g) {
			return x
		}
		changed = true
		grouped := &sdql.SumExpr{Key: outer.Key, Val: outer.Val, Src: outer.Src,
			Body: &sdql.SumExpr{Key: inner.Key, Val: inner.Val, Src: inner.Src,
				Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: &sdql.Ident{Name: k}, Val: &sdql.Ident{Name: a}}}}}}
		return &sdql.SumExpr{Sum: outer.Sum, Key: inner.Key, Val: inner.Val, Src: grouped, Body: g}
	})
	return out, changed
})

// linearIn reports whether e mentions a and is linear in it: built from a
// by scaling with, adding, keying (by keys free of a), summing over and
// conditioning on expressions free of a.
func linearIn(e sdql.Expr, a string) bool {
	free := func(x sdql.Expr) bool { return !mentions(x, a) }
	switch x := e.(type) {
	case *sdql.Ident:
		return x.Name == a
	case *sdql.BinaryExpr:
		switch x.Op {
		case sdql.MUL:
			return linearIn(x.X, a) && free(x.Y) || free(x.X) && linearIn(x.Y, a)
		case sdql.QUO:
			return linearIn(x.X, a) && free(x.Y)
		case sdql.ADD, sdql.SUB:
			return linearIn(x.X, a) && linearIn(x.Y, a)
		}
	case *sdql.UnaryExpr:
		return x.Op == sdql.SUB && linearIn(x.X, a)
	case *sdql.DictExpr:
		if len(x.Entries) == 0 {
			return false
		}
		for _, en := range x.Entries {
			if !free(en.Key) || !linearIn(en.Val, a) {
				return false
			}
		}
		return true
	case *sdql.SumExpr:
		return x.Key.Name != a && x.Val.Name != a && free(x.Src) && linearIn(x.Body, a)
	case *sdql.LetExpr:
		for i, n := range x.Names {
			if n.Name == a || !free(x.Values[i]) {
				return false
			}
		}
		return linearIn(x.Body, a)
	case *sdql.IfExpr:
		return x.Else == nil && free(x.Cond) && linearIn(x.Then, a)
	}
	return false
}

// loopsOver reports whether e contains a sum whose source mentions k.
func loopsOver(e sdql.Expr, k string) bool {
	return sdql.Any(e, func(x sdql.Expr) bool { s, ok := x.(*sdql.SumExpr); return ok && mentions(s.Src, k) })
}
