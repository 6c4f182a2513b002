package exec_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// physical composes prog with the definitions of the tensor inputs of
// sdqltest.GenInputs stored in random formats: the unfused physical
// program over the formats' arrays.
func physical(t *testing.T, r *rand.Rand, prog string, in map[string]sdql.Value) (string, map[string]sdql.Value) {
	t.Helper()
	shapes := map[string][]int{"M": {4, 5}, "V": {5}, "W": {5}}
	tensors := map[string]*formats.Tensor{}
	for _, n := range []string{"M", "V", "W"} { // in order: the seed fixes the formats
		fs := formats.ForOrder(len(shapes[n]))
		tensors[n] = exec.TensorOf(t, in[n], shapes[n], fs[r.IntN(len(fs))])
	}
	return exec.Composed(t, prog, tensors, map[string]sdql.Value{"s": in["s"]})
}

// TestGenerateGoRandom: the general translation of random programs of
// sdqltest.Gen, logical over dictionaries and composed with random
// storage formats, and the specialized layouts GenerateGoKernel picks for
// those it covers, agree with the interpreter (one build for all).
func TestGenerateGoRandom(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated Go")
	}
	r := rand.New(rand.NewPCG(7, 11))
	type item struct {
		src  string
		want sdql.Value
	}
	var cases []gorun.Case
	var items []item
	specialized := 0
	for i := 0; len(cases)-specialized < 300; i++ {
		g := &sdqltest.Gen{R: r, Funcs: sdqltest.AllFuncs}
		src := g.Program([]string{"real", "vec", "mat"}[r.IntN(3)], 4)
		inputs := sdqltest.GenInputs(r)
		if i%2 == 1 {
			src, inputs = physical(t, r, src, inputs)
		}
		prog, err := sdql.Parse("gen.sdql", src)
		if err != nil {
			t.Fatalf("%v\n%s", err, src)
		}
		want, err := sdql.Eval(prog, inputs)
		if err != nil {
			continue // e.g. a sub-array out of range
		}
		k, err := exec.GenerateGoValue(prog, inputs, fmt.Sprintf("k%d", i), exec.GoOptions{Package: "main"})
		if err != nil {
			t.Errorf("generating Go: %v\n%s", err, src)
			continue
		}
		if msg := scalarDrift(want, k); msg != "" {
			t.Errorf("%s\n%s", msg, src)
		}
		cases = append(cases, gorun.Case{Name: fmt.Sprintf("program %d", i), Kernel: k, Inputs: inputs})
		items = append(items, item{src, want})
		// and through the entry point, where a specialized layout applies
		k, err = exec.GenerateGoKernel(prog, nil, inputs, fmt.Sprintf("s%d", i), exec.GoOptions{Package: "main"})
		if err != nil {
			t.Errorf("generating Go: %v\n%s", err, src)
			continue
		}
		if k.Layout != exec.GoValue {
			cases = append(cases, gorun.Case{Name: fmt.Sprintf("program %d (%s)", i, k.Layout), Kernel: k, Inputs: inputs})
			items = append(items, item{src, want})
			specialized++
		}
	}
	t.Logf("%d programs through the general translation, %d of them through a specialized layout too", len(cases)-specialized, specialized)
	wants := make([]sdql.Value, len(items))
	for i, it := range items {
		wants[i] = it.want
	}
	gorun.Check(t, cases, wants, func(i int) string { return items[i].src })
}
