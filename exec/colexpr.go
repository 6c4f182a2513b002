package exec

import (
	"fmt"
	"math"
	"runtime"

	"github.com/nablasd/nablasd/internal/vec"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// This file compiles a columnar region's expressions: real, int and
// boolean columns, or uniform scalars where no lane differs.

// real compiles a real expression for batches of level l: a uniform
// scalar closure when it reads no variable of the nest, else a column.
// chk compiles loads checked (0 outside the array): under a Select every
// lane evaluates both branches, whose loads only one lane's condition
// guards.
func (rg *region) real(e lower.Expr, l int, chk bool) (fexpr, fcol) {
	if !rg.varies(e) {
		return guardedUniform(rg.c.real(e), e, chk, 0.0), nil
	}
	if e.Kind() != lower.Real {
		ui, ci := rg.int(e, l, chk)
		if ui != nil {
			return func(fr *frame) float64 { return float64(ui(fr)) }, nil
		}
		return nil, toReal(ci, rg, rg.newF())
	}
	buf := rg.newF()
	switch x := e.(type) {
	case *lower.Ref:
		return nil, rg.readF(x.V, l)
	case *lower.Load:
		return nil, loadCol(rg, rg.reals(), x, l, chk, buf)
	case *lower.Unary:
		if x.Op == lower.ToReal {
			_, ci := rg.int(x.X, l, chk)
			return nil, toReal(ci, rg, buf)
		}
		if x.Op == lower.Neg {
			return nil, negCol(rg.reals(), x.X, l, chk, buf)
		}
	case *lower.Binary:
		return nil, rg.realBinary(x, l, chk, buf)
	case *lower.Call:
		return nil, rg.call(x, l, chk, buf)
	case *lower.Select:
		if g := rg.guardedGather(x, l); g != nil {
			return nil, g
		}
		return nil, selectCol(rg, rg.reals(), x, l, chk, buf)
	case *lower.ValAt:
		return nil, valAtCol(rg, rg.reals(), x, l, chk, buf)
	}
	panic(fmt.Sprintf("internal error: exec: columnar real %s", lower.ExprString(e)))
}

// guardedUniform is f, the scalar code of a uniform expression e, or
// under chk (e is a select's branch, evaluated for a batch whose lanes
// may not take it: column branches read arrays checked) f returning zero
// where e reads an array (or a tensor's values) past its end. A branch the program evaluates
// only under its guard (select(4 < M_cols, M_val[M_cols * 4 + 4], 0) with
// 4 past M's last column) must not fail because the batch computes it for
// lanes whose guard is false; where the guard holds, the read is in
// range and f's value is e's.
func guardedUniform[T any](f func(*frame) T, e lower.Expr, chk bool, zero T) func(*frame) T {
	if !chk || !lower.ReadsMemory(e) {
		return f
	}
	return func(fr *frame) (v T) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(runtime.Error); !ok {
					panic(r)
				}
				v = zero
			}
		}()
		return f(fr)
	}
}

// colOf is a column for a uniform or column expression.
func colOf(fr *frame, cx *vctx, u fexpr, c fcol, rg *region, buf int) []float64 {
	if c != nil {
		return c(fr, cx)
	}
	return fill(rg.fbuf(fr, buf, cx.n), u(fr))
}

// toReal is the column of ci's values as reals, in buffer buf.
func toReal(ci icol, rg *region, buf int) fcol {
	return func(fr *frame, cx *vctx) []float64 {
		src := ci(fr, cx)
		out := rg.fbuf(fr, buf, len(src))
		for k, y := range src {
			out[k] = float64(y)
		}
		return out
	}
}

func (rg *region) realBinary(x *lower.Binary, l int, chk bool, buf int) fcol {
	if f := rg.productChain(x, l, chk, buf); f != nil {
		return f
	}
	if f := rg.broadcastGather(x, l, buf); f != nil {
		return f
	}
	ua, ca := rg.real(x.X, l, chk)
	ub, cb := rg.real(x.Y, l, chk)
	if ua == nil && ub == nil {
		if f := rg.broadcastBinary(x, l, ca, cb, buf); f != nil {
			return f
		}
	}
	vop := vecOp(x.Op)
	switch {
	case ua != nil: // uniform op column
		return func(fr *frame, cx *vctx) []float64 {
			u, src := ua(fr), cb(fr, cx)
			out := rg.fbuf(fr, buf, len(src))
			vec.ArithLeft(vop, out, u, src)
			return out
		}
	case ub != nil: // column op uniform
		return func(fr *frame, cx *vctx) []float64 {
			src, u := ca(fr, cx), ub(fr)
			out := rg.fbuf(fr, buf, len(src))
			vec.ArithRight(vop, out, src, u)
			return out
		}
	}
	return func(fr *frame, cx *vctx) []float64 {
		a, b := ca(fr, cx), cb(fr, cx)
		out := rg.fbuf(fr, buf, len(a))
		vec.Arith(vop, out, a, b)
		return out
	}
}

// vecOp is the internal/vec operation of Add, Sub, Mul or Div.
func vecOp(op lower.BinaryOp) vec.Op {
	switch op {
	case lower.Add:
		return vec.Add
	case lower.Sub:
		return vec.Sub
	case lower.Mul:
		return vec.Mul
	case lower.Div:
		return vec.Div
	}
	panic(fmt.Sprintf("internal error: exec: no column operation %d", op))
}

func (rg *region) call(x *lower.Call, l int, chk bool, buf int) fcol {
	op, ok := sdql.Ops[x.Fn]
	if ok && len(x.Args) == 1 && op.Fn != nil {
		fn := op.Fn
		switch x.Fn {
		case "exp":
			fn = math.Exp
		case "tanh":
			fn = math.Tanh
		case "log":
			fn = math.Log
		}
		ua, ca := rg.real(x.Args[0], l, chk)
		switch x.Fn {
		case "sqrt":
			// four lanes an instruction (vec), where a call through fn
			// is one
			return func(fr *frame, cx *vctx) []float64 {
				src := colOf(fr, cx, ua, ca, rg, buf)
				out := rg.fbuf(fr, buf, len(src))
				vec.Sqrt(out, src)
				return out
			}
		case "abs":
			// one instruction where called by name (the compiler's
			// intrinsic), a call through fn otherwise
			return func(fr *frame, cx *vctx) []float64 {
				src := colOf(fr, cx, ua, ca, rg, buf)
				out := rg.fbuf(fr, buf, len(src))
				out = out[:len(src)]
				for k, y := range src {
					out[k] = math.Abs(y)
				}
				return out
			}
		}
		return func(fr *frame, cx *vctx) []float64 {
			src := colOf(fr, cx, ua, ca, rg, buf)
			out := rg.fbuf(fr, buf, len(src))
			for k, y := range src {
				out[k] = fn(y)
			}
			return out
		}
	}
	if !ok || len(x.Args) != 2 || op.Fn2 == nil {
		panic(fmt.Sprintf("internal error: exec: unknown function %s/%d", x.Fn, len(x.Args)))
	}
	fn2 := op.Fn2
	ua, ca := rg.real(x.Args[0], l, chk)
	ub, cb := rg.real(x.Args[1], l, chk)
	ab := rg.newF()
	return func(fr *frame, cx *vctx) []float64 {
		a := colOf(fr, cx, ua, ca, rg, ab)
		b := colOf(fr, cx, ub, cb, rg, buf)
		out := rg.fbuf(fr, buf, len(a))
		for k := range out {
			out[k] = fn2(a[k], b[k])
		}
		return out
	}
}

// int compiles an int expression for batches of level l.
func (rg *region) int(e lower.Expr, l int, chk bool) (iexpr, icol) {
	if !rg.varies(e) {
		return guardedUniform(rg.c.int(e), e, chk, 0), nil
	}
	buf := rg.newI()
	switch x := e.(type) {
	case *lower.Ref:
		return nil, rg.readI(x.V, l)
	case *lower.Load:
		return nil, loadCol(rg, rg.ints(), x, l, chk, buf)
	case *lower.Unary:
		if x.Op == lower.Neg {
			return nil, negCol(rg.ints(), x.X, l, chk, buf)
		}
		if x.Op == lower.Not {
			_, cb := rg.boolean(x.X, l, chk)
			return nil, boolToInt(rg, cb, buf)
		}
	case *lower.Binary:
		switch x.Op {
		case lower.Add, lower.Sub, lower.Mul:
			ua, ca := rg.int(x.X, l, chk)
			ub, cb := rg.int(x.Y, l, chk)
			ab, bb := rg.newI(), rg.newI()
			op := x.Op
			return nil, func(fr *frame, cx *vctx) []int {
				a := icolOf(fr, cx, ua, ca, rg, ab)
				b := icolOf(fr, cx, ub, cb, rg, bb)
				out := rg.ibuf(fr, buf, cx.n)
				arith(op, out, a, b)
				return out
			}
		case lower.FloorDiv:
			ua, ca := rg.int(x.X, l, chk)
			ub, cb := rg.int(x.Y, l, chk)
			ab, bb := rg.newI(), rg.newI()
			return nil, func(fr *frame, cx *vctx) []int {
				a := icolOf(fr, cx, ua, ca, rg, ab)
				b := icolOf(fr, cx, ub, cb, rg, bb)
				out := rg.ibuf(fr, buf, cx.n)
				for k := range out {
					out[k] = floorDiv(a[k], b[k])
				}
				return out
			}
		}
		_, cb := rg.boolean(x, l, chk)
		return nil, boolToInt(rg, cb, buf)
	case *lower.Select:
		return nil, selectCol(rg, rg.ints(), x, l, chk, buf)
	case *lower.ValAt:
		return nil, valAtCol(rg, rg.ints(), x, l, chk, buf)
	}
	panic(fmt.Sprintf("internal error: exec: columnar int %s", lower.ExprString(e)))
}

func icolOf(fr *frame, cx *vctx, u iexpr, c icol, rg *region, buf int) []int {
	if c != nil {
		return c(fr, cx)
	}
	return fill(rg.ibuf(fr, buf, cx.n), u(fr))
}

func boolToInt(rg *region, cb bcol, buf int) icol {
	return func(fr *frame, cx *vctx) []int {
		src := cb(fr, cx)
		out := rg.ibuf(fr, buf, len(src))
		for k, y := range src {
			out[k] = b2i(y)
		}
		return out
	}
}

// boolean compiles a condition for batches of level l.
func (rg *region) boolean(e lower.Expr, l int, chk bool) (func(*frame) bool, bcol) {
	if !rg.varies(e) {
		return guardedUniform(rg.c.boolean(e), e, chk, false), nil
	}
	buf := rg.newB()
	switch x := e.(type) {
	case *lower.Unary:
		if x.Op == lower.Not {
			_, cb := rg.boolean(x.X, l, chk)
			return nil, func(fr *frame, cx *vctx) []bool {
				src := cb(fr, cx)
				out := rg.bbuf(fr, buf, len(src))
				for k, y := range src {
					out[k] = !y
				}
				return out
			}
		}
	case *lower.Binary:
		if f := rg.rangeTest(x, l, chk, buf); f != nil {
			return nil, f
		}
		switch x.Op {
		case lower.And, lower.Or:
			ua, ca := rg.boolean(x.X, l, chk)
			ub, cb := rg.boolean(x.Y, l, chk)
			and := x.Op == lower.And
			if ua != nil || ub != nil { // one side the same in every lane
				u, c := ua, cb
				if ub != nil {
					u, c = ub, ca
				}
				return nil, func(fr *frame, cx *vctx) []bool {
					uv, src := u(fr), c(fr, cx)
					out := rg.bbuf(fr, buf, len(src))
					for k, y := range src {
						if and {
							out[k] = uv && y
						} else {
							out[k] = uv || y
						}
					}
					return out
				}
			}
			return nil, func(fr *frame, cx *vctx) []bool {
				a, b := ca(fr, cx), cb(fr, cx)
				out := rg.bbuf(fr, buf, len(a))
				for k := range out {
					if and {
						out[k] = a[k] && b[k]
					} else {
						out[k] = a[k] || b[k]
					}
				}
				return out
			}
		case lower.Lt, lower.Le, lower.Eq, lower.Ne:
			if x.X.Kind() == lower.Real || x.Y.Kind() == lower.Real {
				ua, ca := rg.real(x.X, l, chk)
				ub, cb := rg.real(x.Y, l, chk)
				ab, bb := rg.newF(), rg.newF()
				op := x.Op
				return nil, func(fr *frame, cx *vctx) []bool {
					a := colOf(fr, cx, ua, ca, rg, ab)
					b := colOf(fr, cx, ub, cb, rg, bb)
					out := rg.bbuf(fr, buf, cx.n)
					for k := range out {
						out[k] = compare(op, a[k], b[k])
					}
					return out
				}
			}
			ua, ca := rg.int(x.X, l, chk)
			ub, cb := rg.int(x.Y, l, chk)
			op := x.Op
			if ua != nil {
				return nil, func(fr *frame, cx *vctx) []bool {
					u, b := ua(fr), cb(fr, cx)
					out := rg.bbuf(fr, buf, len(b))
					cmpIU(out, b, u, op, true)
					return out
				}
			}
			if ub != nil {
				return nil, func(fr *frame, cx *vctx) []bool {
					a, u := ca(fr, cx), ub(fr)
					out := rg.bbuf(fr, buf, len(a))
					cmpIU(out, a, u, op, false)
					return out
				}
			}
			return nil, func(fr *frame, cx *vctx) []bool {
				a, b := ca(fr, cx), cb(fr, cx)
				out := rg.bbuf(fr, buf, len(a))
				for k := range out {
					out[k] = compare(op, a[k], b[k])
				}
				return out
			}
		}
	}
	_, ci := rg.int(e, l, chk)
	return nil, func(fr *frame, cx *vctx) []bool {
		src := ci(fr, cx)
		out := rg.bbuf(fr, buf, len(src))
		for k, y := range src {
			out[k] = y != 0
		}
		return out
	}
}

// rangeTest compiles 0 <= v && v < n (lower.RangeTest), n the same in
// every lane, as one pass: uint(v) < uint(n), n below 0 taken as 0 (no
// lane holds), where the two comparisons and the conjunction were three.
// It returns nil for anything else.
func (rg *region) rangeTest(x *lower.Binary, l int, chk bool, buf int) bcol {
	v, n := lower.RangeTest(x)
	if v == nil || rg.varies(n) {
		return nil
	}
	_, cv := rg.int(&lower.Ref{V: v}, l, chk)
	if cv == nil {
		return nil
	}
	un := rg.c.int(n)
	return func(fr *frame, cx *vctx) []bool {
		a := cv(fr, cx)
		out := rg.bbuf(fr, buf, len(a))
		inRange(out, a, un(fr))
		return out
	}
}

// inRange sets out[k] = 0 <= a[k] && a[k] < n.
func inRange(out []bool, a []int, n int) {
	a = a[:len(out)]
	bound := uint(max(n, 0))
	for k, y := range a {
		out[k] = uint(y) < bound
	}
}

// cmpIU sets out[k] = a[k] op u, or u op a[k] when uLeft: the operation
// chosen once, not per lane.
func cmpIU(out []bool, a []int, u int, op lower.BinaryOp, uLeft bool) {
	a = a[:len(out)]
	switch {
	case op == lower.Lt && !uLeft:
		for k, y := range a {
			out[k] = y < u
		}
	case op == lower.Lt:
		for k, y := range a {
			out[k] = u < y
		}
	case op == lower.Le && !uLeft:
		for k, y := range a {
			out[k] = y <= u
		}
	case op == lower.Le:
		for k, y := range a {
			out[k] = u <= y
		}
	case op == lower.Eq:
		for k, y := range a {
			out[k] = y == u
		}
	default:
		for k, y := range a {
			out[k] = y != u
		}
	}
}
