package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// Structural variants of random programs: the same function written with
// its lets, with every let inlined at each of its uses (a term repeated
// where the program shares it; a term computed inside the loop that uses
// it), and with every let moved into the loops that use it (an invariant
// inside a loop, against outside it). How a program is structured must
// not decide how fast it runs (DESIGN.md): the variants must give the
// program's results and lower to the same loop IR (loopShape).

// structureInputs binds sdqltest.Gen's inputs: V a dense vector, W a
// sparse one, M a CSR matrix with an empty row, s a number.
func structureInputs(t testing.TB) nablasd.Inputs {
	t.Helper()
	v, err := formats.FromCoords([]int{5}, [][]int{{0, 1, 2, 3, 4}}, []float64{0.5, -1, 0.25, 2, 1.5}, formats.Dense)
	if err != nil {
		t.Fatal(err)
	}
	w, err := formats.FromCoords([]int{5}, [][]int{{1, 3}}, []float64{2, -0.5}, formats.COO)
	if err != nil {
		t.Fatal(err)
	}
	m, err := formats.FromCoords([]int{4, 5}, [][]int{{0, 0, 2, 2, 3}, {0, 3, 1, 4, 2}}, []float64{1, -2, 0.5, 3, 1.25}, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	return nablasd.Inputs{"V": v, "W": w, "M": m, "s": 0.75}
}

// structureVariants returns a random program and its variants, by name,
// the program first.
func structureVariants(seed uint64) []struct{ name, src string } {
	g := &sdqltest.Gen{R: rand.New(rand.NewPCG(seed, 33)), Funcs: sdqltest.AllFuncs, Structured: true}
	src := g.Program("real", 4+int(seed%2))
	e := sdql.MustParse(src)
	return []struct{ name, src string }{
		{"let-bound", src},
		{"inlined", sdql.Print(sdqltest.InlineLets(e))},
		{"sunk", sdql.Print(sdqltest.SinkLets(e))},
	}
}

// structureOutcome is what one variant gave: its loops and its results.
type structureOutcome struct {
	shape  string
	values map[string]sdql.Value
}

// usedInputs returns the inputs src reads.
func usedInputs(src string, in nablasd.Inputs) nablasd.Inputs {
	out := nablasd.Inputs{}
	for _, n := range sdql.FreeVars(sdql.MustParse(src)) {
		out[n] = in[n]
	}
	return out
}

// compileStructure plans and runs src's value and its gradient with
// respect to V (when grad).
func compileStructure(src string, in nablasd.Inputs, grad bool, opts nablasd.Options) (*structureOutcome, error) {
	opts.NoShapeCheck, opts.Exec = true, "compiled"
	in = usedInputs(src, in)
	q, err := nablasd.Prepare(src, in, &opts)
	if err != nil {
		return nil, err
	}
	out := &structureOutcome{values: map[string]sdql.Value{}}
	var shapes []string
	for _, wrt := range []string{"", "V"} {
		var ws []string
		if wrt != "" {
			if !grad {
				continue
			}
			ws = []string{wrt}
		}
		k, err := q.Compile(ws...)
		if err != nil {
			return nil, err
		}
		if k.Plan().Loops == nil {
			return nil, fmt.Errorf("no loops")
		}
		shapes = append(shapes, fmt.Sprintf("wrt %q: %s", wrt, loopShape(k.Plan().Loops, 0)))
		r := k.NewResult()
		if err := k.Run(r, in); err != nil {
			return nil, err
		}
		out.values[wrt] = r.Value()
	}
	out.shape = strings.Join(shapes, "\n")
	return out, nil
}

// checkStructure compares the variants of seed's program under opts: it
// returns the first difference ("" for none), or an error.
func checkStructure(t *testing.T, seed uint64, in nablasd.Inputs, opts nablasd.Options) string {
	t.Helper()
	vs := structureVariants(seed)
	// the gradient with respect to V where every variant reads V (a let
	// of V whose name is not used is gone once inlined)
	// and whose result is real (numbers are typed by their use: a let of
	// -2 used only as a real is a real, and an int once inlined)
	grad := true
	for _, v := range vs {
		_, reads := usedInputs(v.src, in)["V"]
		q, err := nablasd.Prepare(v.src, usedInputs(v.src, in), &nablasd.Options{NoShapeCheck: true})
		grad = grad && reads && err == nil && q.Type() == sdql.RealType
	}
	oracle, err := nablasd.Prepare(vs[0].src, usedInputs(vs[0].src, in), &nablasd.Options{NoShapeCheck: true, Opt: "none", Exec: "interp"})
	if err != nil {
		t.Fatalf("seed %d: %v\n%s", seed, err, vs[0].src)
	}
	var first *structureOutcome
	for _, v := range vs {
		got, err := compileStructure(v.src, in, grad, opts)
		if err != nil {
			t.Fatalf("seed %d, %s: %v\n%s", seed, v.name, err, v.src)
		}
		for wrt, val := range got.values {
			var ws []string
			if wrt != "" {
				ws = []string{wrt}
			}
			k, err := oracle.Compile(ws...)
			if err != nil {
				t.Fatalf("seed %d: the interpreter: %v", seed, err)
			}
			r := k.NewResult()
			if err := k.Run(r, usedInputs(vs[0].src, in)); err != nil {
				t.Fatalf("seed %d: the interpreter: %v", seed, err)
			}
			if !sdql.Equal(val, r.Value()) {
				t.Errorf("seed %d, %s, wrt %q: %s, the interpreter on the program %s\n%s", seed, v.name, wrt,
					sdql.FormatValue(val), sdql.FormatValue(r.Value()), v.src)
			}
		}
		if first == nil {
			first = got
			continue
		}
		if got.shape != first.shape {
			return fmt.Sprintf("seed %d: the %s variant lowers to\n%s\nthe program as written to\n%s\n-- program:\n%s\n-- %s:\n%s",
				seed, v.name, got.shape, first.shape, vs[0].src, v.name, v.src)
		}
	}
	return ""
}

// TestStructureLowersAlike checks that random programs and their
// structural variants give the same results (as functions, against the
// reference interpreter on the program as written) and lower to the same
// loop IR: the same primitives, the same storage of the tensors they
// build, the same transpositions and searches, and as many real
// operations in their innermost loops (loopShape), for their value and
// their gradient with respect to V.
func TestStructureLowersAlike(t *testing.T) {
	n := 200
	if testing.Short() {
		n = 30
	}
	in := structureInputs(t)
	for seed := range uint64(n) {
		if d := checkStructure(t, seed, in, nablasd.Options{}); d != "" {
			t.Error(d)
		}
	}
}

// TestStructureCatchesDisabledPasses shows that the check of
// TestStructureLowersAlike fails without the passes it relies on: with
// invariant code motion off (Options.NoHoist), and with sharing off
// (Options.NoShare), some random program's variants lower differently.
func TestStructureCatchesDisabledPasses(t *testing.T) {
	in := structureInputs(t)
	for _, c := range []struct {
		name string
		opts nablasd.Options
	}{{"NoHoist", nablasd.Options{NoHoist: true}}, {"NoShare", nablasd.Options{NoShare: true}}} {
		found := ""
		for seed := range uint64(200) {
			if d := checkStructure(t, seed, in, c.opts); d != "" {
				found = d
				break
			}
		}
		if found == "" {
			t.Errorf("with %s, the variants of 200 programs lower alike: the check cannot tell the pass is off", c.name)
			continue
		}
		t.Logf("with %s: %s", c.name, strings.SplitN(found, "\n", 2)[0])
	}
}
