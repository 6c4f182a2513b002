package exec

import "github.com/nablasd/nablasd/lower"

// This file holds the scalar closures that reals and ints share, written
// once over the element type (elem, coltyped.go). Each is stenciled for
// float64 and for int (their GC shapes differ), so a closure does the
// arithmetic of the hand-written copies it replaces. Reads of the frame's
// variables and arrays (fr.f and fr.fa, fr.i and fr.ia) stay written out
// per type in compiler.real and compiler.int: a generic one would reach
// its slice through a call per evaluation.

// choose is select(cond, a, b): only the branch taken is evaluated.
func choose[T elem](cond func(*frame) bool, a, b func(*frame) T) func(*frame) T {
	return func(fr *frame) T {
		if cond(fr) {
			return a(fr)
		}
		return b(fr)
	}
}

// negate is -f.
func negate[T elem](f func(*frame) T) func(*frame) T {
	return func(fr *frame) T { return -f(fr) }
}

// valAt is tensor t's value at position pos, as a T.
func valAt[T elem](t int, pos iexpr) func(*frame) T {
	return func(fr *frame) T { return T(fr.t[t].vals[pos(fr)]) }
}

// floorDiv is ⌊a / b⌋ (lower.FloorDiv), where Go's / rounds toward zero.
func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// arithConst is a op v (v a constant) for op Add, Sub, Mul or Div, or
// nil for another op.
func arithConst[T elem](op lower.BinaryOp, a func(*frame) T, v T) func(*frame) T {
	switch op {
	case lower.Add:
		return func(fr *frame) T { return a(fr) + v }
	case lower.Sub:
		return func(fr *frame) T { return a(fr) - v }
	case lower.Mul:
		return func(fr *frame) T { return a(fr) * v }
	case lower.Div:
		return func(fr *frame) T { return a(fr) / v }
	}
	return nil
}

// arithOf is a op b for op Add, Sub, Mul or Div, or nil for another op.
func arithOf[T elem](op lower.BinaryOp, a, b func(*frame) T) func(*frame) T {
	switch op {
	case lower.Add:
		return func(fr *frame) T { return a(fr) + b(fr) }
	case lower.Sub:
		return func(fr *frame) T { return a(fr) - b(fr) }
	case lower.Mul:
		return func(fr *frame) T { return a(fr) * b(fr) }
	case lower.Div:
		return func(fr *frame) T { return a(fr) / b(fr) }
	}
	return nil
}

// compareOf is a op b for op Lt, Le, Eq or Ne.
func compareOf[T elem](op lower.BinaryOp, a, b func(*frame) T) func(*frame) bool {
	switch op {
	case lower.Lt:
		return func(fr *frame) bool { return a(fr) < b(fr) }
	case lower.Le:
		return func(fr *frame) bool { return a(fr) <= b(fr) }
	case lower.Eq:
		return func(fr *frame) bool { return a(fr) == b(fr) }
	}
	return func(fr *frame) bool { return a(fr) != b(fr) }
}
