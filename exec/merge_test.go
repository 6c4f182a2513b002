package exec_test

import (
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestDenseMatrixMerge: a parallel loop adding into a full dense matrix
// (the stencil's gradient, rows i - 1, i and i + 1 of every iteration i:
// the workers' rows overlap) merges the workers' copies range by range
// over the matrix's values on several goroutines (exec's tests split every
// parallel loop and merge every full dense tensor so), giving the
// reference interpreter's gradient.
func TestDenseMatrixMerge(t *testing.T) {
	const src = `sum(<i, _> in (1:n - 1)) sum(<j, _> in (1:m - 1))
  let d = U(i - 1)(j) + U(i + 1)(j) + U(i)(j - 1) + U(i)(j + 1) - 4 * U(i)(j) in d * d`
	n, m := 9, 7
	u := make([]float64, n*m)
	for k := range u {
		u[k] = float64(k%5) - 1.25 + float64(k)/64
	}
	in := nablasd.Inputs{"U": &formats.Tensor{Format: formats.Dense, Shape: []int{n, m}, Val: u, Pos: make([][]int, 2), Idx: make([][]int, 2)},
		"n": n, "m": m}
	grad := func(o nablasd.Options) sdql.Value {
		q, err := nablasd.Prepare(src, in, &o)
		if err != nil {
			t.Fatal(err)
		}
		rs, err := q.Grad("U")
		if err != nil {
			t.Fatal(err)
		}
		return rs[0].Value()
	}
	want := grad(nablasd.Options{Exec: "interp"})
	for _, threads := range []int{2, 3} {
		got := grad(nablasd.Options{Exec: "compiled", Threads: threads})
		if d := sdql.DiffDicts(got, want, 1e-12); d != "" {
			t.Errorf("%d threads: %s\ngot  %s\nwant %s", threads, d, sdql.FormatValue(got), sdql.FormatValue(want))
		}
	}
}
