package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Dense levels: keys 0..N-1, the child of parent position q at key k is
// q*N + k; without Full, Present marks the children that exist. Level 0
// grows (grow0) when a key past N arrives, unless it is full: a full
// level's extent is the result's known shape, and a key past it is an
// error.

// denseChild is the child position of parent at key k in level lv.
func (g *gen) denseChild(ti *tinfo, lv int, parent lower.Expr, k string) string {
	if isZero(parent) {
		return k
	}
	q := g.simple(parent, lower.Int, "q")
	c := g.loc.name("c")
	g.line("%s := %s*%s + %s", c, q, ti.f(nField(lv)), k)
	return c
}

func (g *gen) denseInsert(ti *tinfo, s *lower.Insert) {
	if _, ok := g.segInsert[s]; ok {
		return // a row stored through a segment, its keys checked before the loop (storage_dense_seg.go)
	}
	lv, l := s.Level, s.T.Levels[s.Level]
	k := g.simple(s.Key, lower.Int, "k")
	n := ti.f(nField(lv))
	bound := g.denseBound(ti, s.T, lv, s.Parent)
	switch {
	case l.Full:
		g.line("if uint(%s) >= uint(%s) {", k, bound)
		g.returnErr(g.errorf("key %d out of range 0..%d of a dense result", k, n+"-1"))
		g.line("}")
	case lv == 0 && l.Size != nil:
		// Sized: the lowering proved every key below the extent init
		// gave the level (lower.Level.Size), from the loops' ranges or
		// from a validated input's coordinates, so it never grows, and
		// no call to grow0 sits on the loop's cold path. A key past it
		// is an input whose coordinates break its format.
		g.line("if uint(%s) >= uint(%s) {", k, bound)
		g.returnErr(g.errorf("key %d out of range 0..%d of a sized dense level (an input breaks its format's invariants)", k, n+"-1"))
		g.line("}")
	case lv == 0:
		g.line("if uint(%s) >= uint(%s) {", k, bound)
		g.line("if %s < 0 {", k)
		g.returnErr(g.errorf("key %d of a dense result is negative", k))
		g.line("}")
		g.syncOut(ti)
		g.line("%s.grow0(%s)", ti.ptr, k)
		g.syncIn(ti)
		g.line("}")
		g.unsync(ti)
	default:
		g.line("if uint(%s) >= uint(%s) {", k, n)
		g.returnErr(g.errorf("key %d out of range 0..%d of a dense level", k, n+"-1"))
		g.line("}")
	}
	if !l.Marked() && (s.Pos == nil || !g.read[s.Pos]) {
		return // nothing reads the child and no mark is set: the key's check is the insert
	}
	c := g.denseChild(ti, lv, s.Parent, k)
	if l.Marked() {
		g.line("%s[%s] = true", ti.f(presentField(lv)), c)
	}
	g.bind(s.Pos, c)
}

// denseBound is the Go expression a key of level lv under parent is
// checked against: the level's extent N, or len(Vals) where the values
// have exactly N entries (level 0 of a vector, or over a diagonal level),
// which lets Go drop the bounds check of the load or store that follows.
func (g *gen) denseBound(ti *tinfo, t *lower.Tensor, lv int, parent lower.Expr) string {
	if lv == 0 && (t.Order() == 1 || t.Order() == 2 && t.Levels[1].Storage == lower.Diagonal) && isZero(parent) {
		return "len(" + ti.f(valsField) + ")"
	}
	return ti.f(nField(lv))
}

func (g *gen) denseLocate(ti *tinfo, s *lower.Locate) {
	lv, l := s.Level, s.T.Levels[s.Level]
	k := g.simple(s.Key, lower.Int, "k")
	// the child position is needed for the presence check or the body
	need := l.Marked() || s.Pos != nil && g.read[s.Pos]
	var q string
	if need && !isZero(s.Parent) {
		q = g.simple(s.Parent, lower.Int, "q")
	}
	n := ti.f(nField(lv))
	g.line("if uint(%s) < uint(%s) {", k, g.denseBound(ti, s.T, lv, s.Parent))
	c := k
	if q != "" {
		c = g.loc.name("c")
		g.line("%s := %s*%s + %s", c, q, n, k)
	}
	if !l.Marked() {
		g.body(s.Body, func() { g.bind(s.Pos, c) })
	} else {
		g.line("if %s[%s] {", ti.f(presentField(lv)), c)
		g.body(s.Body, func() { g.bind(s.Pos, c) })
		g.line("}")
	}
	g.line("}")
}

func (g *gen) denseForLevel(ti *tinfo, s *lower.ForLevel) {
	lv, l := s.Level, s.T.Levels[s.Level]
	var base string
	if !isZero(s.Parent) {
		q := g.simple(s.Parent, lower.Int, "q")
		base = g.loc.name("base")
		g.line("%s := %s*%s", base, q, ti.f(nField(lv)))
	}
	// the extent when the loop starts (the body may grow the level)
	n := g.loc.name("n")
	g.line("%s := %s", n, ti.f(nField(lv)))
	k, bindKey := g.loopKey(s.Key, "k")
	g.line("for %s := 0; %s < %s; %s++ {", k, k, n, k)
	g.unsync(nil)
	g.push()
	if bindKey != nil {
		bindKey()
	}
	c := k
	if base != "" {
		c = g.loc.name("c")
		g.line("%s := %s + %s", c, base, k)
	}
	if l.Marked() {
		g.line("if !%s[%s] {\ncontinue\n}", ti.f(presentField(lv)), c)
	}
	g.bind(s.Pos, c)
	g.stmt(s.Body)
	g.pop()
	g.unsync(nil)
	g.line("}")
}
