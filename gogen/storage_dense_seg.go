package gogen

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// Dense row stores. A loop over v whose body inserts, on every iteration,
// into a full dense level at key off + v under a parent the loop does not
// change, and stores only at the inserted position, writes one row of the
// tensor's values: vals[base+off+lo : base+off+hi], with base the
// parent's row. The loop checks the row's keys against the level's
// extent once, before it, and stores through a segment of the row: Go
// then checks no bounds in the loop (a matrix row updated by a scaled
// row, x[i] = 1 over a vector), as the hand-written loop does.
//
// The key may be spelled through the index lets (t9 := i1 - 1, then
// out(i)(t9): letsegments.go), and several inserts may write rows of the
// same tensor, each through its own segment: the stencil's gradient adds
// into five rows, out(i ± 1)(j) and out(i)(j - 1, j, j + 1), which went
// from 3.7-4.2 to 3.2-3.5 ms native (1.2x the hand-written loop, was
// 1.4x); the three of row i are one wide row since (widerows.go: 1.04-
// 1.07x). Their keys are checked together before the loop; when one is
// out of range, a cold loop replays the checks in the loop's order, so
// the error names the key the loop would have met first.
//
// The level may also be followed by a diagonal last level whose insert
// takes the dense position as its parent (an elementwise Jacobian): the
// diagonal's position is the dense one, and it marks nothing when the
// level is full or known present in every row (the loop unswitched on
// its All, loops.go).

// denseSeg is a dense insert that stores through a row segment: x, and
// diag, the diagonal insert under it (nil when x's level is the last).
type denseSeg struct {
	x, diag *lower.Insert
	off     lower.Expr // the key is off + v (nil: v)
}

// storePos is the position the segment's stores are at.
func (d denseSeg) storePos() *lower.Var {
	if d.diag != nil {
		return d.diag.Pos
	}
	return d.x.Pos
}

// denseStores lists body's dense inserts at v that can store through row
// segments: at the top level of body (run on every iteration, before
// anything that may fail), into a full dense level of a tensor the
// function builds, at off + v under a parent the loop does not change,
// the only inserts into that tensor in body but for one another, their
// positions read only as the positions of stores into the last level.
func (g *gen) denseStores(v *lower.Var, body lower.Stmt) []denseSeg {
	invariant := func(e lower.Expr) bool {
		ok := true
		lower.WalkExpr(e, func(x lower.Expr) {
			switch x := x.(type) {
			case *lower.Ref:
				ok = ok && !writes(body, x.V) && x.V != v
			case *lower.Load, *lower.ValAt:
				ok = false
			}
		})
		return ok
	}
	stmts := topLevel(body)
	var out []denseSeg
	for i, s := range stmts {
		if lower.Holds[*lower.Fail](s) {
			break
		}
		x, ok := s.(*lower.Insert)
		if !ok || x.T.Input || x.At != nil {
			continue
		}
		l := x.T.Levels[x.Level]
		if l.Storage != lower.Dense || !(l.Full || sizedRow(x, body)) || !invariant(x.Parent) {
			continue
		}
		off, ok := g.loadOffset(x.Key, v) // also through the index lets (letsegments.go)
		if !ok || off != nil && !invariant(off) {
			continue
		}
		d := denseSeg{x: x, off: off}
		if x.Level != x.T.Order()-1 {
			if x.Level != x.T.Order()-2 {
				continue
			}
			d.diag = g.diagonalBelow(x, stmts[i+1:])
			if d.diag == nil {
				continue
			}
		}
		out = append(out, d)
	}
	// A tensor's other inserts in body must be segments too: drop the
	// candidates that fail until none does.
	for {
		ok := map[*lower.Insert]bool{}
		for _, d := range out {
			ok[d.x] = true
			if d.diag != nil {
				ok[d.diag] = true
			}
		}
		kept := out[:0:0]
		for _, d := range out {
			if g.denseSegmentable(d, body, ok) {
				kept = append(kept, d)
			}
		}
		if len(kept) == len(out) {
			return out
		}
		out = kept
	}
}

// sizedRow reports whether x inserts into a vector's level that is
// dense, sized at its Init and keeps no presence (a gradient's x̄, added
// into at an offset: the downsampling's x̄(2i + k) += ȳ(i) K(k)), in an
// innermost loop (body holds no loop). Its keys are below the extent by
// the lowering's proof (lower.Level.Size): one past it is an input that
// breaks its format, the error the checks before the loop return. The
// scatter loop checked every key against the extent, and ran at 1.3x the
// hand-written loop's time for it (the downsampling's native gradient).
// Not in a loop with loops inside: a segment of a gradient's x̄ or ȳ
// stored by an outer loop lives across its inner loops, and Go's register
// allocator then spilled their counters (the convolution's native
// gradient went from 29 to 51 ms when tried, issue34g).
func sizedRow(x *lower.Insert, body lower.Stmt) bool {
	l := x.T.Levels[x.Level]
	if x.T.Order() != 1 || l.Size == nil || l.Marked() {
		return false
	}
	nested := false
	lower.WalkStmts(body, func(s lower.Stmt) {
		switch s.(type) {
		case *lower.For, *lower.ForLevel, *lower.Search, *lower.Transpose:
			nested = true
		}
	})
	return !nested
}

// segError is the error of a key out of range of d's level: a dense
// result's, or a sized level's (sizedRow: an input that breaks its
// format's invariants).
func (g *gen) segError(d denseSeg, key, n string) string {
	if !d.x.T.Levels[d.x.Level].Full {
		return g.errorf("key %d out of range 0..%d of a sized dense level (an input breaks its format's invariants)", key, n+"-1")
	}
	return g.errorf("key %d out of range 0..%d of a dense result", key, n+"-1")
}

// diagonalBelow returns the insert of stmts into the diagonal level under
// x's, at x's position, when it marks nothing (a full level, or one the
// loop knows present in every row), or nil.
func (g *gen) diagonalBelow(x *lower.Insert, stmts []lower.Stmt) *lower.Insert {
	l := x.T.Levels[x.Level+1]
	if l.Storage != lower.Diagonal || x.Pos == nil {
		return nil
	}
	if all, known := g.all[x.T]; !l.Full && !(known && all) {
		return nil
	}
	for _, s := range stmts {
		if lower.Holds[*lower.Fail](s) {
			return nil
		}
		if d, ok := s.(*lower.Insert); ok && d.T == x.T && d.Level == x.Level+1 && isRefTo(d.Parent, x.Pos) {
			return d
		}
	}
	return nil
}

// denseSegmentable checks the conditions of denseStores on the rest of
// body; segs are the inserts that store through segments of their own
// (several rows of one tensor: the stencil's gradient adds into five).
func (g *gen) denseSegmentable(d denseSeg, body lower.Stmt, segs map[*lower.Insert]bool) bool {
	q := d.storePos()
	if !g.ownPos(d.x, body) || d.diag != nil && !g.ownPos(d.diag, body) {
		return false
	}
	t := d.x.T
	pos := map[*lower.Var]bool{} // the positions stored through segments
	for x := range segs {
		if x.T == t && x.Pos != nil {
			pos[x.Pos] = true
		}
	}
	ok := true
	lower.WalkStmts(body, func(s lower.Stmt) {
		switch s := s.(type) {
		case *lower.Insert:
			if s.T == t && !segs[s] {
				ok = false
			}
		case *lower.Init:
			if s.T == t {
				ok = false
			}
		case *lower.Store:
			if r, isRef := s.Pos.(*lower.Ref); s.T == t && (!isRef || !pos[r.V]) {
				ok = false
			}
		}
	})
	if !ok {
		return false
	}
	// the positions are read only as the stores' (and the diagonal's
	// parent)
	reads := g.refCounts(body)
	if d.diag != nil && reads[d.x.Pos] != 1 {
		return false
	}
	return q == nil || reads[q] == storesAt(body, q)
}

// denseSegChecks emits, in a loop of v over lo..hi (lo < hi), the check
// of the rows of ds against their levels' extents, and returns the
// offsets' Go names (by insert; "" for none) for denseSegStart. The
// error is the first key out of range as the loop would have met it: of
// one row, its first key past either end; of several, a cold loop over
// the keys in the loop's order, iteration by iteration.
func (g *gen) denseSegChecks(ds []denseSeg, lo, hi string) map[*lower.Insert]string {
	offs := map[*lower.Insert]string{}
	var conds []string
	for _, d := range ds {
		klo, khi := lo, hi
		if d.off != nil {
			o := g.simple(d.off, lower.Int, "o")
			g.typed(o, "int")
			offs[d.x] = o
			klo, khi = o+"+"+lo, o+"+"+hi
		}
		n := g.ts[d.x.T].f(nField(d.x.Level))
		if len(ds) > 1 {
			c := fmt.Sprintf("%s < 0 || %s > %s", klo, khi, n)
			if klo == "0" {
				c = fmt.Sprintf("%s > %s", khi, n)
			}
			if !slices.Contains(conds, c) {
				conds = append(conds, c)
			}
			continue
		}
		if klo == "0" {
			g.line("if %s > %s {", khi, n)
			g.returnErr(g.segError(d, n, n))
		} else {
			g.line("if %s < 0 || %s > %s {", klo, khi, n)
			bad := g.loc.name("k")
			g.line("%s := %s", bad, klo)
			g.line("if %s >= 0 {\n%s = max(%s, %s)\n}", bad, bad, bad, n)
			g.returnErr(g.segError(d, bad, n))
		}
		g.line("}")
	}
	if len(conds) == 0 {
		return offs
	}
	g.line("if %s {", strings.Join(conds, " || "))
	j := g.loc.name("j")
	g.line("for %s := %s; %s < %s; %s++ {", j, lo, j, hi, j)
	checked := map[string]bool{} // a key checked again would pass
	for _, d := range ds {
		key := j
		if o := offs[d.x]; o != "" {
			key = o + "+" + j
		}
		n := g.ts[d.x.T].f(nField(d.x.Level))
		if checked[key+" "+n] {
			continue
		}
		checked[key+" "+n] = true
		g.line("if uint(%s) >= uint(%s) {", key, n)
		g.returnErr(g.segError(d, key, n))
		g.line("}")
	}
	g.line("}")
	g.line("}")
	return offs
}

// denseSegStart emits the segment of d's row, its keys checked
// (denseSegChecks: o is its offset's Go name), records the segment's
// element at index k for the stores, and returns the segment's name.
func (g *gen) denseSegStart(d denseSeg, o, lo, hi, k string) string {
	ti := g.ts[d.x.T]
	klo, khi := lo, hi
	if o != "" {
		klo, khi = o+"+"+lo, o+"+"+hi
	}
	n := ti.f(nField(d.x.Level))
	base := ""
	if !isZero(d.x.Parent) {
		q := g.simple(d.x.Parent, lower.Int, "q")
		base = g.loc.name("base")
		g.typed(base, "int")
		g.line("%s := %s*%s", base, q, n)
		klo, khi = base+"+"+klo, base+"+"+khi
	}
	seg := g.loc.name(d.x.T.Name + "Row")
	g.typed(seg, "[]"+goKind(d.x.T.Leaf))
	g.line("%s := %s[%s : %s]", seg, ti.f(valsField), klo, khi)
	g.segInsert[d.x] = ""
	if d.diag != nil {
		g.segInsert[d.diag] = ""
	}
	if q := d.storePos(); q != nil && g.read[q] {
		g.segStore[q] = seg + "[" + k + "]"
	}
	return seg
}

// denseSegEnd forgets what denseSegStart recorded.
func (g *gen) denseSegEnd(d denseSeg) {
	delete(g.segInsert, d.x)
	if d.diag != nil {
		delete(g.segInsert, d.diag)
	}
	if q := d.storePos(); q != nil {
		delete(g.segStore, q)
	}
}
