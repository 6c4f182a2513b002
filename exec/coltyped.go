package exec

import "github.com/nablasd/nablasd/lower"

// This file holds the column operations that reals and ints share, written
// once over the element type. float64 and int have different GC shapes,
// so Go stencils each function for each of them: the loops compile to the
// code the two hand-written copies had (a per-batch call of typed's
// functions is the only difference, not a per-lane one).

// elem is the element type of a real or int column.
type elem interface{ float64 | int }

// typed is what a column of T reads and writes: the frame's arrays of T,
// the region's buffers of T, and the compiler of T's expressions
// (region.real or region.int).
type typed[T elem] struct {
	arrays func(fr *frame) [][]T
	buf    func(fr *frame, slot, n int) []T
	newBuf func() int
	expr   func(e lower.Expr, l int, chk bool) (func(*frame) T, func(*frame, *vctx) []T)
}

// reals is typed for real columns.
func (rg *region) reals() typed[float64] {
	return typed[float64]{
		arrays: func(fr *frame) [][]float64 { return fr.fa },
		buf:    rg.fbuf,
		newBuf: rg.newF,
		expr: func(e lower.Expr, l int, chk bool) (func(*frame) float64, func(*frame, *vctx) []float64) {
			return rg.real(e, l, chk)
		},
	}
}

// ints is typed for int columns.
func (rg *region) ints() typed[int] {
	return typed[int]{
		arrays: func(fr *frame) [][]int { return fr.ia },
		buf:    rg.ibuf,
		newBuf: rg.newI,
		expr: func(e lower.Expr, l int, chk bool) (func(*frame) int, func(*frame, *vctx) []int) {
			return rg.int(e, l, chk)
		},
	}
}

// readCol is the column of a variable (in slot of its level d's buffers,
// bufs) in a batch of level l: its own column at its level, or gathered
// from there through the lane map.
func readCol[T elem](rg *region, ty typed[T], bufs func(*regionBufs) [][]T, slot, d, l int) func(*frame, *vctx) []T {
	if d == l {
		return func(fr *frame, cx *vctx) []T { return ty.buf(fr, slot, cx.n) }
	}
	rg.useAnc(d, l)
	out := ty.newBuf()
	return func(fr *frame, cx *vctx) []T {
		src := bufs(fr.regions[rg.id])[slot]
		dst := ty.buf(fr, out, cx.n)
		for k, a := range cx.anc[d][:cx.n] {
			dst[k] = src[a]
		}
		return dst
	}
}

// loadCol compiles the load x (an array of T at an int index) for
// batches of level l into buffer buf; chk reads 0 past the array's end
// (see region.real).
func loadCol[T elem](rg *region, ty typed[T], x *lower.Load, l int, chk bool, buf int) func(*frame, *vctx) []T {
	lv := rg.loopVar[l]
	reads := rg.colReads[lv]
	a := x.A.ID
	if d, ok := lower.Offset(rg.intLets(x.Index), lv); ok && !chk {
		// ci, for the batches whose positions are not consecutive, reads
		// the loop's column plus d, not the lets' columns (t := i + 1 is
		// then computed for nobody when every other reader reads it
		// through)
		_, ci := rg.int(offsetExpr(lv, d), l, chk)
		rg.colReads[lv] = reads // ci runs only where the loop's column is filled (forStmt)
		// at the level's own positions (plus d, lower.Offset, through the
		// nest's int lets: x(t), t := i + 1): a slice when they are
		// consecutive
		return func(fr *frame, cx *vctx) []T {
			if cx.base >= 0 {
				return ty.arrays(fr)[a][cx.base+d : cx.base+d+cx.n]
			}
			idx := ci(fr, cx)
			out := ty.buf(fr, buf, len(idx))
			gather(out, idx, ty.arrays(fr)[a])
			return out
		}
	}
	if f := rowLoad(rg, ty, x, l, chk, buf); f != nil {
		return f
	}
	_, ci := rg.int(x.Index, l, chk)
	if chk {
		return func(fr *frame, cx *vctx) []T {
			idx, arr := ci(fr, cx), ty.arrays(fr)[a]
			out := ty.buf(fr, buf, len(idx))
			for k, j := range idx {
				if uint(j) < uint(len(arr)) {
					out[k] = arr[j]
				} else {
					out[k] = 0
				}
			}
			return out
		}
	}
	return func(fr *frame, cx *vctx) []T {
		idx := ci(fr, cx)
		out := ty.buf(fr, buf, len(idx))
		gather(out, idx, ty.arrays(fr)[a])
		return out
	}
}

// gather sets out[k] = arr[idx[k]].
func gather[T elem](out []T, idx []int, arr []T) {
	for k, j := range idx {
		out[k] = arr[j]
	}
}

// negCol compiles -x for batches of level l into buffer buf.
func negCol[T elem](ty typed[T], x lower.Expr, l int, chk bool, buf int) func(*frame, *vctx) []T {
	_, c := ty.expr(x, l, chk)
	return func(fr *frame, cx *vctx) []T {
		src := c(fr, cx)
		out := ty.buf(fr, buf, len(src))
		for k, y := range src {
			out[k] = -y
		}
		return out
	}
}

// selectCol compiles select(x.Cond, x.Then, x.Else) for batches of
// level l into buffer buf. A condition the same in every lane evaluates
// only the branch every lane takes, so its loads need no check of their
// own; a column condition evaluates both branches for every lane, their
// loads checked.
func selectCol[T elem](rg *region, ty typed[T], x *lower.Select, l int, chk bool, buf int) func(*frame, *vctx) []T {
	ub, cb := rg.boolean(x.Cond, l, chk)
	if ub != nil {
		ua, ca := ty.expr(x.Then, l, chk)
		ue, ce := ty.expr(x.Else, l, chk)
		return func(fr *frame, cx *vctx) []T {
			if ub(fr) {
				return colOfT(fr, cx, ua, ca, ty, buf)
			}
			return colOfT(fr, cx, ue, ce, ty, buf)
		}
	}
	ua, ca := ty.expr(x.Then, l, true)
	ue, ce := ty.expr(x.Else, l, true)
	tb, eb := ty.newBuf(), ty.newBuf()
	return func(fr *frame, cx *vctx) []T {
		cond := cb(fr, cx)
		a := colOfT(fr, cx, ua, ca, ty, tb)
		b := colOfT(fr, cx, ue, ce, ty, eb)
		out := ty.buf(fr, buf, len(cond))
		for k, c := range cond {
			if c {
				out[k] = a[k]
			} else {
				out[k] = b[k]
			}
		}
		return out
	}
}

// valAtCol compiles x, a tensor's values at int positions, as a column
// of T for batches of level l into buffer buf.
func valAtCol[T elem](rg *region, ty typed[T], x *lower.ValAt, l int, chk bool, buf int) func(*frame, *vctx) []T {
	_, cp := rg.int(x.Pos, l, chk)
	t := x.T.ID
	return func(fr *frame, cx *vctx) []T {
		ps, vals := cp(fr, cx), fr.t[t].vals
		out := ty.buf(fr, buf, len(ps))
		for k, p := range ps {
			out[k] = T(vals[p])
		}
		return out
	}
}

// colOfT is a column of T for a uniform (u) or column (c) expression.
func colOfT[T elem](fr *frame, cx *vctx, u func(*frame) T, c func(*frame, *vctx) []T, ty typed[T], buf int) []T {
	if c != nil {
		return c(fr, cx)
	}
	return fill(ty.buf(fr, buf, cx.n), u(fr))
}

// arith sets out[k] = a[k] op b[k] for op Add, Sub, Mul or Div.
func arith[T elem](op lower.BinaryOp, out, a, b []T) {
	a, b = a[:len(out)], b[:len(out)]
	switch op {
	case lower.Add:
		for k := range out {
			out[k] = a[k] + b[k]
		}
	case lower.Sub:
		for k := range out {
			out[k] = a[k] - b[k]
		}
	case lower.Mul:
		for k := range out {
			out[k] = a[k] * b[k]
		}
	default:
		for k := range out {
			out[k] = a[k] / b[k]
		}
	}
}

// compare is a op b for op Lt, Le, Eq or Ne.
func compare[T elem](op lower.BinaryOp, a, b T) bool {
	switch op {
	case lower.Lt:
		return a < b
	case lower.Le:
		return a <= b
	case lower.Eq:
		return a == b
	}
	return a != b
}

// offsetExpr is v + d: an index the lanes compute from their loop's
// column instead of from the int lets it was spelled through (lower.Offset
// read them through).
func offsetExpr(v *lower.Var, d int) lower.Expr {
	if d == 0 {
		return &lower.Ref{V: v}
	}
	return &lower.Binary{Op: lower.Add, X: &lower.Ref{V: v}, Y: &lower.Const{K: lower.Int, I: d}}
}
