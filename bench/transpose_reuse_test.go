package bench

import (
	"testing"

	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/sdql"
)

// TestGeneratedTransposeReuse runs the generated BATAx (bench/gen), whose
// workspace keeps the transposition of A's structure with a copy of what
// it sorted (PFXTransposeMemo), over the same bindings again and again
// while their arrays change in place: new values, then a new structure
// in the same slices. Every run agrees with the interpreter over the
// arrays as they are then.
func TestGeneratedTransposeReuse(t *testing.T) {
	cs, err := NewCase("batax", "csr", "small", small(t))
	if err != nil {
		t.Fatal(err)
	}
	mk := gen.Bind["batax_csr"]
	if mk == nil {
		t.Fatal("bench/gen has no batax_csr (go run ./bench/cmd/gengo)")
	}
	run, value := mk(cs.Bindings)
	check := func(what string) {
		t.Helper()
		run()
		want, err := sdql.Eval(cs.Prog, cs.Bindings)
		if err != nil {
			t.Fatal(err)
		}
		if d := sdql.DiffDicts(value(), want, 1e-9); d != "" {
			t.Fatalf("%s: %s", what, d)
		}
	}
	check("first run")
	check("same arrays")
	val := cs.Bindings["A_val"].(sdql.RealArray)
	for i := range val {
		val[i] = 1 - 2*val[i]
	}
	check("new values")
	// a new structure in the same slices: every row's coordinates moved
	// to the first columns (still ascending, still in range)
	pos, idx := cs.Bindings["A_pos"].(sdql.IntArray), cs.Bindings["A_idx"].(sdql.IntArray)
	for i := 0; i+1 < len(pos); i++ {
		for p := pos[i]; p < pos[i+1]; p++ {
			idx[p] = p - pos[i]
		}
	}
	check("structure changed in place")
	check("again")
}
