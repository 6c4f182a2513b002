package exec_test

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestDenseMatrixInPlace: gradients whose parallel loop adds into a
// dense result at keys of its variable, run on two and three workers
// writing the result in place (each chunk but the first leaves the
// iterations that share rows with the chunk before to run after the
// workers: exec's inPlaceRows), twice on one kernel and result, give the
// reference interpreter's gradient: the stencil's (rows i - 1, i and i +
// 1 of a full dense matrix), total variation's (i and i + 1 of a dense
// vector without marks) and the downsampling's (2i + k for the taps k <
// K_len, a loop inside). (Under the race detector, as make test runs it,
// a chunk that wrote a row another chunk writes fails too.)
func TestDenseMatrixInPlace(t *testing.T) {
	vec := testVector
	n, m := 40, 30
	U := vec(n * m)
	U.Shape, U.Pos, U.Idx = []int{n, m}, make([][]int, 2), make([][]int, 2)
	for _, c := range []struct {
		name, src, wrt string
		in             nablasd.Inputs
	}{
		{"stencil", `sum(<i, _> in (1:n - 1)) sum(<j, _> in (1:m - 1))
  let d = U(i - 1)(j) + U(i + 1)(j) + U(i)(j - 1) + U(i)(j + 1) - 4 * U(i)(j) in d * d`, "U",
			nablasd.Inputs{"U": U, "n": n, "m": m}},
		{"tv", `sum(<i, _> in (0:n - 1)) let d = x(i + 1) - x(i) in sqrt(d * d + eps)`, "x",
			nablasd.Inputs{"x": vec(301), "n": 301, "eps": 0.5}},
		{"downsample", `let y = sum(<i, _> in (0:n)) { i -> sum(<k, w> in K) w * x(2 * i + k) } in
sum(<i, v> in y) v * v`, "x", nablasd.Inputs{"x": vec(301), "K": vec(8), "n": 147}},
	} {
		t.Run(c.name, func(t *testing.T) { inPlace(t, c.src, c.wrt, c.in) })
	}
}

func inPlace(t *testing.T, src, wrt string, in nablasd.Inputs) {
	compile := func(o nablasd.Options) *nablasd.Kernel {
		q, err := nablasd.Prepare(src, in, &o)
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile(wrt)
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

// testVector is a dense vector of n values that are not all alike.
func testVector(n int) *formats.Tensor {
	v := make([]float64, n)
	for k := range v {
		v[k] = float64(k%7) - 2.25 + float64(k)/256
	}
	return &formats.Tensor{Format: formats.Dense, Shape: []int{n}, Val: v, Pos: make([][]int, 1), Idx: make([][]int, 1)}
}
