package exec_test

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestDenseMatrixInPlace: the stencil's gradient, a parallel loop adding
// into rows i - 1, i and i + 1 of a full dense matrix, runs on two and
// three workers writing the matrix in place (each chunk but the first
// leaves its first two iterations to run after the workers: exec's
// inPlaceSpan), twice on one kernel and result, and gives the reference
// interpreter's gradient. (Under the race detector, as make test runs
// it, a chunk that wrote a row another chunk writes fails too.)
func TestDenseMatrixInPlace(t *testing.T) {
	const src = `sum(<i, _> in (1:n - 1)) sum(<j, _> in (1:m - 1))
  let d = U(i - 1)(j) + U(i + 1)(j) + U(i)(j - 1) + U(i)(j + 1) - 4 * U(i)(j) in d * d`
	n, m := 40, 30
	u := make([]float64, n*m)
	for k := range u {
		u[k] = float64(k%7) - 2.25 + float64(k)/256
	}
	in := nablasd.Inputs{"U": &formats.Tensor{Format: formats.Dense, Shape: []int{n, m}, Val: u, Pos: make([][]int, 2), Idx: make([][]int, 2)},
		"n": n, "m": m}
	compile := func(o nablasd.Options) *nablasd.Kernel {
		q, err := nablasd.Prepare(src, in, &o)
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile("U")
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ref := compile(nablasd.Options{Exec: "interp"})
	want := ref.NewResult()
	if err := ref.Run(want, nil); err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{2, 3} {
		t.Run(fmt.Sprintf("threads=%d", threads), func(t *testing.T) {
			k := compile(nablasd.Options{Exec: "compiled", Threads: threads})
			res := k.NewResult()
			for run := range 2 {
				if err := k.Run(res, nil); err != nil {
					t.Fatal(err)
				}
				if d := sdql.DiffDicts(res.Value(), want.Value(), 1e-12); d != "" {
					t.Fatalf("run %d: %s", run, d)
				}
			}
		})
	}
}
