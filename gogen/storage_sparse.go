package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Sparse levels (level 0 only): Gustavson's workspace. Mark[k] says
// whether key k is present, List holds the present keys in insertion
// order, and the child at key k is position k. init empties it in time
// proportional to its keys; a key past len(Mark) grows it (grow0); the
// value of a key is zeroed when the key is inserted.

func (g *gen) sparseInsert(ti *tinfo, s *lower.Insert) {
	k := g.simple(s.Key, lower.Int, "k")
	mark, list := ti.f(markField(0)), ti.f(listField(0))
	g.line("if uint(%s) >= uint(len(%s)) {", k, mark)
	g.line("if %s < 0 {", k)
	g.returnErr(g.errorf("key %d of a dense workspace is negative", k))
	g.line("}")
	g.syncOut(ti)
	g.line("%s.grow0(%s)", ti.ptr, k)
	g.syncIn(ti)
	g.line("}")
	g.line("if !%s[%s] {", mark, k)
	g.line("%s[%s] = true", mark, k)
	g.line("%s = append(%s, %s)", list, list, k)
	if s.T.Order() == 1 {
		g.line("%s[%s] = %s", ti.f(valsField), k, zeroOf(s.T.Leaf))
	}
	g.line("}")
	g.unsync(ti)
	g.bind(s.Pos, k)
}

func (g *gen) sparseLocate(ti *tinfo, s *lower.Locate) {
	k := g.simple(s.Key, lower.Int, "k")
	mark := ti.f(markField(0))
	g.line("if uint(%s) < uint(len(%s)) && %s[%s] {", k, mark, mark, k)
	g.body(s.Body, func() { g.bind(s.Pos, k) })
	g.line("}")
}

func (g *gen) sparseForLevel(ti *tinfo, s *lower.ForLevel) {
	// ranging over the list as it is when the loop starts: keys the body
	// inserts are not visited
	k, bindKey := g.loopKey(s.Key, "k")
	if bindKey == nil && (s.Pos == nil || !g.read[s.Pos]) {
		// neither the key nor its position is read: Go would reject an
		// unused k
		g.line("for range %s {", ti.f(listField(0)))
		g.body(s.Body, nil)
		g.line("}")
		return
	}
	g.line("for _, %s := range %s {", k, ti.f(listField(0)))
	g.body(s.Body, both(bindKey, func() { g.bind(s.Pos, k) }))
	g.line("}")
}

// zeroOf is the Go zero of a kind.
func zeroOf(k lower.Kind) string {
	switch k {
	case lower.Int:
		return "0"
	case lower.Bool:
		return "false"
	}
	return "0"
}
