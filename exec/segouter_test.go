package exec

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestSegOuter: the sum of the outer products of a CSR input's rows
// (BATAx's shape) built by Gustavson's algorithm, with the interpreter's
// exact keys: empty rows, a column repeated in a row, explicit zeros,
// partial and empty ranges.
func TestSegOuter(t *testing.T) {
	mk := func(n int, pos, idx []int, val []float64) map[string]sdql.Value {
		return map[string]sdql.Value{"A_len": sdql.Int(n), "A_pos": sdql.IntArray(pos), "A_idx": sdql.IntArray(idx), "A_val": sdql.RealArray(val), "beta": sdql.Real(0.5), "s": sdql.Real(3)}
	}
	inputs := []map[string]sdql.Value{
		mk(4, []int{0, 2, 2, 5, 6}, []int{0, 3, 1, 3, 4, 3}, []float64{1, 2, 0, 4, 5, 6}), // empty row, a zero
		mk(3, []int{0, 3, 4, 6}, []int{2, 0, 2, 1, 0, 0}, []float64{1, 2, 3, 4, 5, -5}),   // repeated columns (one cancels)
		mk(0, []int{0}, nil, nil),
		mk(2, []int{0, 0, 0}, nil, nil),
	}
	row := "let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in "
	for pi, src := range []string{
		"sum(<_, i> in (0:A_len)) " + row + "sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> beta * v * v1 } }",
		"sum(<_, i> in (1:A_len)) " + row + "sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> v1 * s * v * beta } }",
		"let c = 2.0 * beta in sum(<_, i> in (0:A_len)) " + row + "sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> v * v1 * c } }",
		"sum(<_, i> in (2:1)) " + row + "sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> v * v1 } }",
	} {
		e, err := sdql.Parse("", src)
		if err != nil {
			t.Fatal(err)
		}
		for ii, b := range inputs {
			if pi == 1 && ii == 2 {
				continue // the range 1:0 is empty, but A_pos(1) does not exist
			}
			want, err := sdql.Eval(e, b)
			if err != nil {
				t.Fatal(err)
			}
			for _, o := range append(optionSets, Options{NoValidate: true}, Options{ResultShape: []int{5, 5}}) {
				name := fmt.Sprintf("program %d input %d %+v", pi, ii, o)
				agree(t, src, b, o)
				k, err := CompileFor(e, b, o)
				if err != nil {
					t.Fatal(err)
				}
				if !o.NoFast && o.Threads < 2 && o.Opt == "" && !k.segOnly {
					t.Errorf("%s: not a flat result", name)
				}
				r := k.NewResult()
				for range 2 {
					if err := k.RunInto(r, b); err != nil {
						t.Fatal(err)
					}
					if got := r.Value(); !sameEntries(got, want) {
						t.Errorf("%s: got %s, want %s", name, sdql.FormatValue(got), sdql.FormatValue(want))
					}
				}
			}
		}
	}
	// one destination over inputs of different sizes, in both orders
	e0, _ := sdql.Parse("", "sum(<_, i> in (0:A_len)) "+row+"sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> v * v1 } }")
	k0, err := CompileFor(e0, inputs[0], Options{})
	if err != nil {
		t.Fatal(err)
	}
	r0 := k0.NewResult()
	for _, ii := range []int{3, 0, 1, 0, 2, 1, 1} {
		want, _ := sdql.Eval(e0, inputs[ii])
		if err := k0.RunInto(r0, inputs[ii]); err != nil {
			t.Fatal(err)
		}
		if got := r0.Value(); !sameEntries(got, want) {
			t.Errorf("input %d: got %s, want %s", ii, sdql.FormatValue(got), sdql.FormatValue(want))
		}
	}
	// a negative column is an error, not a panic
	e, _ := sdql.Parse("", "sum(<_, i> in (0:A_len)) "+row+"sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> v * v1 } }")
	b := mk(1, []int{0, 2}, []int{0, -1}, []float64{1, 2})
	k, err := CompileFor(e, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(b); err == nil {
		t.Error("negative column: no error")
	}
}
