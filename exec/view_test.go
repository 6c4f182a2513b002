package exec

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestPipelineShapes runs the shapes fuse's pipeline produces for the
// paper's kernels (keys that are a range's binder without unique, dense
// inputs let-bound as dictionaries over their arrays) and their edge cases
// against the interpreter, with every option set and with a known result
// extent.
func TestPipelineShapes(t *testing.T) {
	b := map[string]sdql.Value{
		"V1_len": sdql.Int(4), "V1_val": sdql.RealArray{0.5, 0, 2.5, -1},
		"V2_len": sdql.Int(3), "V2_val": sdql.RealArray{1.5, 0, 3.5, 9}, // explicit zero; an array longer than its length
		"E_len": sdql.Int(0), "E_val": sdql.RealArray{},
		"V_row": sdql.IntArray{2, 0, 2}, "V_val": sdql.RealArray{1, 2, 3}, "V_len": sdql.Int(3), // duplicate COO coordinates
		"A_len": sdql.Int(3), "A_pos": sdql.IntArray{0, 2, 2, 4}, "A_idx": sdql.IntArray{0, 2, 1, 2}, "A_val": sdql.RealArray{1, 2, 3, 4}, // an empty row
		"s": sdql.Real(1.5), "beta": sdql.Real(0.5),
	}
	srcs := []string{
		// VVA, VVD, VSM as fuse gives them
		"sum(<_, i> in (0:V1_len)) { i -> { i -> 1 } }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<_, i> in (0:V1_len)) { i -> V2(i) }",
		"let t = sum(<_, i> in (0:V1_len)) { i -> V1_val(i) } in (s + s) * t",
		// the view: shorter than its array, empty, looked up, iterated, summed, scaled, merged
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in V2(0) + V2(2) + V2(3)",
		"let E = sum(<_, i> in (0:E_len)) { i -> E_val(i) } in sum(<_, i> in (0:V1_len)) { i -> E(i) }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<k, v> in V2) { k -> v * s }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<k, v> in V2) v",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in V2 + sum(<_, i> in (0:V1_len)) { i -> V1_val(i) }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<_, i> in (0:V1_len)) { i -> V2(i) } + sum(<_, i> in (0:V1_len)) { i -> V2(i) }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<_, i> in (1:V1_len)) { unique(i) -> V2(i) }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<_, i> in (0:V1_len)) { i -> V2(i) * s }",
		"let P = sum(<_, i> in (0:V_len)) { i -> V_row(i) } in sum(<k, r> in P) { r -> 1.0 }",
		"sum(<_, i> in (1:V2_len)) { i -> V2_val(i) }",
		// range keys: under a let, under an if, a let rebinding the binder, a unique key, duplicate coordinates
		"sum(<_, i> in (0:V1_len)) let w = V1_val(i) * s in { i -> w }",
		"sum(<_, i> in (0:V1_len)) if V1_val(i) != 0 then { i -> V1_val(i) }",
		"sum(<_, i> in (0:V1_len)) let i = 0 in { i -> 1.0 }",
		"sum(<_, i> in (0:V1_len)) { unique(i) -> { i -> V1_val(i) } }",
		"sum(<_, i> in (0:V_len)) { V_row(i) -> V_val(i) }",
		"sum(<_, i> in (0:V_len)) { V_row(i) -> { V_row(i) -> V_val(i) } }",
		"sum(<i, x> in (0:V_len)) { x -> { i -> 1.0 } }",
		// BATAx and SMVM as fuse gives them
		"sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) } in sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> beta * v * v1 } }",
		"sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }",
	}
	for _, src := range srcs {
		for _, o := range optionSets {
			agree(t, src, b, o)
		}
		e := sdql.MustParse(src)
		want, err := sdql.Eval(e, b)
		if err != nil {
			t.Fatal(err)
		}
		if d, ok := want.(*sdql.Dict); ok && sdql.Order(sdql.TypeOfValue(want)) >= 1 {
			n := 0
			d.Range(func(k int, _ sdql.Value) bool { n = max(n, k+1); return true })
			agree(t, src, b, Options{ResultShape: []int{max(n, 4)}})
		}
	}
}

// TestViewOutOfRange: a view longer than its array runs the general path:
// it agrees with the interpreter (a missing position reads 0) or, as
// before, reports the array shorter than its length as a violation.
func TestViewOutOfRange(t *testing.T) {
	b := map[string]sdql.Value{"V2_len": sdql.Int(5), "V2_val": sdql.RealArray{1, 2}, "V1_len": sdql.Int(4)}
	for _, src := range []string{
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in sum(<_, i> in (0:V1_len)) { i -> V2(i) }",
		"let V2 = sum(<_, i1> in (0:V2_len)) { i1 -> V2_val(i1) } in 2.0 * V2",
	} {
		e := sdql.MustParse(src)
		for _, o := range optionSets {
			k, err := CompileFor(e, b, o)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := sdql.Eval(e, b)
			if r, err := k.Run(b); err == nil && !sdql.Equal(r.Value(), want) {
				t.Errorf("%+v: disagrees with the interpreter\n%s", o, src)
			}
		}
	}
}
