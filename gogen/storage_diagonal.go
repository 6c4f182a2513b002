package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Diagonal levels (level 1 under a dense level 0, lower.Diagonal) store
// values and, unless full, Present (which parents have their child; All
// when every parent has, an init kept uncleared: lower.Init.Covered): the
// one child of parent position q is at key q and position q, so the
// values are as many as the parents. The lowering proves every insert's
// key is its parent's (the closure runtime checks it again).

func (g *gen) diagonalInsert(ti *tinfo, s *lower.Insert) {
	if _, ok := g.segInsert[s]; ok {
		return // under a dense row stored through a segment, marking nothing (storage_dense_seg.go)
	}
	q := g.simple(s.Parent, lower.Int, "q") // the key is q's (ChooseDiagonal)
	if !s.T.Levels[s.Level].Full {
		all, known := g.all[s.T]
		switch {
		case !g.covered(s.T) || known && !all:
			g.line("%s[%s] = true", ti.f(presentField(s.Level)), q)
		case !known:
			g.line("if !%s {\n%s[%s] = true\n}", ti.f(allField(s.Level)), ti.f(presentField(s.Level)), q)
		}
	}
	g.bind(s.Pos, q)
}

func (g *gen) diagonalLocate(ti *tinfo, s *lower.Locate) {
	q := g.simple(s.Parent, lower.Int, "q")
	k := g.simple(s.Key, lower.Int, "k")
	cond := k + " == " + q
	if !s.T.Levels[s.Level].Full {
		cond += " && (" + ti.f(allField(s.Level)) + " || " + ti.f(presentField(s.Level)) + "[" + q + "])"
	}
	g.line("if %s {", cond)
	g.body(s.Body, func() { g.bind(s.Pos, q) })
	g.line("}")
}

func (g *gen) diagonalForLevel(ti *tinfo, s *lower.ForLevel) {
	q := g.simple(s.Parent, lower.Int, "q")
	if s.T.Levels[s.Level].Full {
		g.line("{")
	} else {
		g.line("if %s || %s[%s] {", ti.f(allField(s.Level)), ti.f(presentField(s.Level)), q)
	}
	g.body(s.Body, func() {
		g.bind(s.Key, q)
		g.bind(s.Pos, q)
	})
	g.line("}")
}
