package exec

import (
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestPhysicalPrograms runs the paper's physical program shapes (CSR
// nests, scatters, the BATAx outer product, lets of dictionaries) over
// small CSR inputs with every option set, against the interpreter.
func TestPhysicalPrograms(t *testing.T) {
	b := map[string]sdql.Value{
		"A_len": sdql.Int(3), "A_pos": sdql.IntArray{0, 2, 3, 5}, "A_idx": sdql.IntArray{0, 2, 1, 0, 2}, "A_val": sdql.RealArray{1, 2, 3, 4, 5},
		"B_len": sdql.Int(3), "B_pos": sdql.IntArray{0, 1, 1, 3}, "B_idx": sdql.IntArray{1, 0, 2}, "B_val": sdql.RealArray{6, 7, 8},
		"V_len": sdql.Int(3), "V_val": sdql.RealArray{0.5, 1.5, 2.5}, "V_row": sdql.IntArray{2, 0, 1},
		"beta": sdql.Real(0.5), "s": sdql.Real(1.5),
	}
	for _, src := range []string{
		"sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) }",
		"let s = sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) } in s(1)",
		"let s = sum(<_, i> in (0:A_len)) sum(<p, k> in A_idx(A_pos(i):A_pos(i+1))) { k -> A_val(p) } in sum(<_, k> in (0:B_len)) { unique(k) -> sum(<q, j> in B_idx(B_pos(k):B_pos(k+1))) { unique(j) -> s(k) } }",
		"sum(<_, k> in (0:B_len)) { unique(k) -> sum(<q, j> in B_idx(B_pos(k):B_pos(k+1))) { unique(j) -> 2.0 * B_val(q) } }",
		"sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> A_val(p) } in sum(<i1, v1> in r) { i1 -> sum(<i2, v2> in r) { i2 -> beta * v1 * v2 } }",
		"beta * sum(<_, i> in (0:A_len)) let r = sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> A_val(p) } in r * r",
		"sum(<_, i> in (0:V_len)) { unique(i) -> { unique(i) -> 1.0 } }",
		"sum(<_, i> in (0:V_len)) { unique(V_row(i)) -> { unique(V_row(i)) -> 1.0 } }",
		"sum(<_, i> in (0:V_len)) { unique(i) -> 2.0 * s * V_val(i) }",
		"sum(<_, i> in (0:V_len)) { V_row(i) -> V_val(i) }",
		"sum(<_, i> in (0:A_len)) { unique(i) -> sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) A_val(p) * V_val(j) }",
		"sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> { i -> A_val(p) } }",
		"sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) A_val(p) * V_val(j) * s",
		"sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> A_val(p) * V_val(j) } + sum(<_, i> in (0:V_len)) { unique(i) -> V_val(i) }",
	} {
		for _, o := range optionSets {
			agree(t, src, b, o)
		}
	}
}

func TestResultTensor(t *testing.T) {
	b := map[string]sdql.Value{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0, 2, 3}, "A_idx": sdql.IntArray{0, 2, 1}, "A_val": sdql.RealArray{1, 2, 3}}
	e, err := sdql.Parse("", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> { i -> A_val(p) } }")
	if err != nil {
		t.Fatal(err)
	}
	k, err := CompileFor(e, b, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r, err := k.Run(b)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range formats.ForOrder(2) {
		ten, err := r.Tensor(f, 3, 2)
		if err != nil {
			t.Fatal(err)
		}
		if !sdql.Equal(formats.ToValue(ten), r.Value()) {
			t.Errorf("%s: tensor differs from the value", f)
		}
	}
}

// TestBadInputs: inputs violating their format give errors, not panics
// (the general closure path follows the interpreter: a lookup out of an
// array gives 0, so a short val is not an error there).
func TestBadInputs(t *testing.T) {
	e, err := sdql.Parse("", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i+1))) { j -> A_val(p) }")
	if err != nil {
		t.Fatal(err)
	}
	good := map[string]sdql.Value{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0, 2, 3}, "A_idx": sdql.IntArray{0, 2, 1}, "A_val": sdql.RealArray{1, 2, 3}}
	bad := []map[string]sdql.Value{
		{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0, 3, 2}, "A_idx": sdql.IntArray{0, 2, 1}, "A_val": sdql.RealArray{1, 2, 3}},  // pos not monotone
		{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0, 2, 5}, "A_idx": sdql.IntArray{0, 2, 1}, "A_val": sdql.RealArray{1, 2, 3}},  // pos past idx
		{"A_len": sdql.Int(3), "A_pos": sdql.IntArray{0, 2, 3}, "A_idx": sdql.IntArray{0, 2, 1}, "A_val": sdql.RealArray{1, 2, 3}},  // len past pos
		{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0, 2, 3}, "A_idx": sdql.IntArray{0, 2, 1}, "A_val": sdql.RealArray{1}},        // val short
		{"A_len": sdql.Int(2), "A_pos": sdql.IntArray{0, 2, 3}, "A_idx": sdql.IntArray{0, -7, 1}, "A_val": sdql.RealArray{1, 2, 3}}, // negative index
	}
	for _, opts := range []Options{{}, {NoFast: true}, {NoValidate: true}, {ResultShape: []int{3}}} {
		k, err := CompileFor(e, good, opts)
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range bad {
			if _, err := k.Run(b); err == nil && !(i == 4 && opts.ResultShape == nil) && !(opts.NoValidate && i <= 1) && !(opts.NoFast && (i == 1 || i == 3)) {
				t.Errorf("%+v: bad input %d: no error", opts, i)
			}
		}
	}
	if _, err := Compile(e, map[string]sdql.Type{}, Options{}); err == nil {
		t.Error("compile without inputs: no error")
	}
}
