package exec

import (
	"github.com/nablasd/nablasd/lower"
)

// This file compiles what a batch of one row's positions (vctx.one: every
// lane from one lane of the level above, a stencil's row) reads once for
// all its lanes.

// rowUniform compiles an int expression that reads no variable of level
// l or deeper, for batches of level l whose lanes all come from one lane
// above (vctx.one): its value in every lane, read at the first lane from
// the columns of the levels above. It returns nil for an expression that
// reads a variable of level l or deeper, or one it does not handle (only
// constants, variables, +, - and ×).
func (rg *region) rowUniform(e lower.Expr, l int) func(fr *frame, cx *vctx) int {
	if !rg.varies(e) {
		if e.Kind() != lower.Int || lower.ReadsMemory(e) {
			return nil
		}
		f := rg.c.int(e)
		return func(fr *frame, _ *vctx) int { return f(fr) }
	}
	switch x := e.(type) {
	case *lower.Ref:
		d, ok := rg.level[x.V]
		if !ok || d >= l || x.V.Kind != lower.Int {
			return nil
		}
		rg.colReads[x.V]++
		rg.useAnc(d, l)
		slot := rg.icol[x.V]
		return func(fr *frame, cx *vctx) int { return fr.regions[rg.id].i[slot][cx.anc[d][0]] }
	case *lower.Binary:
		if x.Op != lower.Add && x.Op != lower.Sub && x.Op != lower.Mul {
			return nil
		}
		a := rg.rowUniform(x.X, l)
		if a == nil {
			return nil
		}
		b := rg.rowUniform(x.Y, l)
		if b == nil {
			return nil
		}
		switch x.Op {
		case lower.Add:
			return func(fr *frame, cx *vctx) int { return a(fr, cx) + b(fr, cx) }
		case lower.Sub:
			return func(fr *frame, cx *vctx) int { return a(fr, cx) - b(fr, cx) }
		}
		return func(fr *frame, cx *vctx) int { return a(fr, cx) * b(fr, cx) }
	}
	return nil
}

// fillLoopCol fills the column of v, the loop variable of cx's level,
// for a batch of consecutive positions (cx.base), which forStmt leaves
// unfilled when every reader it knew of slices (lazy): a reader that
// computes from the column after all (a batch of several rows, a storage
// not dense) calls it first.
func (rg *region) fillLoopCol(v *lower.Var, fr *frame, cx *vctx) {
	if cx.base < 0 {
		return
	}
	col := fr.regions[rg.id].i[rg.icol[v]][:cx.n]
	for k := range col {
		col[k] = cx.base + k
	}
}

// rowLoad compiles the load x at the loop variable v of level l plus an
// offset that reads only the levels above (x(c + j + 1), c := m·i, in a
// loop over j below one over i: lower.OffsetOf, through the nest's int
// lets) for batches of level l: over consecutive positions of one row
// (vctx.base, vctx.one) a slice of the array at the row's offset, else a
// gather at the index computed from v's column and the columns above (not
// from the lets', which are then computed only for their other readers).
// It returns nil for a load of another index, or checked (chk).
func rowLoad[T elem](rg *region, ty typed[T], x *lower.Load, l int, chk bool, buf int) func(*frame, *vctx) []T {
	lv := rg.loopVar[l]
	if lv == nil || chk {
		return nil
	}
	index := rg.intLets(x.Index)
	off, ok := lower.OffsetOf(index, lv)
	if !ok {
		return nil
	}
	at := rg.rowUniform(off, l)
	if at == nil {
		return nil
	}
	reads := rg.colReads[lv]
	_, ci := rg.int(index, l, false)
	rg.colReads[lv] = reads // filled by fillLoopCol where ci runs
	a := x.A.ID
	return func(fr *frame, cx *vctx) []T {
		arr := ty.arrays(fr)[a]
		if cx.base >= 0 && cx.one >= 0 {
			o := at(fr, cx) + cx.base
			return arr[o : o+cx.n]
		}
		rg.fillLoopCol(lv, fr, cx)
		idx := ci(fr, cx)
		out := ty.buf(fr, buf, len(idx))
		gather(out, idx, arr)
		return out
	}
}
