package exec

import (
	"github.com/nablasd/nablasd/lower"
)

// This file holds the columnar executor's regions: a loop nest compiled
// to run over batches of lanes, its per-frame buffers and the columns of
// its variables.

// vstmt runs a statement over a batch of lanes.
type vstmt func(fr *frame, cx *vctx)

// Column-producing expressions: uniform ones are scalar closures (the
// same in every lane), the others write the lanes' values into a buffer
// of the frame and return it.
type (
	fcol func(fr *frame, cx *vctx) []float64
	icol func(fr *frame, cx *vctx) []int
	bcol func(fr *frame, cx *vctx) []bool
)

// compileNest compiles a columnar loop nest rooted at s (a For or a
// ForLevel, eligibleNest): the nest runs below a level 0 of one lane, the
// scalar code around it, so that s is an inner loop like any other (its
// iterations flattened into batches, or a fused loop).
func (c *compiler) compileNest(s lower.Stmt) stmt {
	id := len(c.regions)
	rg := &region{c: c, id: id, level: map[*lower.Var]int{}, icol: map[*lower.Var]int{}, fcol: map[*lower.Var]int{},
		loopVar: map[int]*lower.Var{}, colReads: map[*lower.Var]int{}}
	c.regions = append(c.regions, rg)
	rg.spare = rg.newI()
	rg.assigned = map[*lower.Var]bool{}
	rg.assigns = map[*lower.Var]int{}
	lower.WalkStmts(s, func(x lower.Stmt) {
		if a, ok := x.(*lower.Assign); ok {
			rg.assigned[a.V] = true
			rg.assigns[a.V]++
		}
	})
	body := rg.stmt(s, 0)
	for _, f := range rg.compiled {
		f()
	}
	return func(fr *frame) {
		cb := fr.region(id, rg)
		cx := &cb.ctx[0]
		cx.n, cx.base, cx.one = 1, -1, -1
		body(fr, cx)
	}
}

// regionBufs are a frame's buffers for one columnar nest.
type regionBufs struct {
	colbufs
	ctx []vctx // one batch per level
	// keep[l] are the levels d < l-1 whose lane maps a batch of level l
	// computes (the map to l-1 is its parents, always there): those read
	// at level l or below (region.ancUse)
	keep [][]int
}

// region returns the frame's buffers of region id, allocating them on
// first use.
func (fr *frame) region(id int, rg *region) *regionBufs {
	for len(fr.regions) <= id {
		fr.regions = append(fr.regions, nil)
	}
	cb := fr.regions[id]
	if cb == nil {
		cb = &regionBufs{}
		cb.i = make([][]int, rg.nibuf)
		for k := range cb.i {
			cb.i[k] = make([]int, batch)
		}
		cb.f = make([][]float64, rg.nfbuf)
		for k := range cb.f {
			cb.f[k] = make([]float64, batch)
		}
		cb.b = make([][]bool, rg.nbbuf)
		for k := range cb.b {
			cb.b[k] = make([]bool, batch)
		}
		cb.u = make([][]int32, rg.nubuf)
		for k := range cb.u {
			cb.u[k] = make([]int32, batch)
		}
		cb.ctx = make([]vctx, rg.maxLevel+1)
		cb.keep = make([][]int, rg.maxLevel+1)
		for l := range cb.keep {
			for d := 0; d+1 < l && d < len(rg.ancUse); d++ {
				if rg.ancUse[d] >= l {
					cb.keep[l] = append(cb.keep[l], d)
				}
			}
		}
		for l := range cb.ctx {
			cb.ctx[l].level = l
			cb.ctx[l].anc = make([][]int32, l+1)
			for d := 0; d < l; d++ {
				cb.ctx[l].anc[d] = make([]int32, batch)
			}
		}
		fr.regions[id] = cb
	}
	return cb
}

// child prepares the batch of level l+1 below cx: its lane maps to every
// level above, from up (the parent lane of each of its n lanes).
func (cb *regionBufs) child(cx *vctx, up []int32, n int) *vctx {
	copy(cb.parents(cx)[:n], up[:n])
	return cb.childOf(cx, n)
}

// parents is where the batch below cx keeps its lanes' parents: a
// statement that finds them can write them there and call childOf.
func (cb *regionBufs) parents(cx *vctx) []int32 { return cb.ctx[cx.level+1].anc[cx.level] }

// childOf is child, the n parents already in parents(cx).
func (cb *regionBufs) childOf(cx *vctx, n int) *vctx {
	ch := &cb.ctx[cx.level+1]
	ch.n, ch.base, ch.one = n, -1, -1
	up := ch.anc[cx.level]
	for _, d := range cb.keep[cx.level+1] {
		src, dst := cx.anc[d], ch.anc[d][:n]
		for k := range dst {
			dst[k] = src[up[k]]
		}
	}
	return ch
}

func (rg *region) note(l int) {
	if l > rg.maxLevel {
		rg.maxLevel = l
	}
}

// inRegion reports whether the expression reads a variable of the nest.
func (rg *region) varies(e lower.Expr) bool {
	varies := false
	lower.WalkExpr(e, func(x lower.Expr) {
		if r, ok := x.(*lower.Ref); ok {
			if _, in := rg.level[r.V]; in {
				varies = true
			}
		}
	})
	return varies
}

func (rg *region) define(v *lower.Var, l int) {
	rg.level[v] = l
	rg.note(l)
	if v.Kind == lower.Real {
		rg.fcol[v] = rg.newF()
	} else {
		rg.icol[v] = rg.newI()
	}
}

func (rg *region) fbuf(fr *frame, slot, n int) []float64 { return fr.regions[rg.id].f[slot][:n] }
func (rg *region) ibuf(fr *frame, slot, n int) []int     { return fr.regions[rg.id].i[slot][:n] }
func (rg *region) bbuf(fr *frame, slot, n int) []bool    { return fr.regions[rg.id].b[slot][:n] }

// readF is the column of a real variable in a batch of level l: its own
// column at its level, or gathered from there through the lane map.
func (rg *region) readF(v *lower.Var, l int) fcol {
	return readCol(rg, rg.reals(), func(b *regionBufs) [][]float64 { return b.f }, rg.fcol[v], rg.level[v], l)
}

// readI is readF for an int variable.
func (rg *region) readI(v *lower.Var, l int) icol {
	rg.colReads[v]++
	return readCol(rg, rg.ints(), func(b *regionBufs) [][]int { return b.i }, rg.icol[v], rg.level[v], l)
}
