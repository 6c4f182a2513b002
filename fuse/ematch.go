package fuse

import (
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// eSubst is a match of a pattern in the e-graph: pattern variables bound
// to classes or (binder variables) to names. It is immutable; patterns bind
// few variables, so a slice beats a map.
type eSubst struct {
	b []eBind
}

type eBind struct {
	v      string
	id     ClassID
	name   string
	isName bool
}

func (s eSubst) expr(v string) (ClassID, bool) {
	for _, b := range s.b {
		if b.v == v && !b.isName {
			return b.id, true
		}
	}
	return 0, false
}

func (s eSubst) nameOf(v string) (string, bool) {
	for _, b := range s.b {
		if b.v == v && b.isName {
			return b.name, true
		}
	}
	return "", false
}

func (s eSubst) with(b eBind) eSubst {
	nb := make([]eBind, len(s.b)+1)
	copy(nb, s.b)
	nb[len(s.b)] = b
	return eSubst{nb}
}

func (s eSubst) withExpr(v string, id ClassID) eSubst { return s.with(eBind{v: v, id: id}) }

func (s eSubst) withName(v, n string) eSubst { return s.with(eBind{v: v, name: n, isName: true}) }

// ematch finds the matches of pattern p in class id, calling k for each.
func (g *EGraph) ematch(p sdql.Expr, id ClassID, s eSubst, k func(eSubst)) {
	if g.stopMatch {
		return
	}
	id = g.Find(id)
	c := g.classes[id]
	if id, ok := p.(*sdql.Ident); ok {
		if id.Name == "__zt_" {
			for _, n := range c.Nodes {
				if isZeroNode(n) {
					k(s)
					return
				}
			}
			return
		}
		if isPatVar(id.Name) {
			v := id.Name[1:]
			if name, ok := s.nameOf(v); ok {
				if g.hasIdent(c, name) {
					k(s)
				}
				return
			}
			if old, ok := s.expr(v); ok {
				if g.Find(old) == c.ID {
					k(s)
				}
				return
			}
			k(s.withExpr(v, c.ID))
			return
		}
		if g.hasIdent(c, id.Name) {
			k(s)
		}
		return
	}
	if v, ok := numLit(p); ok {
		for _, n := range c.Nodes {
			if (n.Op == opInt || n.Op == opReal) && nodeNum(n) == v {
				k(s)
				return
			}
		}
		return
	}
	pn := patNode(p)
	pk := sdql.Children(p)
	for _, n := range c.Nodes {
		if n.Op != pn.Op || len(n.Kids) != len(pk) {
			if d, isD := p.(*sdql.DictExpr); isD && len(d.Entries) == 0 && n.Op == opZero && isDictType(g.types[n.Sym]) {
				k(s)
			}
			continue
		}
		s2, ok := s, true
		switch pn.Op {
		case opSum:
			pkb, pvb, _ := strings.Cut(pn.Sym, ",")
			nk, nv, _ := strings.Cut(n.Sym, ",")
			s2, ok = matchName(pkb, nk, s2)
			if ok {
				s2, ok = matchName(pvb, nv, s2)
			}
		case opLet:
			s2, ok = matchName(pn.Sym, n.Sym, s2)
		case opBool, opUnary, opBinary, opCall, opZero, opOneHot, opIf:
			ok = pn.Sym == n.Sym
		}
		if !ok {
			continue
		}
		g.matchKids(pk, n.Kids, 0, s2, k)
	}
}

func (g *EGraph) matchKids(ps []sdql.Expr, ids []ClassID, i int, s eSubst, k func(eSubst)) {
	if i == len(ps) {
		k(s)
		return
	}
	g.ematch(ps[i], ids[i], s, func(s2 eSubst) { g.matchKids(ps, ids, i+1, s2, k) })
}

func matchName(p, n string, s eSubst) (eSubst, bool) {
	if p == "_" {
		return s, true
	}
	if !isPatVar(p) {
		return s, p == n
	}
	v := p[1:]
	if old, ok := s.nameOf(v); ok {
		return s, old == n
	}
	return s.withName(v, n), true
}

func (g *EGraph) hasIdent(c *EClass, name string) bool {
	for _, n := range c.Nodes {
		if n.Op == opIdent && n.Sym == name {
			return true
		}
	}
	return false
}

func nodeNum(n ENode) float64 {
	v, _ := numLit((&EGraph{}).build(n, nil))
	return v
}

func isZeroNode(n ENode) bool {
	switch n.Op {
	case opZero:
		return true
	case opDict:
		return len(n.Kids) == 0
	case opInt, opReal:
		return nodeNum(n) == 0
	}
	return false
}

// patNode is the e-node skeleton of a pattern node (binders as pattern names).
func patNode(p sdql.Expr) ENode {
	switch x := p.(type) {
	case *sdql.SumExpr:
		return ENode{Op: opSum, Sym: x.Key.Name + "," + x.Val.Name}
	case *sdql.LetExpr:
		return ENode{Op: opLet, Sym: x.Names[0].Name}
	case *sdql.ZeroExpr, *sdql.OneHotExpr:
		g := &EGraph{types: map[string]sdql.Type{}}
		return g.nodeOf(p)
	}
	return (&EGraph{types: map[string]sdql.Type{}}).nodeOf(p)
}

// eMatch is a matchEnv for an e-graph match.
type eMatch struct {
	g *EGraph
	s eSubst
}

func (m *eMatch) class(v string) *EClass {
	id, ok := m.s.expr(v)
	if !ok {
		return nil
	}
	return m.g.classes[m.g.Find(id)]
}

func (m *eMatch) name(v string) (string, bool) {
	if n, ok := m.s.nameOf(v); ok {
		return n, true
	}
	if c := m.class(v); c != nil {
		for _, n := range c.Nodes {
			if n.Op == opIdent {
				return n.Sym, true
			}
		}
	}
	return "", false
}

func (m *eMatch) mayBeFree(name, v string) bool {
	if n, ok := m.s.nameOf(v); ok {
		return n == name
	}
	c := m.class(v)
	if c == nil || !c.fvOK {
		return true
	}
	return c.fv[name]
}

func (m *eMatch) typeOf(v string) sdql.Type {
	if c := m.class(v); c != nil {
		return c.typ
	}
	return nil
}

func (m *eMatch) constant(v string) (float64, bool) {
	if c := m.class(v); c != nil && c.konst != nil {
		return numLit(*c.konst)
	}
	return 0, false
}

func (m *eMatch) isIdent(v string) bool {
	_, ok := m.name(v)
	return ok && m.class(v) != nil
}

func (m *eMatch) dense(v string) bool {
	c := m.class(v)
	if c == nil {
		return false
	}
	for _, n := range c.Nodes {
		if n.Op == opIdent && m.g.dense[n.Sym] {
			return true
		}
	}
	return false
}

func (m *eMatch) trivial(v string) bool {
	c := m.class(v)
	if c == nil {
		return false
	}
	for _, n := range c.Nodes {
		switch n.Op {
		case opIdent, opInt, opReal, opBool, opZero:
			return true
		case opDict:
			if len(n.Kids) == 0 {
				return true
			}
		}
	}
	return false
}

func (m *eMatch) scaled(v string) bool {
	c := m.class(v)
	if c == nil {
		return false
	}
	isVar := func(id ClassID) bool {
		for _, n := range m.g.classes[m.g.Find(id)].Nodes {
			if n.Op == opIdent {
				return true
			}
		}
		return false
	}
	isLit := func(id ClassID) bool { return m.g.classes[m.g.Find(id)].konst != nil }
	for _, n := range c.Nodes {
		if n.Op == opBinary && n.Sym == sdql.MUL.String() && len(n.Kids) == 2 {
			a, b := n.Kids[0], n.Kids[1]
			if isVar(a) && isLit(b) || isLit(a) && isVar(b) {
				return true
			}
		}
	}
	return false
}

func (m *eMatch) mayHaveUnique(v string) bool {
	c := m.class(v)
	if c == nil {
		return true
	}
	seen := map[ClassID]bool{}
	var walk func(id ClassID) bool
	walk = func(id ClassID) bool {
		id = m.g.Find(id)
		if seen[id] {
			return false
		}
		seen[id] = true
		for _, n := range m.g.classes[id].Nodes {
			if n.Op == opUnique {
				return true
			}
			for _, k := range n.Kids {
				if walk(k) {
					return true
				}
			}
		}
		return false
	}
	return walk(c.ID)
}

// instantiate adds r's right-hand side for match s and returns its class.
func (g *EGraph) instantiate(r *Rule, s eSubst, rootType sdql.Type) (ClassID, bool) {
	ok := true
	m := &eMatch{g, s}
	bname := func(b string) string {
		if !isPatVar(b) {
			return b
		}
		n, has := m.name(b[1:])
		if !has {
			ok = false
		}
		return n
	}
	var inst func(e sdql.Expr) ClassID
	inst = func(e sdql.Expr) ClassID {
		switch x := e.(type) {
		case *sdql.Ident:
			if strings.HasPrefix(x.Name, "__zt_") {
				t := rootType
				if v := strings.TrimPrefix(x.Name, "__zt_"); v != "" {
					t = m.typeOf(v)
				}
				if t == nil {
					ok = false
					return 0
				}
				return g.addExpr(zeroOf(t), nil)
			}
			if isPatVar(x.Name) {
				v := x.Name[1:]
				if id, has := s.expr(v); has {
					return id
				}
				if n, has := s.nameOf(v); has {
					return g.add(ENode{Op: opIdent, Sym: n}, nil)
				}
				ok = false
				return 0
			}
		case *sdql.LookupExpr:
			if id, isID := x.X.(*sdql.Ident); isID && id.Name == "fold" {
				tree := sdql.Transform(x.Key, func(y sdql.Expr) sdql.Expr {
					if yi, isY := y.(*sdql.Ident); isY && isPatVar(yi.Name) {
						if c := m.class(yi.Name[1:]); c != nil && c.konst != nil {
							return *c.konst
						}
						ok = false
					}
					return y
				})
				if !ok {
					return 0
				}
				v, good := foldConst(tree, rootType)
				if !good {
					ok = false
					return 0
				}
				return g.addExpr(v, nil)
			}
		case *sdql.SumExpr:
			n := ENode{Op: opSum, Sym: bname(x.Key.Name) + "," + bname(x.Val.Name)}
			n.Kids = []ClassID{inst(x.Src), inst(x.Body)}
			if !ok {
				return 0
			}
			return g.add(n, nil)
		case *sdql.LetExpr:
			n := ENode{Op: opLet, Sym: bname(x.Names[0].Name)}
			n.Kids = []ClassID{inst(x.Values[0]), inst(x.Body)}
			if !ok {
				return 0
			}
			return g.add(n, nil)
		}
		n := g.nodeOf(e)
		for _, k := range sdql.Children(e) {
			n.Kids = append(n.Kids, inst(k))
			if !ok {
				return 0
			}
		}
		return g.add(n, nil)
	}
	id := inst(r.RHS)
	return id, ok
}
