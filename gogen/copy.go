package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// copyLoop emits a Map that assigns one array read at the loop's index
// into a dense vector (lower.Prim Map with Set and no other factor: out[i]
// = A[i], or = select(i < n, A[i], 0)) as Go's copy, and a clear past a
// guarded array's bound: memmove, as a hand-written loop would call it.
// The loop itself follows, run when the bounds do not hold, so that it
// fails as it would. It reports whether it emitted the loop.
func (g *gen) copyLoop(s *lower.For) bool {
	m := s.Prim
	if m == nil || m.Name != "Map" || !m.Set || len(m.Factors) != 0 || (m.Vals == nil) == (m.Gather == nil) {
		return false
	}
	t := m.Dst
	if t.Order() != 1 || !t.Levels[0].Full || t.Leaf != lower.Real {
		return false
	}
	src := m.Vals
	if src == nil {
		src = m.Gather
	}
	vals, a := g.ts[t].f(valsField), g.arrays[src]
	lo := g.exprAs(s.Lo, lower.Int)
	if !isSimple(lo) {
		t := g.loc.name("lo")
		g.line("%s := %s", t, lo)
		lo = t
	}
	hi := g.bound(s.Hi, s.Body)
	end := hi // the end of the copy: the guard's bound within lo..hi
	if m.Bound != nil {
		end = g.loc.name("end")
		g.line("%s := max(min(%s, %s), %s)", end, g.exprAs(m.Bound, lower.Int), hi, lo)
	}
	inRange := lo + " <= " + hi
	if lo != "0" {
		inRange = "0 <= " + lo + " && " + inRange
	}
	g.line("if %s && %s <= len(%s) && %s <= len(%s) {", inRange, hi, vals, end, a)
	g.line("copy(%s[%s:%s], %s[%s:%s])", vals, lo, end, a, lo, end)
	if m.Bound != nil {
		g.line("clear(%s[%s:%s])", vals, end, hi)
	}
	g.line("} else {")
	g.unsync(nil)
	g.push()
	g.loop(s.V, lo, hi, s.Body, s)
	g.pop()
	g.unsync(nil)
	g.line("}")
	return true
}
