package fuse

import (
	"slices"

	"github.com/nablasd/nablasd/sdql"
)

// SplitLets turns every tupled let into nested single lets (a tupled let
// binds sequentially, so the two are the same program).
func SplitLets(e sdql.Expr) sdql.Expr {
	return sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		l, ok := x.(*sdql.LetExpr)
		if !ok || len(l.Names) == 1 {
			return x
		}
		body := l.Body
		for i := len(l.Names) - 1; i >= 0; i-- {
			body = &sdql.LetExpr{Let: l.Let, Names: []sdql.Binder{l.Names[i]}, Values: []sdql.Expr{l.Values[i]}, Body: body}
		}
		return body
	})
}

// Uniquify renames binders so that every bound name is bound once and
// differs from every free name (the Barendregt convention). Names are kept
// where possible; '_' binders stay '_'.
func Uniquify(e sdql.Expr) sdql.Expr {
	names := sdql.NewNames()
	for _, f := range sdql.FreeVars(e) {
		names.Use(f)
	}
	used := map[string]bool{}
	for _, f := range sdql.FreeVars(e) {
		used[f] = true
	}
	var walk func(e sdql.Expr, ren map[string]string) sdql.Expr
	bind := func(b sdql.Binder, ren map[string]string) (sdql.Binder, map[string]string) {
		if b.Name == "_" {
			return b, ren
		}
		n := b.Name
		if used[n] {
			n = names.Fresh(b.Name)
			for used[n] {
				n = names.Fresh(b.Name)
			}
		}
		used[n] = true
		names.Use(n)
		r2 := make(map[string]string, len(ren)+1)
		for k, v := range ren {
			r2[k] = v
		}
		r2[b.Name] = n
		return sdql.Binder{NamePos: b.NamePos, Name: n}, r2
	}
	// reserve every binder name so fresh names avoid them too
	sdql.Inspect(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.SumExpr:
			names.Use(x.Key.Name)
			names.Use(x.Val.Name)
		case *sdql.LetExpr:
			for _, b := range x.Names {
				names.Use(b.Name)
			}
		}
		return true
	})
	walk = func(e sdql.Expr, ren map[string]string) sdql.Expr {
		switch x := e.(type) {
		case *sdql.Ident:
			if n, ok := ren[x.Name]; ok && n != x.Name {
				return &sdql.Ident{NamePos: x.NamePos, Name: n}
			}
			return x
		case *sdql.SumExpr:
			src := walk(x.Src, ren)
			k, r1 := bind(x.Key, ren)
			v, r2 := bind(x.Val, r1)
			return &sdql.SumExpr{Sum: x.Sum, Key: k, Val: v, Src: src, Body: walk(x.Body, r2)}
		case *sdql.LetExpr:
			out := &sdql.LetExpr{Let: x.Let}
			r := ren
			for i, b := range x.Names {
				out.Values = append(out.Values, walk(x.Values[i], r))
				var nb sdql.Binder
				nb, r = bind(b, r)
				out.Names = append(out.Names, nb)
			}
			out.Body = walk(x.Body, r)
			return out
		}
		kids := sdql.Children(e)
		if len(kids) == 0 {
			return e
		}
		nk := make([]sdql.Expr, len(kids))
		for i, k := range kids {
			nk[i] = walk(k, ren)
		}
		return sdql.WithChildren(e, nk)
	}
	return walk(e, map[string]string{})
}

// occurrences counts the free occurrences of name in e and reports
// whether any is inside the body of a sum (a loop) within e.
func occurrences(e sdql.Expr, name string) (n int, inLoop bool) {
	var walk func(e sdql.Expr, loop bool)
	walk = func(e sdql.Expr, loop bool) {
		if id, ok := e.(*sdql.Ident); ok {
			if id.Name == name {
				n++
				inLoop = inLoop || loop
			}
			return
		}
		for i, k := range sdql.Children(e) {
			shadow := false
			for _, b := range sdql.Binders(e, i) {
				if b == name {
					shadow = true
				}
			}
			if shadow {
				continue
			}
			_, isSum := e.(*sdql.SumExpr)
			walk(k, loop || isSum && i == 1)
		}
	}
	walk(e, false)
	return n, inLoop
}

// InlineLet is the occurrence-counted let inliner of the rewrite-strategies
// paper (letSubstN 1): a let whose name occurs once, and not inside a loop
// of its body, is substituted; work is never duplicated.
var InlineLet = Named("InlineLet", func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
	l, ok := e.(*sdql.LetExpr)
	if !ok || len(l.Names) != 1 || l.Names[0].Name == "_" {
		return e, false
	}
	u, used := c.freeUse(l.Names[0].Name, l.Body)
	if !used || u.n != 1 || u.inLoop {
		return e, false
	}
	return sdql.Subst(l.Body, map[string]sdql.Expr{l.Names[0].Name: l.Values[0]}), true
})

// lets returns the let expressions of e in pre-order.
func lets(e sdql.Expr) []*sdql.LetExpr {
	var out []*sdql.LetExpr
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if l, ok := x.(*sdql.LetExpr); ok && len(l.Names) == 1 && l.Names[0].Name != "_" {
			out = append(out, l)
		}
		return true
	})
	return out
}

// InlineIfCheaper inlines a let into a loop when, after simplifying with
// s, the program is cheaper under the cost model (as for a lookup into a
// let-bound sum that the rules turn into a single evaluation of its body).
// It must be applied to the whole program.
//
// It tries the lets of dictionaries (a number computed once is never
// cheaper computed at each use). A let it tried in vain is not tried
// again while it is in the program unchanged (it is the same node):
// Repeat(InlineIfCheaper) then tries each let once, not once per let it
// inlines.
func InlineIfCheaper(s Strategy, stats Stats) Strategy { return inlineIfCheaper(s, stats, nil) }

// inlineIfCheaper is InlineIfCheaper that first asks whether any of the
// rules could rewrite a node the inlining changes (the let's uses and
// the nodes above them): where none can, s has nothing to do but what it
// did before, and the let is only computed more often. Such a let is not
// tried, which spares a simplification of the whole program per let.
// rules nil tries every let.
func inlineIfCheaper(s Strategy, stats Stats, rules []*Rule) Strategy {
	failed := map[*sdql.LetExpr]bool{}
	return Named("InlineIfCheaper", func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
		before := Cost(e, c.Inputs, stats)
		var cands []*sdql.LetExpr
		for _, l := range lets(e) {
			if _, dict := c.typeOf(l.Values[0]).(*sdql.DictType); dict && !failed[l] {
				cands = append(cands, l)
			}
		}
		// what e's simplification knew of e, for the rules' conditions
		types, extents := c.types, c.extents
		for _, l := range cands {
			if hasUnique(l.Values[0]) {
				continue // unique(...) claims are relative to the enclosing sum
			}
			c.types, c.root, c.extents = types, e, extents
			cand, changed := c.inlineLet(e, l)
			if rules != nil && !c.anyRewrites(rules, changed) {
				extents = c.extents
				failed[l] = true
				continue
			}
			saved := c.Fired
			c.Fired = map[string]int{}
			cand, _ = s(c, cand)
			fired := c.Fired
			c.Fired = saved
			if after := Cost(cand, c.Inputs, stats); after < before {
				for k, v := range fired {
					c.Fired[k] += v
				}
				return cand, true
			}
			failed[l] = true
		}
		c.types, c.root, c.extents = types, e, extents
		return e, false
	})
}

// inlineLet returns e with the let l substituted at its uses (at every
// place l is in e), and the nodes that changed, each given the type of
// the node it replaces.
func (c *Ctx) inlineLet(e sdql.Expr, l *sdql.LetExpr) (sdql.Expr, []sdql.Expr) {
	var changed []sdql.Expr
	note := func(from, to sdql.Expr) sdql.Expr {
		if to != from {
			if t, ok := c.types[from]; ok {
				c.types[to] = t
			}
			changed = append(changed, to)
		}
		return to
	}
	name, v := l.Names[0].Name, l.Values[0]
	var subst func(x sdql.Expr) sdql.Expr
	subst = func(x sdql.Expr) sdql.Expr {
		if !c.freeIn(name, x) {
			return x
		}
		if _, ok := x.(*sdql.Ident); ok {
			return v
		}
		kids := sdql.Children(x)
		nk := make([]sdql.Expr, len(kids))
		for i, k := range kids {
			nk[i] = k
			bound := sdql.Binders(x, i)
			if slices.Contains(bound, name) {
				continue
			}
			for _, b := range bound {
				if c.freeIn(b, v) && c.freeIn(name, k) {
					// a binder would capture v's variable: sdql.Subst renames
					return sdql.Subst(x, map[string]sdql.Expr{name: v})
				}
			}
			nk[i] = subst(k)
		}
		return note(x, sdql.WithChildren(x, nk))
	}
	var walk func(x sdql.Expr) sdql.Expr
	walk = func(x sdql.Expr) sdql.Expr {
		if x == l {
			return note(x, subst(l.Body))
		}
		return note(x, sdql.MapChildren(x, walk))
	}
	return walk(e), changed
}

// anyRewrites reports whether a rule matches one of the nodes, its
// conditions holding.
func (c *Ctx) anyRewrites(rules []*Rule, nodes []sdql.Expr) bool {
	for _, x := range nodes {
		for _, r := range rules {
			if c.Disabled[r.Name] || !rootMayMatch(r.LHS, x) {
				continue
			}
			m := &treeMatch{c: c}
			if matchTree(r.LHS, x, m) && checkConds(r, m) {
				return true
			}
		}
	}
	return false
}

// ANF let-binds, at the root, the dictionary-valued operands of + and *
// and the source of a sum when it is itself a sum, so that every
// intermediate dictionary has a name (the final normalization of section
// 5.4); use it as Normalize(ANF). Scalar expressions stay nested.
var ANF = Named("ANF", func(c *Ctx, e sdql.Expr) (sdql.Expr, bool) {
	changed := false
	simple := func(x sdql.Expr) bool {
		switch x.(type) {
		case *sdql.Ident, *sdql.RangeExpr, *sdql.SliceExpr, *sdql.ZeroExpr:
			return true
		case *sdql.DictExpr:
			return true
		}
		return false
	}
	out := func(x sdql.Expr) sdql.Expr {
		switch x := x.(type) {
		case *sdql.SumExpr:
			if !simple(x.Src) {
				if _, isSum := x.Src.(*sdql.SumExpr); isSum {
					n := c.fresh("t")
					changed = true
					return &sdql.LetExpr{Names: []sdql.Binder{{Name: n}}, Values: []sdql.Expr{x.Src},
						Body: &sdql.SumExpr{Key: x.Key, Val: x.Val, Src: &sdql.Ident{Name: n}, Body: x.Body}}
				}
			}
		case *sdql.BinaryExpr:
			if x.Op != sdql.ADD && x.Op != sdql.MUL {
				return x
			}
			var names []sdql.Binder
			var vals []sdql.Expr
			nx, ny := x.X, x.Y
			for _, side := range []*sdql.Expr{&nx, &ny} {
				if _, isDict := c.typeOf(*side).(*sdql.DictType); isDict && !simple(*side) {
					if _, isLet := (*side).(*sdql.LetExpr); isLet {
						continue
					}
					n := c.fresh("t")
					names = append(names, sdql.Binder{Name: n})
					vals = append(vals, *side)
					*side = &sdql.Ident{Name: n}
				}
			}
			if len(names) > 0 {
				changed = true
				var body sdql.Expr = &sdql.BinaryExpr{X: nx, Op: x.Op, Y: ny}
				for i := len(names) - 1; i >= 0; i-- {
					body = &sdql.LetExpr{Names: []sdql.Binder{names[i]}, Values: []sdql.Expr{vals[i]}, Body: body}
				}
				return body
			}
		}
		return x
	}(e)
	return out, changed
})
