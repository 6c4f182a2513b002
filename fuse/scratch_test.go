package fuse

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

func TestScratch(t *testing.T) {
	vec := &sdql.DictType{Key: sdql.IntType, Val: sdql.RealType}
	mat := &sdql.DictType{Key: sdql.IntType, Val: vec}
	_, vt := physBind("coo", "V2", sdql.NewDict(), []int{4})
	_, at := physBind("csr", "A", sdql.NewDict(), []int{4, 4})
	for _, tc := range []struct {
		src  string
		cfg  *Config
	}{
		{"let V1' = sum(<i, a> in V1) {i -> {i -> 1}} in sum(<i, a> in V2) V1'(i) * a",
			&Config{Inputs: map[string]sdql.Type{"V1": vec, "V2": vec}, Dense: map[string]bool{"V1": true},
				Defs: map[string]sdql.Expr{"V1": sdql.MustParse(defText("dense", "V1", 1)), "V2": sdql.MustParse(defText("coo", "V2", 1))},
				PhysInputs: merge(vt, map[string]sdql.Type{"V1_len": sdql.IntType, "V1_val": &sdql.DictType{Key: sdql.DenseIntType, Val: sdql.RealType}})}},
		{"let x' = sum(<k, _> in x) {k -> {k -> 1}} in sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * x'(k) }",
			&Config{Inputs: map[string]sdql.Type{"A": mat, "x": vec, "beta": sdql.RealType}, Dense: map[string]bool{"x": true},
				Defs: map[string]sdql.Expr{"A": sdql.MustParse(defText("csr", "A", 2))}, PhysInputs: at}},
	} {
		res, err := Optimize(sdql.MustParse(tc.src), tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println(res.Plan(), res.Fired, res.Elapsed)
	}
}

func merge(a, b map[string]sdql.Type) map[string]sdql.Type {
	out := map[string]sdql.Type{}
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = v
	}
	return out
}
