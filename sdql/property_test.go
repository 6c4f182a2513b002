package sdql_test

import (
	"math/rand/v2"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// TestPrintEvalProperty: for random programs, parse(print(e)) prints the
// same and evaluates to the same value as e.
func TestPrintEvalProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	g := &sdqlgen.Gen{R: r, Funcs: sdqlgen.AllFuncs}
	n := 3000
	if testing.Short() {
		n = 300
	}
	for i := 0; i < n; i++ {
		typ := []string{"real", "vec", "mat"}[i%3]
		src := g.Program(typ, 4)
		e, err := sdql.Parse("gen.sdql", src)
		if err != nil {
			t.Fatalf("generated program does not parse: %v\n%s", err, sdqlgen.Indent(src))
		}
		inputs := sdqlgen.GenInputs(r)
		want, err := sdql.Eval(e, inputs)
		if err != nil {
			t.Fatalf("generated program fails: %v\n%s", err, sdqlgen.Indent(src))
		}
		sdqltest.CheckRoundTrip(t, "generated", e)
		printed := sdql.Print(e)
		e2, err := sdql.Parse("printed.sdql", printed)
		if err != nil {
			t.Fatalf("printed program does not parse: %v\n%s", err, sdqlgen.Indent(printed))
		}
		if ws, _ := sdql.Lint("printed.sdql", printed); len(ws) > 0 {
			t.Fatalf("the printed program has lint warnings (the printer parenthesizes such bodies): %v\n%s", ws[0], sdqlgen.Indent(printed))
		}
		if !sdql.AlphaEqual(e, e2) {
			t.Fatalf("parse(print(e)) is not e:\n%s\n%s", sdqlgen.Indent(src), sdqlgen.Indent(printed))
		}
		got, err := sdql.Eval(e2, inputs)
		if err != nil {
			t.Fatalf("printed program fails: %v\n%s", err, sdqlgen.Indent(printed))
		}
		if !sdql.Equal(got, want) {
			t.Fatalf("eval(parse(print(e))) = %s, eval(e) = %s\n%s", sdql.FormatValue(got), sdql.FormatValue(want), sdqlgen.Indent(src))
		}
	}
}
