package gogen

import (
	"fmt"

	"github.com/nablasd/nablasd/lower"
)

// Positions levels reuse an input level's arrays: the children of parent
// position q are the positions Pos[q]..Pos[q+1]-1 of the input's level
// (0..len(Idx)-1 at the top), their keys Idx[p], ascending. Every
// position exists (its value zero until stored); a key is found by binary
// search, and one that is not a stored position cannot be inserted.

// positionsRange emits the range of the children of parent in level lv.
func (g *gen) positionsRange(ti *tinfo, lv int, parent lower.Expr) (lo, hi string) {
	of := ti.t.Levels[lv].Of
	idx := g.arrays[of.Idx]
	if of.Pos == nil {
		return "0", "len(" + idx + ")"
	}
	q := g.simple(parent, lower.Int, "q")
	pos := g.arrays[of.Pos]
	return pos + "[" + q + "]", pos + "[" + q + "+1]"
}

func (g *gen) positionsInsert(ti *tinfo, s *lower.Insert) {
	g.helpers["search"] = true
	k := g.simple(s.Key, lower.Int, "k")
	lo, hi := g.positionsRange(ti, s.Level, s.Parent)
	c, ok := g.loc.name("c"), g.loc.name("ok")
	idx := g.arrays[ti.t.Levels[s.Level].Of.Idx]
	g.line("%s, %s := %sSearch(%s, %s, %s, %s)", c, ok, g.pfx, idx, lo, hi, k)
	g.line("if !%s {", ok)
	g.returnErr(g.errorf(fmt.Sprintf("key %%d is not a stored position of %s", idx), k))
	g.line("}")
	g.bind(s.Pos, c)
}

func (g *gen) positionsLocate(ti *tinfo, s *lower.Locate) {
	g.helpers["search"] = true
	k := g.simple(s.Key, lower.Int, "k")
	lo, hi := g.positionsRange(ti, s.Level, s.Parent)
	c := g.posName(s.Pos)
	idx := g.arrays[ti.t.Levels[s.Level].Of.Idx]
	g.line("if %s, ok := %sSearch(%s, %s, %s, %s); ok {", c, g.pfx, idx, lo, hi, k)
	g.body(s.Body, func() { g.bind(s.Pos, c) })
	g.line("}")
}

func (g *gen) positionsForLevel(ti *tinfo, s *lower.ForLevel) {
	lo, hi := g.positionsRange(ti, s.Level, s.Parent)
	idx := g.arrays[ti.t.Levels[s.Level].Of.Idx]
	c, end := g.loc.name("c"), g.loc.name("end")
	g.line("for %s, %s := %s, %s; %s < %s; %s++ {", c, end, lo, hi, c, end, c)
	g.body(s.Body, func() {
		g.bind(s.Key, idx+"["+c+"]")
		g.bind(s.Pos, c)
	})
	g.line("}")
}
