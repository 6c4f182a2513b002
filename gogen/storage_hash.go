package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Hashed levels: a PFXHash (runtime.go) maps (parent, key) to child
// positions numbered in insertion order; the values of a hashed last
// level grow with it.

func (g *gen) hashInsert(ti *tinfo, s *lower.Insert) {
	lv := s.Level
	q := g.exprAs(s.Parent, lower.Int)
	k := g.exprAs(s.Key, lower.Int)
	h := ti.ptr + "." + hashField(lv)
	last := lv == s.T.Order()-1
	switch {
	case last:
		c, added := g.loc.name("c"), g.loc.name("added")
		g.line("%s, %s := %s.insert(%s, %s)", c, added, h, q, k)
		vals := ti.f(valsField)
		g.line("if %s {\n%s = append(%s, %s)\n}", added, vals, vals, zeroOf(s.T.Leaf))
		g.unsync(ti)
		g.bind(s.Pos, c)
	case s.Pos != nil && g.read[s.Pos]:
		c := g.loc.name("c")
		g.line("%s, _ := %s.insert(%s, %s)", c, h, q, k)
		g.bind(s.Pos, c)
	default:
		g.line("%s.insert(%s, %s)", h, q, k)
	}
}

func (g *gen) hashLocate(ti *tinfo, s *lower.Locate) {
	q := g.exprAs(s.Parent, lower.Int)
	k := g.exprAs(s.Key, lower.Int)
	c := g.posName(s.Pos)
	g.line("if %s, ok := %s.%s.find(%s, %s); ok {", c, ti.ptr, hashField(s.Level), q, k)
	g.body(s.Body, func() { g.bind(s.Pos, c) })
	g.line("}")
}

func (g *gen) hashForLevel(ti *tinfo, s *lower.ForLevel) {
	q := g.exprAs(s.Parent, lower.Int)
	h := ti.ptr + "." + hashField(s.Level)
	c := g.loc.name("c")
	g.line("for %s := %s.first(%s); %s >= 0; %s = %s.after(%s) {", c, h, q, c, c, h, c)
	g.body(s.Body, func() {
		g.bind(s.Key, h+".Keys["+c+"]")
		g.bind(s.Pos, c)
	})
	g.line("}")
}
