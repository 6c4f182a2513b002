package nablasd_test

import (
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestDenseRowsReuse: a gradient with respect to a dense matrix whose
// every entry the kernel assigns once is written into a reused
// destination without clearing it first (lower.WriteOnce over dense rows:
// the init is Covered), and one whose rows the kernel may skip is
// cleared. Each case runs twice into one destination, the first run over
// inputs that fill every entry with a large value, the second over inputs
// whose gradient has zero rows or entries, and is compared with the
// reference interpreter: a stale entry of the first run shows.
func TestDenseRowsReuse(t *testing.T) {
	const n = 5
	dense := func(v float64) *formats.Tensor {
		vals := make([]float64, n*n)
		for i := range vals {
			vals[i] = v
		}
		return &formats.Tensor{Format: formats.Dense, Shape: []int{n, n}, Pos: [][]int{nil, nil}, Idx: [][]int{nil, nil}, Val: vals}
	}
	csr := func(rows, cols []int, vals []float64) *formats.Tensor {
		a, err := formats.FromCoords([]int{n, n}, [][]int{rows, cols}, vals, formats.CSR)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	full := csr([]int{0, 1, 2, 3, 4, 0, 1, 2, 3, 4}, []int{0, 1, 2, 3, 4, 1, 2, 3, 4, 0}, []float64{9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	// columns 1 and 3 are empty: rows 1 and 3 of SMMM's gradient are zero
	holes := csr([]int{0, 2, 4}, []int{0, 2, 4}, []float64{1, -2, 3})
	vec := func(xs ...float64) *formats.Tensor { return nablasd.DenseVector(xs) }
	for _, c := range []struct {
		name, src, wrt string
		first, second  nablasd.Inputs
	}{
		{"SMMM w.r.t. a dense B", "sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b", "B",
			nablasd.Inputs{"A": full, "B": dense(1)}, nablasd.Inputs{"A": holes, "B": dense(1)}},
		{"rows weighted by x", "sum(<i, a> in x) sum(<j, w> in W(i)) a * w", "W",
			nablasd.Inputs{"x": vec(7, 7, 7, 7, 7), "W": dense(1)}, nablasd.Inputs{"x": vec(1, 0, 2, 0, 3), "W": dense(1)}},
		{"rows where x is positive", "sum(<i, a> in x) if (a > 0) then sum(<j, w> in W(i)) a * w else 0", "W",
			nablasd.Inputs{"x": vec(7, 7, 7, 7, 7), "W": dense(1)}, nablasd.Inputs{"x": vec(1, -1, 2, -2, 3), "W": dense(1)}},
	} {
		for _, mode := range []string{"forward", "auto"} {
			q, err := nablasd.Prepare(c.src, c.first, &nablasd.Options{Exec: "compiled", Mode: mode})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			k, err := q.Compile(c.wrt)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			res := k.NewResult()
			for _, in := range []nablasd.Inputs{c.first, c.second} {
				if err := k.Run(res, in); err != nil {
					t.Fatalf("%s: %v", c.name, err)
				}
			}
			ref, err := nablasd.Prepare(c.src, c.second, &nablasd.Options{Exec: "interp", Mode: mode})
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.Grad(c.wrt)
			if err != nil {
				t.Fatal(err)
			}
			if diff := sdql.DiffDicts(res.Value(), want[0].Value(), 1e-12); diff != "" {
				t.Errorf("%s (%s mode), the second run into one destination: %s\nhave %s\nwant %s", c.name, mode, diff, res, want[0])
			}
		}
	}
}
