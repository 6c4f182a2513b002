package gogen

import "github.com/nablasd/nablasd/lower"

// Workspaces grown before a row. An appended level's insert grows its
// marks (and Gustavson's workspace) when a key is past their end: a call
// that returns into the loop, so Go keeps the loop's counter, key and
// value in stack slots across it, stored and reloaded every entry. When
// the key is the coordinate of a compressed input level at the loop's
// position, and the loop runs over one parent's positions of that level
// (pos[e]..pos[e+1], or any range of a top level, which has one parent),
// the keys ascend (every format level is ordered, formats.Level), so the
// segment's last key is its largest: the marks are grown to it once
// before the loop, and the loop has no growth. An input that breaks its
// format's order then indexes past the marks, a runtime error the
// function recovers as "an input breaks its format's invariants"; so
// does a negative coordinate, which the insert reported by itself
// before. A loop that initializes the tensor again is left as it is.
// BATAx's generated kernel, with the appended keys kept in the result
// (tensor.go): 0.93x the time of the copy without either (chunked A/B on
// nopoly, aligned builds).

// preGrowth is an appended insert whose marks a loop grows before it
// runs: the insert and the array its key is read from.
type preGrowth struct {
	x *lower.Insert
	a *lower.Array
}

// preGrowths lists the appended inserts in body whose key is an ordered
// coordinate read at v, for the loop f over one parent's positions.
func (g *gen) preGrowths(v *lower.Var, body lower.Stmt, f *lower.For) []preGrowth {
	if f == nil || writes(body, v) {
		return nil
	}
	inits := map[*lower.Tensor]bool{}
	lower.WalkStmts(body, func(s lower.Stmt) {
		if in, ok := s.(*lower.Init); ok {
			inits[in.T] = true
		}
	})
	var out []preGrowth
	lower.WalkStmts(body, func(s lower.Stmt) {
		x, ok := s.(*lower.Insert)
		if !ok || x.T.Input || x.T.Levels[x.Level].Storage != lower.Appended || inits[x.T] {
			return
		}
		ld, ok := g.resolveLet(x.Key).(*lower.Load)
		if !ok || !isRefTo(ld.Index, v) || !g.oneParent(ld.A, f) {
			return
		}
		out = append(out, preGrowth{x, ld.A})
	})
	return out
}

// oneParent reports whether the loop f runs over positions of one parent
// of the compressed level whose coordinates are a, which then ascend.
func (g *gen) oneParent(a *lower.Array, f *lower.For) bool {
	l := a.Level
	if l == nil || !l.PosIter || l.OnePerParent || !l.Ordered || l.Idx != a.Name {
		return false
	}
	if l.Pos == "" {
		return true // a top level: one parent, the root
	}
	lo, ok1 := g.resolveLet(f.Lo).(*lower.Load)
	hi, ok2 := g.resolveLet(f.Hi).(*lower.Load)
	if !ok1 || !ok2 || lo.A != hi.A || lo.A.Name != l.Pos || lo.A.Level != l {
		return false
	}
	r, ok := lo.Index.(*lower.Ref)
	return ok && g.sets()[r.V] == 1 && lower.IsNext(hi.Index, r.V)
}

// resolveLet returns the expression a variable set once, by a let, was
// bound to (g.sets counts the statements setting each variable), and
// anything else as it is.
func (g *gen) resolveLet(e lower.Expr) lower.Expr {
	r, ok := e.(*lower.Ref)
	if !ok || g.sets()[r.V] != 1 {
		return e
	}
	if g.lets == nil {
		g.lets = map[*lower.Var]lower.Expr{}
		lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
			if let, ok := s.(*lower.Let); ok {
				g.lets[let.V] = let.X
			}
		})
	}
	if x, ok := g.lets[r.V]; ok {
		return x
	}
	return e
}

// preGrow emits, before the loop whose segments are named (segs, names;
// the loop runs, so they are not empty), the growth of each insert's
// marks to the last key of the segment its key is read from, and notes
// the inserts (g.grownBefore) so they do not grow them; an insert whose
// key's array the loop does not read as a segment keeps its own growth.
// The returned function forgets them after the loop.
func (g *gen) preGrow(ps []preGrowth, segs []segRef, names []string) func() {
	done := map[string]bool{}
	var grown []*lower.Insert
	for _, p := range ps {
		last := ""
		for i, sg := range segs {
			if sg.a == p.a && sg.off == nil {
				last = names[i] + "[len(" + names[i] + ")-1]"
			}
		}
		if last == "" {
			continue
		}
		ti := g.ts[p.x.T]
		lv := p.x.Level
		mark := ti.f(appMark(lv))
		g.grownBefore[p.x] = true
		grown = append(grown, p.x)
		if done[mark+last] {
			continue
		}
		done[mark+last] = true
		n := g.loc.name("last")
		g.line("if %s := %s; %s >= len(%s) { // the row's largest key (pregrow.go)", n, last, n, mark)
		g.line("%s = %s.%s.grown(%s, %s)", mark, ti.ptr, appField(lv), mark, n)
		if g.wvals[p.x.T] != nil {
			w := ti.f(appW(lv))
			g.line("%s = %s.%s.grownW(%s, len(%s))", w, ti.ptr, appField(lv), w, mark)
		}
		g.line("}")
	}
	return func() {
		for _, x := range grown {
			delete(g.grownBefore, x)
		}
	}
}
