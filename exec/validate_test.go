package exec

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// csrInput binds a 3×4 CSR matrix A by its arrays, pos and idx as given.
func csrInput(pos, idx []int) map[string]sdql.Value {
	val := make(sdql.RealArray, len(idx))
	for i := range val {
		val[i] = float64(i + 1)
	}
	return map[string]sdql.Value{"A_pos": sdql.IntArray(pos), "A_idx": sdql.IntArray(idx), "A_val": val,
		"A_len": sdql.Int(len(pos) - 1), "x_val": sdql.RealArray{1, 2, 3, 4}, "x_len": sdql.Int(4)}
}

var csrFormats = map[string]lower.Format{"A": {Format: formats.CSR, Order: 2}, "x": {Format: formats.Dense, Order: 1}}

// TestValidation: an input breaking an invariant of its format that the
// kernel relies on is an error naming the input; one the kernel does not
// rely on gives the reference interpreter's result over the arrays.
func TestValidation(t *testing.T) {
	const (
		// a row's entries as a dictionary, looked up by key: a search
		// in the row, which relies on ascending coordinates
		lookup = "sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in r(2)"
		// A x: relies on nothing of the order
		smvm = "sum(<_, i> in (0:A_len)) { i -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) A_val(p) * x_val(j) }"
	)
	good := csrInput([]int{0, 2, 3, 5}, []int{0, 2, 1, 2, 3})
	unsorted := csrInput([]int{0, 2, 3, 5}, []int{2, 0, 1, 3, 2})
	notMonotone := csrInput([]int{0, 3, 2, 5}, []int{0, 2, 1, 2, 3})
	badEnd := csrInput([]int{0, 2, 3, 4}, []int{0, 2, 1, 2, 3})
	for _, c := range []struct {
		name, src string
		in        map[string]sdql.Value
		err       string // "" : agrees with the interpreter
	}{
		{"lookup/good", lookup, good, ""},
		{"lookup/unsorted", lookup, unsorted, "A_idx is not strictly ascending in parent 0"},
		{"smvm/unsorted", smvm, unsorted, ""},
		{"smvm/not-monotone", smvm, notMonotone, "A_pos[2] = 2 < A_pos[1] = 3: not monotone"},
		{"smvm/bad-end", smvm, badEnd, "A_pos does not run from 0 to len(A_idx) = 5"},
	} {
		t.Run(c.name, func(t *testing.T) {
			prog := sdql.MustParse(c.src)
			k, err := CompileFor(prog, c.in, Options{Formats: csrFormats})
			if err != nil {
				t.Fatal(err)
			}
			res, err := k.Run(c.in)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) || !strings.Contains(err.Error(), "input A") {
					t.Fatalf("got %v, want an error about input A containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want, err := sdql.Eval(prog, c.in)
			if err != nil {
				t.Fatal(err)
			}
			if d := sdql.DiffDicts(res.Value(), want, 0); d != "" {
				t.Fatalf("%s\ngot  %s\nwant %s", d, sdql.FormatValue(res.Value()), sdql.FormatValue(want))
			}
		})
	}
}
