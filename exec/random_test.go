package exec

import (
	"math/rand/v2"
	"os"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/internal/physbind"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestRandomPrograms: random logical programs over dictionary inputs, and
// their fuse-optimized physical programs over every storage format, give
// the reference interpreter's dictionary, run twice into one destination.
func TestRandomPrograms(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	n := 1500
	if testing.Short() {
		n = 300
	}
	types := map[string]sdql.Type{"V": sdql.Tensor(1), "W": sdql.Tensor(1), "M": sdql.Tensor(2), "s": sdql.RealType}
	for i := 0; i < n; i++ {
		g := &sdqltest.Gen{R: r}
		src := g.Program([]string{"real", "vec", "mat"}[r.IntN(3)], 4)
		in := sdqltest.GenInputs(r)
		prog := sdql.MustParse(src)
		want, err := physbind.EvalTyped(prog, in, types)
		if err != nil {
			continue
		}
		agree(t, i, src, prog, types, in, want, Options{})
		// every dictionary hashed, through each hash index in turn, with
		// and without destination passing
		agree(t, i, src+"\n(hashed)", prog, types, in, want,
			Options{NoDense: true, Dict: []string{"intmap", "map", "swiss"}[i%3], Opt: []string{"dps", "none"}[i%2]})
		round := i % 7
		ts := map[string]*formats.Tensor{}
		for j, name := range []string{"M", "V", "W"} {
			shape := []int{5}
			if name == "M" {
				shape = []int{4, 5}
			}
			fs := formats.ForOrder(len(shape))
			ts[name] = physbind.TensorFrom(t, in[name], shape, fs[(round+j)%len(fs)])
		}
		phys, logical, cfg := physbind.BindFormats(t, ts, in["s"])
		want, err = physbind.EvalTyped(prog, logical, types)
		if err != nil {
			continue
		}
		res, err := fuse.Optimize(prog, cfg)
		if err != nil {
			t.Fatalf("program %d: optimize: %v\n%s", i, err, src)
		}
		fs := map[string]lower.Format{}
		for n, x := range ts {
			fs[n] = lower.Format{Format: x.Format, Order: x.Order()}
		}
		ptypes := map[string]sdql.Type{}
		for n, v := range phys {
			ptypes[n] = sdql.TypeOfValue(v)
		}
		agree(t, i, src+"\n(optimized)\n"+sdql.Print(res.Program), res.Program, ptypes, phys, want, Options{Formats: fs})
		// and on three workers, every loop marked parallel split
		agree(t, i, src+"\n(optimized, 3 threads)\n"+sdql.Print(res.Program), res.Program, ptypes, phys, want, Options{Formats: fs, Threads: 3})
	}
	t.Logf("%d kernels with a full positions level", fullPositions)
	if fullPositions == 0 {
		t.Fatalf("no random kernel has a full positions level (lower.FullPositions)")
	}
}

// TestMain splits every parallel loop, however small, merges every
// dense vector range by range and moves every appended result's rows on
// several goroutines, so that the random programs exercise the workers
// and their merges.
func TestMain(m *testing.M) {
	minParallel = 2
	minParallelMerge = 1
	minParallelCopy = 1
	minParallelTranspose = 1
	os.Exit(m.Run())
}

// fullPositions counts the kernels agree ran with a full positions level
// (lower.FullPositions), so that TestRandomPrograms can tell it exercised
// them.
var fullPositions int

func agree(t *testing.T, i int, src string, prog sdql.Expr, types map[string]sdql.Type, in map[string]sdql.Value, want sdql.Value, opts Options) {
	t.Helper()
	k, err := Compile(prog, types, opts)
	if err != nil {
		t.Fatalf("program %d: compile: %v\n%s", i, err, src)
	}
	for _, x := range k.Program().Tensors {
		if x.Order() == 2 && x.Levels[1].Storage == lower.Positions && x.Levels[1].Full {
			fullPositions++
		}
	}
	res, err := k.Run(in)
	if err != nil {
		t.Fatalf("program %d: run: %v\n%s\n%s", i, err, src, lower.Print(k.Program()))
	}
	if d := sdql.DiffDicts(res.Value(), want, 1e-9); d != "" {
		t.Fatalf("program %d: %s\ngot  %s\nwant %s\n%s\n%s\ninputs: %v", i, d, sdql.FormatValue(res.Value()), sdql.FormatValue(want), src, lower.Print(k.Program()), inputsString(in))
	}
	if err := k.RunInto(res, in); err != nil {
		t.Fatalf("program %d: rerun: %v", i, err)
	}
	if d := sdql.DiffDicts(res.Value(), want, 1e-9); d != "" {
		t.Fatalf("program %d rerun: %s\ngot  %s\nwant %s\n%s\n%s", i, d, sdql.FormatValue(res.Value()), sdql.FormatValue(want), src, lower.Print(k.Program()))
	}
}

func inputsString(in map[string]sdql.Value) string {
	s := ""
	for _, n := range sortedNames(in) {
		s += n + "=" + sdql.FormatValue(in[n]) + " "
	}
	return s
}
