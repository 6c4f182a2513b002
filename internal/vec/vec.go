// Package vec holds the elementwise passes over float64 slices whose
// scalar loop the processor's divider bounds: square roots and
// divisions. The columnar executor (package exec) runs a square root or
// a division of a column as one of these passes.
//
// Go's compiler does not vectorize: its loop of math.Sqrt takes one
// SQRTSD per entry, its loop of / one DIVSD, and the divider takes
// several cycles each (on the project's AMD EPYC VM, 2.4 ns a square root
// and 1.4 ns a division against 0.6 and 0.35 ns on four lanes at once).
// NumPy's passes run on four lanes. So on amd64 with AVX these passes are
// assembly, four entries an instruction (VSQRTPD, VDIVPD); elsewhere
// they are the scalar loops. Both instructions are correctly rounded, as
// the scalar ones are, so every entry is the same to the bit either way
// (TestMatchesScalar).
package vec

import "math"

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

// Div sets dst[k] = x[k] / y[k] for every k < len(x).
func Div(dst, x, y []float64) {
	dst, y = dst[:len(x)], y[:len(x)]
	k := 0
	if useAVX && len(x) >= 4 {
		k = len(x) &^ 3
		divAVX(&dst[0], &x[0], &y[0], k)
	}
	for ; k < len(x); k++ {
		dst[k] = x[k] / y[k]
	}
}

// DivInto sets dst[k] = u / y[k] for every k < len(y).
func DivInto(dst []float64, u float64, y []float64) {
	dst = dst[:len(y)]
	k := 0
	if useAVX && len(y) >= 4 {
		k = len(y) &^ 3
		divIntoAVX(&dst[0], u, &y[0], k)
	}
	for ; k < len(y); k++ {
		dst[k] = u / y[k]
	}
}

// DivBy sets dst[k] = x[k] / u for every k < len(x). (Not x[k] · (1/u):
// that product is not always the quotient's nearest float.)
func DivBy(dst, x []float64, u float64) {
	dst = dst[:len(x)]
	k := 0
	if useAVX && len(x) >= 4 {
		k = len(x) &^ 3
		divByAVX(&dst[0], &x[0], u, k)
	}
	for ; k < len(x); k++ {
		dst[k] = x[k] / u
	}
}
