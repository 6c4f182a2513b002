package nablasd_test

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
)

// TestCompletedEntries: a compiled kernel's gradient of a scalar program
// with respect to a sparse input, read by Entries (which merges the run's
// entries with the input's stored coordinates, not building the
// completed value), gives the entries of the reference interpreter's
// gradient completed to the same positions: over vectors and matrices in
// every format (CSC's coordinates come column by column: the completed
// value is read then), programs that read x's stored positions and
// programs that look x up elsewhere, inputs rebound to another tensor,
// and coordinates stored twice.
func TestCompletedEntries(t *testing.T) {
	vec := func(f formats.Format, n int, idx []int, val []float64) *formats.Tensor {
		x, err := formats.FromCoords([]int{n}, [][]int{idx}, val, f)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	mat := func(f formats.Format, rows, cols []int, val []float64) *formats.Tensor {
		x, err := formats.FromCoords([]int{4, 5}, [][]int{rows, cols}, val, f)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, c := range []struct {
		name, prog string
		in         nablasd.Inputs
		again      []any // the input x rebound
	}{
		{"squares", "sum(<i, a> in x) a * a", nablasd.Inputs{"x": vec(formats.COO, 9, []int{1, 4, 7}, []float64{1, -2, 3})},
			[]any{vec(formats.COO, 9, []int{0, 8}, []float64{5, 6}), vec(formats.COO, 9, nil, nil), vec(formats.COO, 12, []int{3, 3, 11}, []float64{1, 2, 3})}},
		{"lookups elsewhere", "sum(<i, b> in y) b * x(i)", nablasd.Inputs{"x": vec(formats.COO, 9, []int{1, 4, 7}, []float64{1, -2, 3}), "y": []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}},
			[]any{vec(formats.COO, 9, []int{0, 8}, []float64{5, 6})}},
		{"zero gradient", "sum(<i, a> in x) 0 * a", nablasd.Inputs{"x": vec(formats.COO, 9, []int{1, 4, 7}, []float64{1, -2, 3})}, nil},
	} {
		t.Run(c.name, func(t *testing.T) { completedEntries(t, c.prog, c.in, c.again) })
	}
	A := func(f formats.Format) *formats.Tensor {
		return mat(f, []int{0, 0, 2, 3, 3}, []int{1, 4, 0, 2, 3}, []float64{1, 2, 3, -4, 5})
	}
	for _, f := range []formats.Format{formats.COO, formats.CSR, formats.CSC} {
		t.Run(fmt.Sprintf("matrix/%s", f), func(t *testing.T) {
			completedEntries(t, "sum(<i, r> in A) sum(<j, a> in r) a * a * w(j)", nablasd.Inputs{"A": A(f), "w": []float64{1, 2, 3, 4, 5}},
				[]any{mat(f, []int{1, 3}, []int{1, 1}, []float64{7, 8})})
		})
	}
}

// completedEntries compares the compiled kernel's Entries with the
// interpreter's, over the inputs and over each rebinding of the gradient's
// input (the first input named x or A).
func completedEntries(t *testing.T, prog string, in nablasd.Inputs, again []any) {
	t.Helper()
	wrt := "x"
	if _, ok := in["A"]; ok {
		wrt = "A"
	}
	entries := func(exec string, x any) string {
		q, err := nablasd.Prepare(prog, in, &nablasd.Options{Exec: exec})
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile(wrt)
		if err != nil {
			t.Fatal(err)
		}
		res := k.NewResult()
		var rb nablasd.Inputs
		if x != nil {
			rb = nablasd.Inputs{wrt: x}
		}
		if err := k.Run(res, rb); err != nil {
			t.Fatal(err)
		}
		s := ""
		if err := res.Entries(func(c []int, v float64) bool {
			s += fmt.Sprintf("%v:%g ", c, v)
			return true
		}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, x := range append([]any{nil}, again...) {
		got, want := entries("compiled", x), entries("interp", x)
		if got != want {
			t.Errorf("x=%v: compiled %s, the interpreter %s", x, got, want)
		}
	}
}
