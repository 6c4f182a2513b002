package exec

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestVecPasses runs a square root, the four operations of two columns
// or of a column and a value the same in every lane (on either side),
// and the additions into runs of a result, which the closures compute
// four lanes an instruction (internal/vec), over more lanes than a batch
// and a length that leaves a tail of each batch to the scalar loop,
// against the interpreter to the bit.
func TestVecPasses(t *testing.T) {
	n := 1301
	x, y := make(sdql.RealArray, n), make(sdql.RealArray, n)
	for i := range x {
		x[i] = float64(i%7) - 2.5 + float64(i)/1024
		y[i] = float64(i%5) + 0.75
	}
	in := map[string]sdql.Value{"x_val": x, "x_len": sdql.Int(n), "y_val": y, "c": sdql.Real(0.3)}
	for _, src := range []string{
		"sum(<i, _> in (0:x_len)) { i -> sqrt(x_val(i) * x_val(i) + c) }",
		"sum(<i, _> in (0:x_len)) { i -> x_val(i) / y_val(i) }",
		"sum(<i, _> in (0:x_len)) { i -> c / x_val(i) }",
		"sum(<i, _> in (0:x_len)) { i -> x_val(i) / c }",
		"sum(<i, _> in (0:x_len - 1)) let d = x_val(i + 1) - x_val(i) in sqrt(d * d + c) / d",
		"sum(<i, _> in (0:x_len)) { i -> c - x_val(i) * c + c * y_val(i) - (x_val(i) - c) }",
		// runs of a result added and subtracted into, of a value in every lane
		"sum(<i, _> in (0:x_len - 1)) { i -> -(x_val(i) * y_val(i)) } + { i + 1 -> x_val(i) / y_val(i) }",
		"sum(<i, _> in (0:x_len)) { i -> c } + { i + 1 -> c }",
	} {
		t.Run(src, func(t *testing.T) {
			prog, info, p := lowerFor(t, src, in)
			runLowered(t, prog, info, p, in, src)
		})
	}
}
