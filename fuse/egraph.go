package fuse

import (
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// ClassID names an e-class.
type ClassID int32

// opKind is the constructor of an e-node.
type opKind uint8

const (
	opIdent opKind = iota
	opInt
	opReal
	opBool
	opSum    // Sym: "key,val"; kids: src, body
	opDict   // kids: k1, v1, k2, v2, ...
	opLookup // kids: x, key
	opSlice  // kids: x, lo, hi
	opRange  // kids: lo, hi
	opLet    // Sym: name; kids: value, body
	opIf     // Sym: "else" when there is an else branch
	opUnary  // Sym: operator
	opBinary // Sym: operator
	opCall   // Sym: operation
	opUnique
	opZero   // Sym: type
	opOneHot // Sym: type
)

// ENode is a node whose children are e-classes.
type ENode struct {
	Op   opKind
	Sym  string
	Kids []ClassID
}

func (n ENode) key() string {
	var b strings.Builder
	b.WriteByte(byte('A' + n.Op))
	b.WriteString(n.Sym)
	for _, k := range n.Kids {
		b.WriteByte('|')
		b.WriteString(strconv.Itoa(int(k)))
	}
	return b.String()
}

// EClass is a set of equivalent e-nodes with its analysis data: the free
// variables of a witness term (a name not in fv is certainly not free in
// any of the class's terms' values), the type, a constant value and the
// estimated shape.
type EClass struct {
	ID    ClassID
	Nodes []ENode
	fv    map[string]bool
	fvOK  bool // fv is known (a finite term is known)
	typ   sdql.Type
	konst *sdql.Expr
	shape shape
	hasSh bool
}

// EGraph is an e-graph in the design of egg: hash-consed e-nodes, a
// union-find over e-classes, congruence restored by a deferred rebuild, and
// an analysis (free variables, types, constants, shapes).
type EGraph struct {
	parent  []ClassID
	classes map[ClassID]*EClass
	memo    map[string]ClassID
	dirty   bool

	types     map[string]sdql.Type // zero/onehot type strings
	nameTypes map[string]sdql.Type // types of inputs and binders (names are unique)
	dense     map[string]bool
	extents   *extentFacts // bounds of the initial program's names (inextent)
	cost      *costModel
	nodes     int
	stopMatch bool // set to cut an e-matching search short
}

func newEGraph(nameTypes map[string]sdql.Type, dense map[string]bool, cm *costModel) *EGraph {
	return &EGraph{classes: map[ClassID]*EClass{}, memo: map[string]ClassID{}, types: map[string]sdql.Type{},
		nameTypes: nameTypes, dense: dense, cost: cm}
}

// Find returns the canonical id of a class.
func (g *EGraph) Find(a ClassID) ClassID {
	for g.parent[a] != a {
		g.parent[a] = g.parent[g.parent[a]]
		a = g.parent[a]
	}
	return a
}

func (g *EGraph) canon(n ENode) ENode {
	kids := make([]ClassID, len(n.Kids))
	for i, k := range n.Kids {
		kids[i] = g.Find(k)
	}
	return ENode{Op: n.Op, Sym: n.Sym, Kids: kids}
}

// add adds a node (hash-consed) and returns its class.
func (g *EGraph) add(n ENode, typ sdql.Type) ClassID {
	n = g.canon(n)
	k := n.key()
	if id, ok := g.memo[k]; ok {
		return g.Find(id)
	}
	id := ClassID(len(g.parent))
	g.parent = append(g.parent, id)
	c := &EClass{ID: id, Nodes: []ENode{n}}
	if typ == nil {
		typ = g.nodeType(n)
	}
	c.typ = typ
	g.classes[id] = c
	g.memo[k] = id
	g.nodes++
	g.analyzeNew(c, n)
	return id
}

// union merges two classes; it reports whether they were different.
func (g *EGraph) union(a, b ClassID) bool {
	a, b = g.Find(a), g.Find(b)
	if a == b {
		return false
	}
	if len(g.classes[a].Nodes) < len(g.classes[b].Nodes) {
		a, b = b, a
	}
	ca, cb := g.classes[a], g.classes[b]
	g.parent[b] = a
	ca.Nodes = append(ca.Nodes, cb.Nodes...)
	if ca.typ == nil {
		ca.typ = cb.typ
	}
	if ca.konst == nil {
		ca.konst = cb.konst
	}
	if !ca.hasSh {
		ca.shape, ca.hasSh = cb.shape, cb.hasSh
	}
	if cb.fvOK && (!ca.fvOK || len(cb.fv) < len(ca.fv)) {
		ca.fv, ca.fvOK = cb.fv, true
	}
	delete(g.classes, b)
	g.dirty = true
	return true
}

// sameType reports whether classes a and b may be one: their types are
// equal, or one is unknown. A rule's instance whose type differs from the
// term it matched is no equality of the typed language: 1 * $e => $e
// matched at 1.0 * n, n an int, would make the real product an int and
// n's class (every literal 0 of the program, keys included) a real, and
// the extracted program would not type-check.
func (g *EGraph) sameType(a, b ClassID) bool {
	return typesAgree(g.classes[g.Find(a)].typ, g.classes[g.Find(b)].typ)
}

// typesAgree reports whether a term of type a may be replaced by one of
// type b: the types are equal, or one is unknown. Saturation (sameType)
// and the strategies (Apply) both refuse a rule instance that fails it.
func typesAgree(a, b sdql.Type) bool {
	return a == nil || b == nil || sdql.TypesEqual(a, b)
}

// rebuild restores the congruence invariant: nodes are canonical and
// congruent nodes share a class. It then recomputes the free variables.
func (g *EGraph) rebuild() {
	for {
		changed := false
		memo := make(map[string]ClassID, len(g.memo))
		ids := g.classIDs()
		for _, id := range ids {
			c := g.classes[g.Find(id)]
			if c == nil || c.ID != id {
				continue
			}
			seen := map[string]bool{}
			nodes := c.Nodes[:0]
			for _, n := range c.Nodes {
				n = g.canon(n)
				k := n.key()
				if seen[k] {
					continue
				}
				seen[k] = true
				nodes = append(nodes, n)
			}
			c.Nodes = nodes
		}
		for _, id := range ids {
			c := g.classes[id]
			if c == nil {
				continue
			}
			for _, n := range c.Nodes {
				k := g.canon(n).key()
				if other, ok := memo[k]; ok && g.Find(other) != g.Find(id) {
					g.union(other, id)
					changed = true
				} else {
					memo[k] = g.Find(id)
				}
			}
		}
		g.memo = memo
		if !changed {
			break
		}
	}
	g.dirty = false
	g.nodes = 0
	for _, c := range g.classes {
		g.nodes += len(c.Nodes)
	}
	g.computeFV()
}

func (g *EGraph) classIDs() []ClassID {
	ids := make([]ClassID, 0, len(g.classes))
	for id := range g.classes {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

// nodeFV returns the free variables of a node given its children's, and
// whether they are known.
func (g *EGraph) nodeFV(n ENode) (map[string]bool, bool) {
	out := map[string]bool{}
	if n.Op == opIdent {
		out[n.Sym] = true
		return out, true
	}
	for i, k := range n.Kids {
		c := g.classes[g.Find(k)]
		if !c.fvOK {
			return nil, false
		}
		bound := boundIn(n, i)
		for v := range c.fv {
			if !bound[v] {
				out[v] = true
			}
		}
	}
	return out, true
}

// boundIn returns the names n binds in its i-th child.
func boundIn(n ENode, i int) map[string]bool {
	switch n.Op {
	case opSum:
		if i == 1 {
			k, v, _ := strings.Cut(n.Sym, ",")
			return map[string]bool{k: true, v: true}
		}
	case opLet:
		if i == 1 {
			return map[string]bool{n.Sym: true}
		}
	}
	return nil
}

// computeFV computes, for every class, the free variables of a witness
// term: the smallest over its nodes (the first found among equals). A name missing
// from a class's fv is free in none of the values of its terms, because
// the witness term does not mention it and all terms are equal.
func (g *EGraph) computeFV() {
	ids := g.classIDs()
	for iter := 0; iter < 100; iter++ {
		changed := false
		for _, id := range ids {
			c := g.classes[id]
			if c.fvOK && len(c.fv) == 0 {
				continue
			}
			for _, n := range c.Nodes {
				fv, ok := g.nodeFV(n)
				if ok && (!c.fvOK || len(fv) < len(c.fv)) {
					c.fv, c.fvOK = fv, true
					changed = true
				}
			}
		}
		if !changed {
			return
		}
	}
}

// analyzeNew fills the analysis of a class created for node n.
func (g *EGraph) analyzeNew(c *EClass, n ENode) {
	if fv, ok := g.nodeFV(n); ok {
		c.fv, c.fvOK = fv, true
	}
	switch n.Op {
	case opInt, opReal, opBool:
		e := g.leafExpr(n)
		c.konst = &e
	}
	// shape and cost-model info from the children
	c.shape, c.hasSh = g.nodeInfo(n, nil).shape, true
}

// nodeInfo computes the cost-model info of n from its children's best
// infos (best may be nil: shapes only).
func (g *EGraph) nodeInfo(n ENode, best map[ClassID]nodeInfo) nodeInfo {
	kids := make([]nodeInfo, len(n.Kids))
	for i, k := range n.Kids {
		k = g.Find(k)
		if best != nil {
			kids[i] = best[k]
		} else {
			c := g.classes[k]
			kids[i] = nodeInfo{shape: c.shape, typ: c.typ, value: math.NaN()}
			if c.konst != nil {
				if v, ok := numLit(*c.konst); ok {
					kids[i].value = v
				}
			}
			for _, kn := range c.Nodes {
				if kn.Op == opIdent {
					if st, ok := g.cost.stats[kn.Sym]; ok && len(st) == 1 && isScalarType(c.typ) {
						kids[i].value = st[0]
					}
				}
				if kn.Op == opLookup {
					x := g.classes[g.Find(kn.Kids[0])]
					if isArrayType(x.typ) {
						kids[i].arrayOf = x.shape.size()
					}
				}
			}
		}
	}
	if n.Op == opSum {
		k, v, _ := strings.Cut(n.Sym, ",")
		g.cost.shapes[k] = nil
		if _, ok := g.cost.shapes[v]; !ok {
			g.cost.shapes[v] = kids[0].shape.inner()
		}
	}
	if n.Op == opLet {
		if _, ok := g.cost.shapes[n.Sym]; !ok {
			g.cost.shapes[n.Sym] = kids[0].shape
		}
	}
	e := g.skeleton(n)
	var typ sdql.Type
	if id, ok := g.memo[n.key()]; ok {
		typ = g.classes[g.Find(id)].typ
	}
	if typ == nil {
		typ = g.nodeType(n)
	}
	return costOf(e, typ, kids, g.cost)
}

// skeleton returns an sdql node of n's kind with placeholder children, for
// the cost model.
func (g *EGraph) skeleton(n ENode) sdql.Expr {
	kids := make([]sdql.Expr, len(n.Kids))
	for i := range kids {
		kids[i] = &sdql.Ident{Name: "_"}
	}
	return g.build(n, kids)
}

func (g *EGraph) leafExpr(n ENode) sdql.Expr { return g.build(n, nil) }

// build makes the sdql node for n with the given children.
func (g *EGraph) build(n ENode, kids []sdql.Expr) sdql.Expr {
	switch n.Op {
	case opIdent:
		return &sdql.Ident{Name: n.Sym}
	case opInt:
		v, _ := strconv.Atoi(n.Sym)
		return &sdql.IntLit{Value: v}
	case opReal:
		v, _ := strconv.ParseFloat(n.Sym, 64)
		return &sdql.RealLit{Value: v}
	case opBool:
		return &sdql.BoolLit{Value: n.Sym == "true"}
	case opSum:
		k, v, _ := strings.Cut(n.Sym, ",")
		return &sdql.SumExpr{Key: sdql.Binder{Name: k}, Val: sdql.Binder{Name: v}, Src: kids[0], Body: kids[1]}
	case opDict:
		d := &sdql.DictExpr{}
		for i := 0; i+1 < len(kids); i += 2 {
			d.Entries = append(d.Entries, sdql.Entry{Key: kids[i], Val: kids[i+1]})
		}
		return d
	case opLookup:
		return &sdql.LookupExpr{X: kids[0], Key: kids[1]}
	case opSlice:
		return &sdql.SliceExpr{X: kids[0], Lo: kids[1], Hi: kids[2]}
	case opRange:
		return &sdql.RangeExpr{Lo: kids[0], Hi: kids[1]}
	case opLet:
		return &sdql.LetExpr{Names: []sdql.Binder{{Name: n.Sym}}, Values: []sdql.Expr{kids[0]}, Body: kids[1]}
	case opIf:
		f := &sdql.IfExpr{Cond: kids[0], Then: kids[1]}
		if len(kids) > 2 {
			f.Else = kids[2]
		}
		return f
	case opUnary:
		return &sdql.UnaryExpr{Op: kindOf(n.Sym), X: kids[0]}
	case opBinary:
		return &sdql.BinaryExpr{Op: kindOf(n.Sym), X: kids[0], Y: kids[1]}
	case opCall:
		c := &sdql.CallExpr{Op: n.Sym, X: kids[0]}
		if len(kids) == 2 {
			c.Y = kids[1]
		}
		return c
	case opUnique:
		return &sdql.UniqueExpr{X: kids[0]}
	case opZero:
		return &sdql.ZeroExpr{T: g.types[n.Sym]}
	case opOneHot:
		return &sdql.OneHotExpr{T: g.types[n.Sym], X: kids[0]}
	}
	panic("internal error: build of unknown e-node")
}

var kindByName = map[string]sdql.Kind{}

func init() {
	for _, k := range []sdql.Kind{sdql.ADD, sdql.SUB, sdql.MUL, sdql.QUO, sdql.EQ, sdql.NEQ, sdql.LT, sdql.LEQ, sdql.GT, sdql.GEQ, sdql.LAND, sdql.LOR, sdql.NOT} {
		kindByName[k.String()] = k
	}
}

func kindOf(s string) sdql.Kind { return kindByName[s] }

// nodeOf splits an sdql node into an e-node skeleton (children filled by
// the caller, in sdql.Children order).
func (g *EGraph) nodeOf(e sdql.Expr) ENode {
	switch x := e.(type) {
	case *sdql.Ident:
		return ENode{Op: opIdent, Sym: x.Name}
	case *sdql.IntLit:
		return ENode{Op: opInt, Sym: strconv.Itoa(x.Value)}
	case *sdql.RealLit:
		return ENode{Op: opReal, Sym: strconv.FormatFloat(x.Value, 'g', -1, 64)}
	case *sdql.BoolLit:
		return ENode{Op: opBool, Sym: strconv.FormatBool(x.Value)}
	case *sdql.SumExpr:
		return ENode{Op: opSum, Sym: x.Key.Name + "," + x.Val.Name}
	case *sdql.DictExpr:
		return ENode{Op: opDict}
	case *sdql.LookupExpr:
		return ENode{Op: opLookup}
	case *sdql.SliceExpr:
		return ENode{Op: opSlice}
	case *sdql.RangeExpr:
		return ENode{Op: opRange}
	case *sdql.LetExpr:
		return ENode{Op: opLet, Sym: x.Names[0].Name}
	case *sdql.IfExpr:
		if x.Else != nil {
			return ENode{Op: opIf, Sym: "else"}
		}
		return ENode{Op: opIf}
	case *sdql.UnaryExpr:
		return ENode{Op: opUnary, Sym: x.Op.String()}
	case *sdql.BinaryExpr:
		return ENode{Op: opBinary, Sym: x.Op.String()}
	case *sdql.CallExpr:
		return ENode{Op: opCall, Sym: x.Op}
	case *sdql.UniqueExpr:
		return ENode{Op: opUnique}
	case *sdql.ZeroExpr:
		s := x.T.String()
		g.types[s] = x.T
		return ENode{Op: opZero, Sym: s}
	case *sdql.OneHotExpr:
		s := x.T.String()
		g.types[s] = x.T
		return ENode{Op: opOneHot, Sym: s}
	}
	panic("internal error: e-node of unknown expression")
}

// addExpr adds a tree (tupled lets must have been split); types gives
// known types of its nodes.
func (g *EGraph) addExpr(e sdql.Expr, types map[sdql.Expr]sdql.Type) ClassID {
	n := g.nodeOf(e)
	for _, k := range sdql.Children(e) {
		n.Kids = append(n.Kids, g.addExpr(k, types))
	}
	return g.add(n, types[e])
}

// nodeType infers the type of a new node from its children's types.
func (g *EGraph) nodeType(n ENode) sdql.Type {
	kt := func(i int) sdql.Type { return g.classes[g.Find(n.Kids[i])].typ }
	switch n.Op {
	case opIdent:
		return g.nameTypes[n.Sym]
	case opInt:
		return sdql.IntType
	case opReal:
		return sdql.RealType
	case opBool:
		return sdql.BoolType
	case opSum:
		t := kt(1)
		if t == sdql.DenseIntType {
			return sdql.IntType
		}
		return t
	case opDict:
		if len(n.Kids) == 0 || kt(1) == nil {
			return nil
		}
		return &sdql.DictType{Key: sdql.IntType, Val: kt(1)}
	case opLookup:
		if d, ok := kt(0).(*sdql.DictType); ok {
			return d.Val
		}
	case opSlice:
		return kt(0)
	case opRange:
		return &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.IntType}
	case opLet:
		return kt(1)
	case opIf:
		t := kt(1)
		if len(n.Kids) > 2 && kt(2) == sdql.RealType && isScalarType(t) {
			return sdql.RealType
		}
		return t
	case opUnary:
		if n.Sym == "not" {
			return sdql.BoolType
		}
		return kt(0)
	case opBinary:
		a, b := kt(0), kt(1)
		switch kindOf(n.Sym) {
		case sdql.ADD, sdql.SUB:
			if a == sdql.RealType || b == sdql.RealType {
				return sdql.RealType
			}
			if a == nil {
				return b
			}
			return a
		case sdql.MUL:
			if a == nil || b == nil {
				return nil
			}
			if _, ok := a.(*sdql.DictType); ok {
				return sdql.Outer(a, b)
			}
			if _, ok := b.(*sdql.DictType); ok {
				return b
			}
			if a == sdql.RealType || b == sdql.RealType {
				return sdql.RealType
			}
			return a
		case sdql.QUO:
			if isScalarType(a) {
				return sdql.RealType
			}
			return a
		}
		return sdql.BoolType
	case opCall:
		return sdql.RealType
	case opUnique:
		return sdql.IntType
	case opZero:
		return g.types[n.Sym]
	case opOneHot:
		t := g.types[n.Sym]
		return sdql.Outer(t, t)
	}
	return nil
}
