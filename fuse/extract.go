package fuse

import (
	"math"

	"github.com/nablasd/nablasd/sdql"
)

// extract returns the cheapest term of class root under the cost model,
// choosing in every class only nodes whose free variables are those of the
// class's witness (so that a term moved out of a binder never mentions it).
func (g *EGraph) extract(root ClassID) (sdql.Expr, float64) {
	best := map[ClassID]nodeInfo{}
	size := map[ClassID]int{}
	choice := map[ClassID]ENode{}
	ids := g.classIDs()
	better := func(c, oc float64, s, os int) bool {
		if c < oc*(1-1e-9)-1e-9 {
			return true
		}
		return math.Abs(c-oc) <= 1e-9*math.Max(1, oc) && s < os
	}
	for iter := 0; iter < 1000; iter++ {
		changed := false
		for _, id := range ids {
			c := g.classes[id]
			for _, n := range c.Nodes {
				ok := true
				sz := 1
				for _, k := range n.Kids {
					k = g.Find(k)
					if _, has := best[k]; !has {
						ok = false
						break
					}
					sz += size[k]
				}
				if !ok || !g.eligible(c, n) {
					continue
				}
				info := g.nodeInfo(n, best)
				old, has := best[id]
				if !has || better(info.cost, old.cost, sz, size[id]) {
					best[id], size[id], choice[id] = info, sz, n
					changed = true
				}
			}
		}
		if !changed {
			break
		}
	}
	root = g.Find(root)
	if _, ok := best[root]; !ok {
		return nil, math.Inf(1)
	}
	var build func(id ClassID, depth int) sdql.Expr
	build = func(id ClassID, depth int) sdql.Expr {
		n := choice[g.Find(id)]
		kids := make([]sdql.Expr, len(n.Kids))
		for i, k := range n.Kids {
			if depth > 10000 {
				panic("internal error: cyclic extraction")
			}
			kids[i] = build(k, depth+1)
		}
		return g.build(n, kids)
	}
	return build(root, 0), best[root].cost
}

// eligible reports whether n's free variables are within its class's.
func (g *EGraph) eligible(c *EClass, n ENode) bool {
	fv, ok := g.nodeFV(n)
	if !ok || !c.fvOK {
		return false
	}
	for v := range fv {
		if !c.fv[v] {
			return false
		}
	}
	return true
}
