package fuse

import (
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestDefinitionsFromFormats runs BATAx's gradient with A's definition
// taken from the formats package.
func TestDefinitionsFromFormats(t *testing.T) {
	defs, types, err := Definitions(map[string]Storage{"A": {formats.CSR, 2}})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := sdql.PrintFlat(defs["A"]), defText("csr", "A", 2); !sdql.AlphaEqual(defs["A"], sdql.MustParse(want)) {
		t.Errorf("definition %s, want %s", got, want)
	}
	if types["A_len"] != sdql.IntType || !sdql.TypesEqual(types["A_val"], rarr) || !sdql.TypesEqual(types["A_pos"], iarr) {
		t.Errorf("input types %v", types)
	}
	m := sdql.NewDict()
	row := sdql.NewDict()
	row.Set(1, sdql.Real(2))
	m.Set(0, row)
	st := StatsOf(map[string]sdql.Value{"A": m, "n": sdql.Int(3), "a": sdql.RealArray{1, 2}})
	if st["A"][0] != 1 || st["A"][1] != 1 || st["n"][0] != 3 || st["a"][0] != 2 {
		t.Errorf("StatsOf = %v", st)
	}
	res, err := optimizeGrad(sdql.MustParse("sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }"), "x",
		&Config{Inputs: map[string]sdql.Type{"A": matT, "x": vecT, "beta": sdql.RealType}, Dense: map[string]bool{"x": true},
			Dims: map[string][]int{"A": {3, 3}, "x": {3}}, Defs: defs, PhysInputs: types})
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, "BATAx over formats.CSR", res.Program, `sum(<_, i> in (0:A_len))
  let r = sum(<p, j> in A_idx(A_pos(i):A_pos((i + 1)))) { j -> A_val(p) } in
  sum(<i1, v1> in r) { i1 -> sum(<i2, v2> in r) { i2 -> beta * v1 * v2 } }`)
}
