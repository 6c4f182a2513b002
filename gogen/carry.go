package gogen

import "github.com/nablasd/nablasd/lower"

// Carried loads. A loop over a compressed level's rows reads each row's
// bounds, pos[k] and pos[k+1]: two loads per row, and the first with a
// bounds check, where a hand-written loop keeps the previous row's end as
// the next row's start. On a matrix of short rows (bcspwr10: 4 entries a
// row) the second load and its check cost SMMM's generated fill 16% over
// the hand-written one; carried, it ran 0.97–1.02× of it.
//
// So a loop from 0 that reads an input array a at v + c + 1 through a
// segment, and at v + c too, loads a[c] before the loop and, at the top of
// each iteration, takes the value carried from the previous one for
// a[v + c] and loads the segment's a[v + c + 1] into the carry. a[c] is in
// bounds: the segment was cut up to a[c + hi] with hi > 0. An input array
// is never written, so the carried value is the one a load would read.

// carry is a carried load: the array, and the offsets read, c (nil for 0)
// and c + 1 (the segment's).
type carry struct {
	a      *lower.Array
	lo, hi lower.Expr // offsets c and c + 1
	seg    int        // the index of the c + 1 segment in the loop's segments
	nxt    string     // the Go name of the value carried into the next iteration
}

// carries lists the carried loads of the loop of v from lo over body,
// whose segments are segs.
func (g *gen) carries(v *lower.Var, lo string, segs []segRef, body lower.Stmt) []carry {
	if lo != "0" {
		return nil
	}
	inSeg := map[loadKey]bool{}
	for _, sg := range segs {
		inSeg[sg.key(v)] = true
	}
	var out []carry
	for i, sg := range segs {
		c, ok := sg.off.(*lower.Const)
		if !ok || c.K != lower.Int || c.I < 1 || sg.a.Temp {
			continue
		}
		var prev lower.Expr
		if c.I > 1 {
			prev = &lower.Const{K: lower.Int, I: c.I - 1}
		}
		if k := (segRef{sg.a, prev}).key(v); inSeg[k] || !g.readsAt(body, v, k) {
			continue
		}
		out = append(out, carry{a: sg.a, lo: prev, hi: sg.off, seg: i})
	}
	return out
}

// readsAt reports whether the live statements of body load at key k.
func (g *gen) readsAt(body lower.Stmt, v *lower.Var, k loadKey) bool {
	found := false
	g.walkLive(body, func(e lower.Expr) {
		lower.WalkExpr(e, func(x lower.Expr) {
			if l, ok := x.(*lower.Load); ok && l.A == k.a {
				if w, off := lower.OffsetIndex(l.Index); w == v && (segRef{l.A, off}).key(v) == k {
					found = true
				}
			}
		})
	})
	return found
}

// carryStart declares the carries before the loop: each one's next value
// loaded at its offset c.
func (g *gen) carryStart(cs []carry) {
	for i := range cs {
		c := &cs[i]
		c.nxt = g.loc.name(g.arrays[c.a] + "Next")
		g.typed(c.nxt, goKind(c.a.Kind))
		at := "0"
		if c.lo != nil {
			at = g.exprAs(c.lo, lower.Int)
		}
		g.line("%s := %s[%s]", c.nxt, g.arrays[c.a], at)
	}
}

// carryStep emits the top of an iteration (k its Go index into the
// segments names): each carry's value for offset c, and its next one
// loaded; loads at both offsets read them (override).
func (g *gen) carryStep(v *lower.Var, cs []carry, names []string, k string) {
	for i := range cs {
		c := cs[i]
		cur := g.loc.name(g.arrays[c.a] + "Cur")
		g.typed(cur, goKind(c.a.Kind))
		g.line("%s := %s", cur, c.nxt)
		g.line("%s = %s[%s]", c.nxt, names[c.seg], k)
		g.override[(segRef{c.a, c.lo}).key(v)] = cur
		g.override[(segRef{c.a, c.hi}).key(v)] = c.nxt
	}
}

// carryEnd forgets the carries' loads.
func (g *gen) carryEnd(v *lower.Var, cs []carry) {
	for _, c := range cs {
		delete(g.override, (segRef{c.a, c.lo}).key(v))
	}
}
