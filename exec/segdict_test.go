package exec

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// sameEntries compares two values entry by entry, keys exactly (explicit
// zeros included), reals approximately.
func sameEntries(a, b sdql.Value) bool {
	if _, ok := a.(*sdql.Dict); !ok {
		return sdql.Equal(a, b)
	}
	n := 0
	ok := true
	sdql.Entries(a, func(k int, x sdql.Value) bool {
		n++
		y, found := sdql.Lookup(b, k)
		ok = found && sameEntries(x, y)
		return ok
	})
	m := 0
	sdql.Entries(b, func(int, sdql.Value) bool { m++; return true })
	return ok && n == m
}

// TestSegDict: the SMMM gradient's shape (a dictionary's rows written over
// a CSR input's rows) becomes a flat result on B's positions, with the
// interpreter's exact keys: empty rows, explicit zeros, keys the guard
// skips, duplicate columns in a row, an empty dictionary.
func TestSegDict(t *testing.T) {
	colsum := "let t = sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in "
	// T another dictionary (not the fused column sums)
	scaled := "let t = sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> 2.0 * A_val(p) } in "
	base := map[string]sdql.Value{
		// column 1 sums to 0 (an explicit zero); column 4 is past B_len
		"A_len": sdql.Int(3), "A_pos": sdql.IntArray{0, 2, 4, 6}, "A_idx": sdql.IntArray{0, 1, 1, 4, 3, 0}, "A_val": sdql.RealArray{1, 2, -2, 5, 7, 3},
		// row 2 empty, row 3 has a duplicate column
		"B_len": sdql.Int(4), "B_pos": sdql.IntArray{0, 2, 3, 3, 5}, "B_idx": sdql.IntArray{1, 3, 0, 2, 2}, "B_val": sdql.RealArray{6, 7, 8, 9, 10},
		"s": sdql.Real(1.5),
	}
	short := map[string]sdql.Value{}
	for k, v := range base {
		short[k] = v
	}
	short["B_len"] = sdql.Int(2) // rows 2.. skipped by the guard
	empty := map[string]sdql.Value{}
	for k, v := range base {
		empty[k] = v
	}
	empty["A_len"] = sdql.Int(0)
	sparse := map[string]sdql.Value{ // few keys against B's rows: T's keys in order
		"A_len": sdql.Int(1), "A_pos": sdql.IntArray{0, 1}, "A_idx": sdql.IntArray{6}, "A_val": sdql.RealArray{2},
		"B_len": sdql.Int(8), "B_pos": sdql.IntArray{0, 1, 2, 3, 4, 5, 6, 8, 9}, "B_idx": sdql.IntArray{0, 1, 2, 3, 4, 5, 6, 0, 7}, "B_val": sdql.RealArray{1, 2, 3, 4, 5, 6, 7, 8, 9},
		"s": sdql.Real(1.5),
	}
	negative := map[string]sdql.Value{} // a negative column, skipped by the guard
	for k, v := range base {
		negative[k] = v
	}
	negative["A_idx"] = sdql.IntArray{0, -1, 1, 4, 3, 0}
	bodies := []string{
		"sum(<k, a> in t) if 0 <= k && k < B_len then sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { k -> { j1 -> a } }",
		"sum(<k, a> in t) if 0 <= k && k < B_len then sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { k -> { j1 -> 2.0 * a * s } }",
		"sum(<k, a> in t) if 0 <= k && k < B_len then sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { unique(k) -> { j1 -> a * B_val(p1) } }",
		"sum(<k, a> in t) if 0 <= k && k < B_len then sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { k -> { j1 -> a * k } }",
	}
	for bi, body := range bodies {
		for _, pre := range []string{colsum, scaled} {
			for ii, b := range []map[string]sdql.Value{base, short, empty, sparse, negative} {
				src := pre + body
				e, err := sdql.Parse("", src)
				if err != nil {
					t.Fatal(err)
				}
				want, err := sdql.Eval(e, b)
				if err != nil {
					t.Fatal(err)
				}
				for _, o := range append(optionSets, Options{NoValidate: true}) {
					name := fmt.Sprintf("body %d input %d %+v %s", bi, ii, o, pre[len(pre)-30:])
					agree(t, src, b, o)
					k, err := CompileFor(e, b, o)
					if err != nil {
						t.Fatal(err)
					}
					if o.NoFast || o.Threads > 1 || o.Opt == "none" {
						continue
					}
					if !k.segOnly {
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
	}
	// without the guard a key past B's rows is an error, as in the interpreter
	src := colsum + "sum(<k, a> in t) sum(<p1, j1> in B_idx(B_pos(k):B_pos(k + 1))) { k -> { j1 -> a } }"
	e, _ := sdql.Parse("", src)
	k, err := CompileFor(e, base, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Run(base); err == nil {
		t.Error("key past B's rows: no error")
	}
	if _, err := sdql.Eval(e, base); err == nil {
		t.Log("the interpreter gives no error for a key past B's rows")
	}
}
