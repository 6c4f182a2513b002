// Package vec holds the elementwise passes over float64 slices that the
// columnar executor (package exec) runs a batch's arithmetic with: the
// four operations of two columns, or of a column and a value, the
// square root, and adding a column into another.
//
// Go's compiler does not vectorize: its loop of math.Sqrt takes one
// SQRTSD per entry, its loop of / one DIVSD, of + one ADDSD, and the
// divider takes several cycles each (on the project's AMD EPYC VM, 2.4
// ns a square root and 1.4 ns a division, against 0.6 and 0.35 ns on
// four lanes at once; an addition of two columns in the L1 cache 0.31
// ns, against 0.08). NumPy's passes run on four lanes. So on amd64 with
// AVX these passes are assembly, four entries an instruction (VSQRTPD,
// VADDPD, ...); elsewhere they are the scalar loops. Every instruction
// is correctly rounded, as the scalar ones are, and takes its operands
// in the scalar code's order, so every entry is the same to the bit
// either way (TestMatchesScalar).
package vec

import "math"

// Op is an arithmetic operation of a pass.
type Op uint8

// The operations.
const (
	Add Op = iota
	Sub
	Mul
	Div
)

// Arith sets dst[k] = x[k] op y[k] for every k < len(x).
func Arith(op Op, dst, x, y []float64) {
	dst, y = dst[:len(x)], y[:len(x)]
	k := 0
	if useAVX && len(x) >= 4 {
		k = len(x) &^ 3
		vv[op](&dst[0], &x[0], &y[0], k)
	}
	dst, x, y = dst[k:], x[k:], y[k:]
	switch op {
	case Add:
		for k := range dst {
			dst[k] = x[k] + y[k]
		}
	case Sub:
		for k := range dst {
			dst[k] = x[k] - y[k]
		}
	case Mul:
		for k := range dst {
			dst[k] = x[k] * y[k]
		}
	default:
		for k := range dst {
			dst[k] = x[k] / y[k]
		}
	}
}

// ArithRight sets dst[k] = x[k] op u for every k < len(x). (A division
// is not x[k] · (1/u): that product is not always the quotient's
// nearest float.)
func ArithRight(op Op, dst, x []float64, u float64) {
	dst = dst[:len(x)]
	k := 0
	if useAVX && len(x) >= 4 {
		k = len(x) &^ 3
		vs[op](&dst[0], &x[0], u, k)
	}
	dst, x = dst[k:], x[k:]
	switch op {
	case Add:
		for k := range dst {
			dst[k] = x[k] + u
		}
	case Sub:
		for k := range dst {
			dst[k] = x[k] - u
		}
	case Mul:
		for k := range dst {
			dst[k] = x[k] * u
		}
	default:
		for k := range dst {
			dst[k] = x[k] / u
		}
	}
}

// ArithLeft sets dst[k] = u op y[k] for every k < len(y).
func ArithLeft(op Op, dst []float64, u float64, y []float64) {
	dst = dst[:len(y)]
	k := 0
	if useAVX && len(y) >= 4 {
		k = len(y) &^ 3
		sv[op](&dst[0], u, &y[0], k)
	}
	dst, y = dst[k:], y[k:]
	switch op {
	case Add:
		for k := range dst {
			dst[k] = u + y[k]
		}
	case Sub:
		for k := range dst {
			dst[k] = u - y[k]
		}
	case Mul:
		for k := range dst {
			dst[k] = u * y[k]
		}
	default:
		for k := range dst {
			dst[k] = u / y[k]
		}
	}
}

// Sqrt sets dst[k] = √x[k] for every k < len(x).
func Sqrt(dst, x []float64) {
	dst = dst[:len(x)]
	k := 0
	if useAVX && len(x) >= 4 {
		k = len(x) &^ 3
		sqrtAVX(&dst[0], &x[0], k)
	}
	for ; k < len(x); k++ {
		dst[k] = math.Sqrt(x[k])
	}
}
