package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Positions levels reuse an input level's arrays: the children of parent
// position q are the positions Pos[q]..Pos[q+1]-1 of the input's level
// (those of Idx under parent 0 when the level has no Pos), their keys
// Idx[c], ascending; Present marks the positions inserted (their values
// are zero until then: init clears them). An insert usually knows the position (lower.Insert.At);
// otherwise, and to locate a key, it is found by binary search.

// positionsRange emits the range of the children of parent in level lv:
// empty for a parent the input's level does not have.
func (g *gen) positionsRange(ti *tinfo, lv int, q string) (lo, hi string) {
	of := ti.t.Levels[lv].Of
	idx := g.arrays[of.Idx]
	lo, hi = g.loc.name("lo"), g.loc.name("hi")
	g.line("%s, %s := 0, 0", lo, hi)
	if of.Pos == nil {
		g.line("if %s == 0 {\n%s = len(%s)\n}", q, hi, idx)
		return lo, hi
	}
	pos := g.arrays[of.Pos]
	g.line("if %s >= 0 && %s+1 < len(%s) {\n%s, %s = %s[%s], %s[%s+1]\n}", q, q, pos, lo, hi, pos, q, pos, q)
	return lo, hi
}

func (g *gen) positionsInsert(ti *tinfo, s *lower.Insert) {
	lv := s.Level
	if el, ok := g.segInsert[s]; ok {
		// in a loop over the positions: marked through a segment, its
		// position read only by stores through one (loops.go); a full
		// level has no marks
		if el != "" {
			g.line("%s = true", el)
		}
		return
	}
	var c string
	if s.At != nil {
		// a position out of range is an input breaking its format's
		// invariants: Go's bounds check of the store below
		c = g.simple(s.At, lower.Int, "c")
	} else {
		g.helpers["search"] = true
		k := g.simple(s.Key, lower.Int, "k")
		q := g.simple(s.Parent, lower.Int, "q")
		lo, hi := g.positionsRange(ti, lv, q)
		c = g.loc.name("c")
		ok := g.loc.name("ok")
		idx := g.arrays[ti.t.Levels[lv].Of.Idx]
		g.line("%s, %s := %sSearch(%s, %s, %s, %s)", c, ok, g.pfx, idx, lo, hi, k)
		g.line("if !%s {", ok)
		g.returnErr(g.errorf("key %d is not a stored coordinate of the positions level's parent %d", k, q))
		g.line("}")
	}
	// the values are zero until inserted (init clears them): marking
	// the position is all an insert does, and a full level's positions
	// are present with their parent's
	if ti.t.Levels[lv].Marked() {
		g.line("%s[%s] = true", ti.f(presentField(lv)), c)
	} else if s.At != nil {
		g.line("_ = %s", c) // the position may go unread: its check stays Go's
	}
	g.bind(s.Pos, c)
}

func (g *gen) positionsLocate(ti *tinfo, s *lower.Locate) {
	g.helpers["search"] = true
	k := g.simple(s.Key, lower.Int, "k")
	lo, hi := g.positionsRange(ti, s.Level, g.simple(s.Parent, lower.Int, "q"))
	c := g.loc.name("c")
	idx := g.arrays[ti.t.Levels[s.Level].Of.Idx]
	if ti.t.Levels[s.Level].Marked() {
		g.line("if %s, ok := %sSearch(%s, %s, %s, %s); ok && %s[%s] {", c, g.pfx, idx, lo, hi, k, ti.f(presentField(s.Level)), c)
	} else {
		g.line("if %s, ok := %sSearch(%s, %s, %s, %s); ok {", c, g.pfx, idx, lo, hi, k)
	}
	g.body(s.Body, func() { g.bind(s.Pos, c) })
	g.line("}")
}

func (g *gen) positionsForLevel(ti *tinfo, s *lower.ForLevel) {
	lo, hi := g.positionsRange(ti, s.Level, g.simple(s.Parent, lower.Int, "q"))
	idx := g.arrays[ti.t.Levels[s.Level].Of.Idx]
	c := g.loc.name("c")
	g.line("for %s := %s; %s < %s; %s++ {", c, lo, c, hi, c)
	if ti.t.Levels[s.Level].Marked() {
		g.line("if !%s[%s] {\ncontinue\n}", ti.f(presentField(s.Level)), c)
	}
	g.body(s.Body, func() {
		g.bind(s.Key, idx+"["+c+"]")
		g.bind(s.Pos, c)
	})
	g.line("}")
}
