package exec

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// tensorOf stores a logical vector or matrix value in format f.
func tensorOf(t *testing.T, v sdql.Value, shape []int, f formats.Format) *formats.Tensor {
	t.Helper()
	idx := make([][]int, len(shape))
	var val []float64
	var walk func(v sdql.Value, coords []int)
	walk = func(v sdql.Value, coords []int) {
		sdql.Entries(v, func(k int, x sdql.Value) bool {
			c := append(coords, k)
			if len(c) == len(shape) {
				for m := range c {
					idx[m] = append(idx[m], c[m])
				}
				val = append(val, float64(x.(sdql.Real)))
				return true
			}
			walk(x, c)
			return true
		})
	}
	walk(v, nil)
	ten, err := formats.FromCoords(shape, idx, val, f)
	if err != nil {
		t.Fatal(err)
	}
	return ten
}

// composed returns "let NAME = <definition> in ..." for each tensor input
// and the bindings of their containers.
func composed(t *testing.T, prog string, tensors map[string]*formats.Tensor, scalars map[string]sdql.Value) (string, map[string]sdql.Value) {
	t.Helper()
	b := map[string]sdql.Value{}
	for n, v := range scalars {
		b[n] = v
	}
	var lets strings.Builder
	for _, name := range sortedNames(tensors) {
		ten := tensors[name]
		def, err := formats.Definition(ten.Format, name, ten.Order())
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&lets, "let %s = %s in\n", name, def)
		m, err := formats.Bind(ten, name)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range m {
			b[k] = v
		}
	}
	return lets.String() + prog, b
}

// agree compiles and runs src over the bindings and compares the result
// with the reference interpreter.
func agree(t *testing.T, src string, b map[string]sdql.Value, opts Options) {
	t.Helper()
	e, err := sdql.Parse("", src)
	if err != nil {
		t.Fatalf("parse: %v\n%s", err, src)
	}
	want, err := sdql.Eval(e, b)
	if err != nil {
		t.Fatalf("interpreter: %v\n%s", err, src)
	}
	k, err := CompileFor(e, b, opts)
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	res, err := k.Run(b)
	if err != nil {
		t.Fatalf("run: %v\n%s", err, src)
	}
	got := res.Value()
	if !sdql.Equal(got, want) {
		t.Fatalf("opts %+v: got %s, want %s\n%s", opts, sdql.FormatValue(got), sdql.FormatValue(want), src)
	}
	// a second run into the same destination gives the same result
	if err := k.RunInto(res, b); err != nil {
		t.Fatalf("rerun: %v", err)
	}
	if got := res.Value(); !sdql.Equal(got, want) {
		t.Fatalf("rerun: got %s, want %s\n%s", sdql.FormatValue(got), sdql.FormatValue(want), src)
	}
}

var optionSets = []Options{
	{},
	{NoFast: true},
	{Opt: "none"},
	{NoDense: true, Dict: "map"},
	{Dict: "swiss"},
	{Threads: 2},
}

// TestGeneratedCorpus runs random logical programs of sdqltest.Gen,
// composed with the definitions of random storage formats of their inputs
// (unfused physical programs), through the compiler and the interpreter.
func TestGeneratedCorpus(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	vecFormats := formats.ForOrder(1)
	matFormats := formats.ForOrder(2)
	n := 400
	if testing.Short() {
		n = 100
	}
	ran := 0
	defer func() {
		if ran < n/2 {
			t.Errorf("only %d of %d generated programs ran", ran, n)
		}
	}()
	for i := 0; i < n; i++ {
		g := &sdqltest.Gen{R: r}
		typ := []string{"real", "vec", "mat"}[r.IntN(3)]
		prog := g.Program(typ, 4)
		in := sdqltest.GenInputs(r)
		tensors := map[string]*formats.Tensor{
			"V": tensorOf(t, in["V"], []int{5}, vecFormats[r.IntN(len(vecFormats))]),
			"W": tensorOf(t, in["W"], []int{5}, vecFormats[r.IntN(len(vecFormats))]),
			"M": tensorOf(t, in["M"], []int{4, 5}, matFormats[r.IntN(len(matFormats))]),
		}
		src, b := composed(t, prog, tensors, map[string]sdql.Value{"s": in["s"]})
		// programs that do not use every input still get all bindings
		e, err := sdql.Parse("", src)
		if err != nil {
			t.Fatalf("parse: %v\n%s", err, src)
		}
		if _, err := sdql.Eval(e, b); err != nil {
			continue // e.g. a sub-array out of range in a generated program
		}
		ran++
		agree(t, src, b, optionSets[i%len(optionSets)])
		// the logical program over logical inputs too
		agree(t, prog, in, optionSets[(i+1)%len(optionSets)])
	}
}
