package sdql_test

import (
	"math/rand/v2"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// TestHoistShareProperty: on random programs and their structural
// variants (every let inlined at its uses; every let sunk into the loops
// that use it), Hoist, Share and both give programs that type-check and
// evaluate to the same dictionaries as the program, by the reference
// interpreter; and doing either again changes nothing.
func TestHoistShareProperty(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 600
	}
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 33))
		g := &sdqltest.Gen{R: r, Funcs: sdqltest.AllFuncs, Structured: true}
		typ := []string{"real", "vec", "mat"}[seed%3]
		src := g.Program(typ, 3+int(seed%3))
		e, err := sdql.Parse("", src)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		inputs := sdqltest.GenInputs(r)
		want, err := evalTyped(e, inputs)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, src)
		}
		variants := map[string]sdql.Expr{"program": e, "inlined": sdqltest.InlineLets(e), "sunk": sdqltest.SinkLets(e)}
		for vname, v := range variants {
			steps := map[string]sdql.Expr{"": v, "hoisted": sdql.Hoist(v), "shared": sdql.Share(v)}
			steps["hoisted, shared"] = sdql.Share(steps["hoisted"])
			for step, x := range steps {
				got, err := evalTyped(x, inputs)
				if err != nil {
					t.Fatalf("seed %d, %s %s: %v\n%s\n=>\n%s", seed, vname, step, err, sdql.Print(v), sdql.Print(x))
				}
				if d := sdql.DiffDicts(got, want, 1e-9); d != "" {
					t.Fatalf("seed %d, %s %s: %s\n%s\n=>\n%s", seed, vname, step, d, sdql.Print(v), sdql.Print(x))
				}
			}
			hs := steps["hoisted, shared"]
			if again := sdql.Share(sdql.Hoist(hs)); sdql.Print(again) != sdql.Print(hs) {
				t.Errorf("seed %d, %s: not a fixed point:\n%s\n=>\n%s", seed, vname, sdql.Print(hs), sdql.Print(again))
			}
		}
	}
}

// evalTyped evaluates e over Gen's inputs with their types given (an empty
// M does not show it is a matrix).
func evalTyped(e sdql.Expr, inputs map[string]sdql.Value) (sdql.Value, error) {
	types := map[string]sdql.Type{"V": sdql.Tensor(1), "W": sdql.Tensor(1), "M": sdql.Tensor(2), "s": sdql.RealType}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: types})
	if err != nil {
		return nil, err
	}
	return (&sdql.Interp{}).Run(e, info, inputs)
}
