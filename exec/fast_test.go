package exec

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestGuardedStore: a dense store whose value is guarded by the range of
// its iteration (VVD's shape) splits into the fast loop and explicit
// zeros, with the interpreter's exact keys.
func TestGuardedStore(t *testing.T) {
	b := map[string]sdql.Value{
		"V1_len": sdql.Int(5), "V2_len": sdql.Int(3), "V2_val": sdql.RealArray{0.5, 0, 2.5}, "s": sdql.Real(2),
		"V_row": sdql.IntArray{2, 0, 1, 4, 3},
	}
	for i, src := range []string{
		"sum(<_, i> in (0:V1_len)) { i -> if 0 <= i && i < V2_len then V2_val(i) }",
		"sum(<_, i> in (0:V1_len)) { unique(i) -> if 0 <= i && i < V2_len then s * V2_val(i) }",
		"sum(<_, i> in (0:V2_len)) { unique(i) -> if 0 <= i && i < V1_len then V2_val(i) }",
		"sum(<_, i> in (0 - 2:V2_len)) { unique(i) -> if 0 <= i && i < V2_len then V2_val(i) }",
		"sum(<_, i> in (0:V1_len)) { i -> if 0 <= i && i < 0 - 1 then V2_val(i) }",
		"sum(<_, i> in (3:1)) { i -> if 0 <= i && i < V2_len then V2_val(i) }",
		"sum(<_, i> in (0:V1_len)) { i -> if 0 <= i && i < V2_len then 2.0 }",
		"sum(<_, i> in (0:V1_len)) { V_row(i) -> if 0 <= i && i < V2_len then V2_val(i) }",
	} {
		src := src
		e, err := sdql.Parse("", src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(e, b)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range append(optionSets, Options{ResultShape: []int{5}}, Options{ResultShape: []int{5}, NoValidate: true}) {
			if o.ResultShape != nil && i == 3 {
				continue // a negative key is an error in a dense result
			}
			agree(t, src, b, o)
			k, err := CompileFor(e, b, o)
			if err != nil {
				t.Fatal(err)
			}
			if !o.NoFast && o.Opt == "" && o.Threads < 2 && k.c.fast == 0 && i != 7 {
				t.Errorf("no fast path: %s", src)
			}
			r := k.NewResult()
			for range 2 {
				if err := k.RunInto(r, b); err != nil {
					t.Fatal(err)
				}
				got := r.Value()
				if o.ResultShape == nil && !sameEntries(got, want) || !sdql.Equal(got, want) {
					t.Errorf("%+v: got %s, want %s\n%s", o, sdql.FormatValue(got), sdql.FormatValue(want), src)
				}
			}
		}
	}
}

// TestNoClear: a dense result the program overwrites on its range is not
// cleared before a run, only outside the range: reruns into the same
// destination with shorter ranges agree with the interpreter.
func TestNoClear(t *testing.T) {
	for _, src := range []string{
		"sum(<_, i> in (0:V1_len)) { i -> if 0 <= i && i < V2_len then V2_val(i) }",
		"sum(<_, i> in (1:V1_len)) { unique(i) -> s * V2_val(i) }",
		// under scalar lets (fuse's NameScalarFactor: VSM's gradient)
		"let c = s + s in sum(<_, i> in (0:V1_len)) { unique(i) -> c * V2_val(i) }",
	} {
		e, err := sdql.Parse("", src)
		if err != nil {
			t.Fatal(err)
		}
		mk := func(n1, n2 int) map[string]sdql.Value {
			return map[string]sdql.Value{"V1_len": sdql.Int(n1), "V2_len": sdql.Int(n2), "V2_val": sdql.RealArray{1, 2, 3, 4, 5}, "s": sdql.Real(2)}
		}
		k, err := CompileFor(e, mk(5, 5), Options{ResultShape: []int{5}})
		if err != nil {
			t.Fatal(err)
		}
		if !k.noClear {
			t.Errorf("clears: %s", src)
		}
		r := k.NewResult()
		for _, b := range []map[string]sdql.Value{mk(5, 5), mk(3, 5), mk(5, 2), mk(0, 0), mk(4, 4)} {
			want, err := sdql.Eval(e, b)
			if err != nil {
				t.Fatal(err)
			}
			if err := k.RunInto(r, b); err != nil {
				t.Fatal(err)
			}
			if got := r.Value(); !sdql.Equal(got, want) {
				t.Errorf("got %s, want %s\n%s", sdql.FormatValue(got), sdql.FormatValue(want), src)
			}
		}
	}
}
