package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// The statements on a tensor's levels (Insert, Locate, ForLevel) dispatch
// on the level's storage; each storage's code is in its own file
// (storage_*.go), so a new storage is one more case here and one file.

func (g *gen) insert(s *lower.Insert) {
	ti := g.ts[s.T]
	switch s.T.Levels[s.Level].Storage {
	case lower.Dense:
		g.denseInsert(ti, s)
	case lower.Sparse:
		g.sparseInsert(ti, s)
	case lower.Hash:
		g.hashInsert(ti, s)
	case lower.Positions:
		g.positionsInsert(ti, s)
	case lower.Appended:
		g.appendedInsert(ti, s)
	case lower.Diagonal:
		g.diagonalInsert(ti, s)
	default:
		g.failf("internal error: a level of storage %s", s.T.Levels[s.Level].Storage)
	}
	if a := g.burstAt[s]; a != nil {
		g.appendedBegin(g.ts[a.T], a.Level, g.simple(&lower.Ref{V: s.Pos}, lower.Int, "q"))
		g.begun[a] = true
	}
}

func (g *gen) locate(s *lower.Locate) {
	ti := g.ts[s.T]
	switch s.T.Levels[s.Level].Storage {
	case lower.Dense:
		g.denseLocate(ti, s)
	case lower.Sparse:
		g.sparseLocate(ti, s)
	case lower.Hash:
		g.hashLocate(ti, s)
	case lower.Positions:
		g.positionsLocate(ti, s)
	case lower.Appended:
		g.appendedLocate(ti, s)
	case lower.Diagonal:
		g.diagonalLocate(ti, s)
	default:
		g.failf("internal error: a level of storage %s", s.T.Levels[s.Level].Storage)
	}
}

func (g *gen) forLevel(s *lower.ForLevel) {
	ti := g.ts[s.T]
	switch s.T.Levels[s.Level].Storage {
	case lower.Dense:
		g.denseForLevel(ti, s)
	case lower.Sparse:
		g.sparseForLevel(ti, s)
	case lower.Hash:
		g.hashForLevel(ti, s)
	case lower.Positions:
		g.positionsForLevel(ti, s)
	case lower.Appended:
		g.appendedForLevel(ti, s)
	case lower.Diagonal:
		g.diagonalForLevel(ti, s)
	default:
		g.failf("internal error: a level of storage %s", s.T.Levels[s.Level].Storage)
	}
}

// isZero reports whether e is the constant 0 (the parent of level 0).
func isZero(e lower.Expr) bool {
	c, ok := e.(*lower.Const)
	return ok && c.K == lower.Int && c.I == 0
}

// loopKey returns the Go name a level loop binds a variable to directly
// (its own name when it can be declared by the loop), or a fresh name
// and a function binding the variable to it inside the body.
func (g *gen) loopKey(v *lower.Var, base string) (name string, bind func()) {
	if v == nil || !g.read[v] {
		return g.loc.name(base), nil
	}
	if !g.visible(v) {
		return g.vars[v], func() { g.declare(v) }
	}
	t := g.loc.name(base)
	return t, func() { g.bind(v, t) }
}

// both runs the bindings that are not nil.
func both(fs ...func()) func() {
	return func() {
		for _, f := range fs {
			if f != nil {
				f()
			}
		}
	}
}

// posName is a fresh name for the position a statement binds to v, or _
// when nothing reads v.
func (g *gen) posName(v *lower.Var) string {
	if v == nil || !g.read[v] {
		return "_"
	}
	return g.loc.name("c")
}
