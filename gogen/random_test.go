package gogen_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/internal/physbind"
	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// randomCount is the number of random programs: NABLASD_GOGEN_N, else def
// (a fifth with -short).
func randomCount(def int) int {
	if s := os.Getenv("NABLASD_GOGEN_N"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			return n
		}
	}
	if testing.Short() {
		return def / 5
	}
	return def
}

// randomCase is a generated kernel with its inputs and the interpreter's
// result.
type randomCase struct {
	src  string
	prog sdql.Expr
	ir   *lower.Program
	in   map[string]sdql.Value
	want sdql.Value
	k    *gogen.Kernel
	// threads is the kernel's threads argument (gogen.Kernel.Parallel)
	threads int
}

// TestRandomPrograms: random logical programs over dictionary inputs, and
// their fuse-optimized physical programs over every storage format,
// lowered, generated as Go, built (all in one go build) and run, give the
// reference interpreter's dictionary. Every other kernel keeps its
// intermediates in a workspace; some are lowered without dense levels or
// views. A kernel with a loop marked parallel is generated again with
// Options.Parallel, splitting loops of any length, and run on 2 and 3
// goroutines too: its results must equal the interpreter's up to the order
// of floating-point additions.
func TestRandomPrograms(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	n := randomCount(300)
	var cases []randomCase
	for i := 0; i < n; i++ {
		cases = append(cases, programCases(t, r, i, len(cases))...)
	}
	checkCases(t, cases)
	// the storages this test is meant to exercise do occur
	full := 0
	for _, c := range cases {
		for _, x := range c.ir.Tensors {
			for _, l := range x.Levels {
				if l.Storage == lower.Positions && l.Full {
					full++
				}
			}
		}
	}
	t.Logf("%d kernels with a full positions level", full)
	if full == 0 && n >= 300 {
		t.Fatalf("no random kernel has a full positions level (lower.FullPositions)")
	}
}

// FuzzGenerate generates one random program per input (a seed and an
// index), lowered and generated as TestRandomPrograms does, over
// dictionaries and over formats, then builds and runs its kernels.
func FuzzGenerate(f *testing.F) {
	for i := 0; i < 4; i++ {
		f.Add(uint64(1), uint32(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, i uint32) {
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		if cases := programCases(t, r, int(i), 0); len(cases) > 0 {
			checkCases(t, cases)
		}
	})
}

// programCases generates program i from r and its kernels: over
// dictionaries, and optimized over formats (the formats rotating with i);
// the kernels are numbered from first.
func programCases(t *testing.T, r *rand.Rand, i, first int) []randomCase {
	t.Helper()
	types := map[string]sdql.Type{"V": sdql.Tensor(1), "W": sdql.Tensor(1), "M": sdql.Tensor(2), "s": sdql.RealType}
	var cases []randomCase
	add := func(src string, prog sdql.Expr, ptypes map[string]sdql.Type, in map[string]sdql.Value, want sdql.Value, lopts lower.Options) {
		n := first + len(cases)
		k, ir, err := gorun.Generate(prog, ptypes, lopts, gogen.Options{Func: fmt.Sprintf("K%d", n), Package: "main", Workspace: n%2 == 1})
		if err != nil {
			t.Fatalf("program %d: %v\n%s", i, err, src)
		}
		cases = append(cases, randomCase{src: src, prog: prog, ir: ir, in: in, want: want, k: k})
		if !hasParallel(ir) {
			return
		}
		pk, _, err := gorun.Generate(prog, ptypes, lopts, gogen.Options{Func: fmt.Sprintf("P%d", n), Package: "main", Workspace: n%2 == 0,
			Parallel: true, MinParallel: 2})
		if err != nil {
			t.Fatalf("program %d, parallel: %v\n%s", i, err, src)
		}
		for _, threads := range []int{2, 3} {
			cases = append(cases, randomCase{src: fmt.Sprintf("%s\n(%d threads)", src, threads), prog: prog, ir: ir, in: in, want: want, k: pk, threads: threads})
		}
	}
	g := &sdqlgen.Gen{R: r, Funcs: sdqlgen.AllFuncs}
	src := g.Program([]string{"real", "vec", "mat"}[r.IntN(3)], 4)
	in := sdqlgen.GenInputs(r)
	prog := sdql.MustParse(src)
	want, err := physbind.EvalTyped(prog, in, types)
	if err != nil {
		return nil
	}
	add(src, prog, types, in, want, lower.Options{})
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
		return cases
	}
	res, err := fuse.Optimize(prog, cfg)
	if err != nil {
		t.Fatalf("program %d: optimize: %v\n%s", i, err, src)
	}
	fs := map[string]lower.Format{}
	for n, x := range ts {
		fs[n] = lower.Format{Format: x.Format, Order: x.Order()}
	}
	// every third program hashes every level, every fifth builds every
	// let-bound dictionary (the ablations' lowerings)
	add(src+"\n(optimized)\n"+sdql.Print(res.Program), res.Program, gorun.TypesOf(phys), phys, want,
		lower.Options{Formats: fs, NoDense: i%3 == 1, NoViews: i%5 == 2})
	return cases
}

// checkCases builds and runs the cases and compares each with the
// interpreter.
func checkCases(t *testing.T, cases []randomCase) {
	t.Helper()
	gc := make([]gorun.Case, len(cases))
	for i, c := range cases {
		gc[i] = gorun.Case{Name: fmt.Sprintf("case %d", i), Kernel: c.k, Inputs: c.in, Threads: c.threads}
	}
	results, err := gorun.Run(gc)
	if err != nil {
		t.Fatal(err)
	}
	bad := 0
	for i, res := range results {
		if d := gorun.Diff(res, cases[i].want, false); d != "" {
			bad++
			if bad <= 3 {
				t.Errorf("case %d: %s\ninputs: %v\n%s\n%s\n%s", i, d, inputsString(cases[i].in), cases[i].src, lower.Print(cases[i].ir), cases[i].k.Source)
			}
		}
	}
	if bad > 0 {
		t.Errorf("%d of %d cases disagree", bad, len(cases))
	}
	t.Logf("%d kernels built and run", len(cases))
}

// hasParallel reports whether a program has a loop marked parallel.
func hasParallel(p *lower.Program) bool {
	found := false
	lower.WalkStmts(p.Body, func(s lower.Stmt) {
		if f, ok := s.(*lower.For); ok && f.Par != nil {
			found = true
		}
	})
	return found
}

func inputsString(in map[string]sdql.Value) string {
	s := ""
	for _, n := range []string{"M", "V", "W", "s"} {
		if v, ok := in[n]; ok {
			s += n + "=" + sdql.FormatValue(v) + " "
		}
	}
	return s
}
