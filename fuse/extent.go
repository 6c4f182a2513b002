package fuse

import (
	"strconv"

	"github.com/nablasd/nablasd/sdql"
)

// extentFacts is what the inextent condition knows of keys: the bounds of
// the names the program being rewritten binds (sdql.AnalyzeExtents over
// it, recomputed whenever the whole program is re-typed) and the extents
// of the inputs' modes (Config.Dims).
//
// A name keeps its bound while rules rewrite around it: a rule preserves
// what a binding ranges over (a sum over A + B split into sums over A and
// over B binds k to fewer keys, never more), and a name a rule invents is
// unknown until the next analysis, so the condition fails for it.
type extentFacts struct {
	dims  map[string][]int
	names map[string][]sdql.Bound
}

// analyzeExtents returns the facts for prog, or nil when nothing could be
// known (no dense input to look up, or a program that does not check).
func analyzeExtents(prog sdql.Expr, inputs map[string]sdql.Type, dims map[string][]int, dense map[string]bool) *extentFacts {
	if len(dense) == 0 {
		return nil
	}
	x, err := sdql.AnalyzeExtents(prog, inputs, dims)
	if err != nil {
		return nil
	}
	return &extentFacts{dims: dims, names: x.Names}
}

// bound bounds an int key expression: a literal, a bound name, and sums
// and differences of those.
func (f *extentFacts) bound(e sdql.Expr) sdql.Bound {
	switch e := e.(type) {
	case *sdql.IntLit:
		return sdql.Bound{Known: true, Lo: e.Value, Hi: e.Value}
	case *sdql.Ident:
		if b, ok := f.names[e.Name]; ok && len(b) > 0 {
			return b[0]
		}
	case *sdql.UniqueExpr:
		return f.bound(e.X)
	case *sdql.BinaryExpr:
		x, y := f.bound(e.X), f.bound(e.Y)
		if !x.Known || !y.Known {
			break
		}
		switch e.Op {
		case sdql.ADD:
			return sdql.Bound{Known: true, Lo: x.Lo + y.Lo, Hi: x.Hi + y.Hi}
		case sdql.SUB:
			return sdql.Bound{Known: true, Lo: x.Lo - y.Hi, Hi: x.Hi - y.Lo}
		}
	}
	return sdql.Bound{}
}

// within reports whether every value of a key with bound b is a key of the
// outermost mode of the dense input d: a key of d itself, or an index in
// 0..dims[d][0]-1 (a dense input stores every index of its extent).
func (f *extentFacts) within(b sdql.Bound, d string) bool {
	if f == nil || b.Empty {
		return false // (an empty bound: a key never computed; no need to rewrite)
	}
	if b.IsKeysOf(d, 0) {
		return true
	}
	ds := f.dims[d]
	return len(ds) > 0 && b.Within(ds[0])
}

// inExtent on trees.
func (m *treeMatch) inExtent(x, d string) bool {
	id, ok := m.exprs[d].(*sdql.Ident)
	k, hasK := m.exprs[x]
	if !ok || !hasK || !m.c.Dense[id.Name] {
		return false
	}
	f := m.c.facts()
	return f.within(f.bound(k), id.Name)
}

// inExtent in the e-graph: some node of x's class, a name or a literal,
// proves the key within d's extent (the nodes of a class are equal, so
// one proof is enough).
func (m *eMatch) inExtent(x, d string) bool {
	f := m.g.extents
	dc, xc := m.class(d), m.class(x)
	if f == nil || dc == nil || xc == nil {
		return false
	}
	name := ""
	for _, n := range dc.Nodes {
		if n.Op == opIdent && m.g.dense[n.Sym] {
			name = n.Sym
		}
	}
	if name == "" {
		return false
	}
	for _, n := range xc.Nodes {
		var b sdql.Bound
		switch n.Op {
		case opIdent:
			if bs, ok := f.names[n.Sym]; ok && len(bs) > 0 {
				b = bs[0]
			}
		case opInt:
			v, err := strconv.Atoi(n.Sym)
			if err != nil {
				continue
			}
			b = sdql.Bound{Known: true, Lo: v, Hi: v}
		}
		if f.within(b, name) {
			return true
		}
	}
	return false
}
