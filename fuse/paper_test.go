package fuse

import (
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

var (
	vecT = &sdql.DictType{Key: sdql.IntType, Val: sdql.RealType}
	matT = &sdql.DictType{Key: sdql.IntType, Val: vecT}
	iarr = &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.IntType}
	rarr = &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.RealType}
)

func physTypes(names map[string]string) map[string]sdql.Type {
	out := map[string]sdql.Type{}
	for n, kind := range names {
		switch kind {
		case "int":
			out[n] = sdql.IntType
		case "ints":
			out[n] = iarr
		case "reals":
			out[n] = rarr
		}
	}
	return out
}

func stageOf(t *testing.T, r *Result, name string) sdql.Expr {
	t.Helper()
	for _, s := range r.Stages {
		if s.Name == name {
			return s.Program
		}
	}
	t.Fatalf("no stage %s", name)
	return nil
}

func wantAlpha(t *testing.T, what string, got sdql.Expr, want string) {
	t.Helper()
	if w := sdql.MustParse(want); !sdql.AlphaEqual(got, w) {
		t.Errorf("%s:\ngot  %s\nwant %s", what, sdql.PrintFlat(got), sdql.PrintFlat(w))
	}
}

// TestPaperExamples checks the worked examples of sections 5.2–5.4 as the
// paper prints them, up to renaming.
func TestPaperExamples(t *testing.T) {
	ex1 := sdql.MustParse(`let V1' = sum(<i, a> in V1) {i -> {i -> 1}}
let V2' = {}
sum(<i, a> in V2)
  let <i', a'> = <{}, V2'(i)> in
    V1(i) * a' + V1'(i) * a`)
	// The paper's vectors have one dimension, so V2's keys are V1's.
	cfg := &Config{Inputs: map[string]sdql.Type{"V1": vecT, "V2": vecT}, Dense: map[string]bool{"V1": true},
		Dims: map[string][]int{"V1": {4}, "V2": {4}},
		Defs: map[string]sdql.Expr{
			"V1": sdql.MustParse(defText("dense", "V1", 1)),
			"V2": sdql.MustParse(defText("coo", "V2", 1))},
		PhysInputs: physTypes(map[string]string{"V1_len": "int", "V1_val": "reals", "V2_len": "int", "V2_row": "ints", "V2_val": "reals"})}
	res, err := Optimize(ex1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, "example 1 after sparsity propagation", stageOf(t, res, StageSparsity),
		`let V1' = sum(<i, a> in V1) {i -> {i -> 1}} in sum(<i, a> in V2) V1'(i) * a`)
	wantAlpha(t, "example 1 saturated", stageOf(t, res, StageSaturated), `V2`)
	wantAlpha(t, "example 1 with V2 in COO", res.Program, `sum(<_, i> in (0:V2_len)) { V2_row(i) -> V2_val(i) }`)

	cfg.Disabled = map[string]bool{"SumIdentity": true}
	res, err = Optimize(ex1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	wantAlpha(t, "example 1, the less optimized version", stageOf(t, res, StageSaturated), `sum(<i, a> in V2) { i -> a }`)
	wantAlpha(t, "example 1 with V2 in COO (no SumIdentity)", res.Program, `sum(<_, i> in (0:V2_len)) { V2_row(i) -> V2_val(i) }`)

	batax := sdql.MustParse(`let x' = sum(<k, _> in x) {k -> {k -> 1}}
let beta' = {}
sum(<i, r> in A)
  sum(<j, v1> in r)
    sum(<k, v2> in r)
      { j -> ((beta' * v1) * v2) * x(k) + ((beta * v1) * v2) * x'(k) }`)
	// x has as many entries as A has columns
	cfg = &Config{Inputs: map[string]sdql.Type{"A": matT, "x": vecT, "beta": sdql.RealType}, Dense: map[string]bool{"x": true},
		Dims:       map[string][]int{"A": {5, 4}, "x": {4}},
		Defs:       map[string]sdql.Expr{"A": sdql.MustParse(defText("csr", "A", 2))},
		PhysInputs: physTypes(map[string]string{"A_len": "int", "A_pos": "ints", "A_idx": "ints", "A_val": "reals"})}
	start := time.Now()
	res, err = Optimize(batax, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("BATAx optimized in %v", time.Since(start))
	wantAlpha(t, "BATAx saturated", stageOf(t, res, StageSaturated), `beta * (sum(<i, r> in A) r * r)`)
	wantAlpha(t, "BATAx with A in CSR", stageOf(t, res, StageComposed), `beta * sum(<_, i> in (0:A_len))
  let r = sum(<p, j> in A_idx(A_pos(i):A_pos((i + 1)))) { unique(j) -> A_val(p) } in
  r * r`)
	wantAlpha(t, "BATAx normalized (section 5.4)", res.Program, `sum(<_, i> in (0:A_len))
  let r = sum(<p, j> in A_idx(A_pos(i):A_pos((i + 1))))
    { j -> A_val(p) } in
  sum(<i1, v1> in r) { i1 ->
    sum(<i2, v2> in r)
      { i2 -> beta * v1 * v2 } }`)
}
