package gogen_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// TestGolden generates Go for every case of lower's golden files
// (../lower/testdata/kernels.txt and workloads.txt: the loops of the
// paper's kernels and of the shared workloads, read in place), builds
// and runs them all in one build, and compares each result with the
// reference interpreter's (sdql.Interp over the same plan). The files'
// expected output is lower's (the IR), which this test leaves as it is.
// Over the formats' arrays no kernel may use a Go map. A kernel with loops
// marked parallel is generated again with Options.Parallel, splitting
// loops of any length, and run on 2 and 3 goroutines too. shape-check=off
// prepares the program with Options.NoShapeCheck, as lower's test does.
func TestGolden(t *testing.T) {
	var runs []pending
	for _, file := range []string{"kernels.txt", "workloads.txt", "complete.txt"} {
		path := filepath.Join("..", "lower", "testdata", file)
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			if d.Cmd != "loops" {
				t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			}
			if ps, ok := goldenCase(t, d, len(runs)); ok {
				runs = append(runs, ps...)
			}
			return d.Expected
		})
	}
	if testing.Short() {
		t.Log("-short: not building the generated kernels")
		return
	}
	if len(runs) == 0 {
		t.Fatal("no golden case was generated")
	}
	cases := make([]gorun.Case, len(runs))
	for i, r := range runs {
		cases[i] = gorun.Case{Name: r.where, Kernel: r.k, Inputs: r.in, Threads: r.threads}
	}
	results, err := gorun.Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		r := runs[i]
		if d := r.diff(res); d != "" {
			t.Errorf("%s (%d threads): %s\n%s", r.where, max(r.threads, 1), d, r.k.Source)
		}
	}
}

// goldenCase generates the kernel of one golden case, and its parallel
// kernel run on 2 and 3 goroutines when it has one (false: skipped, the
// shared workloads being absent).
func goldenCase(t *testing.T, d *datadriven.TestData, n int) ([]pending, bool) {
	in, src := sdqltest.MustSplit(t, d)
	if d.HasArg("workload") {
		var name string
		d.ScanArgs(t, "workload", &name)
		b, err := os.ReadFile(filepath.Join("..", "..", "shared", "workloads", name+".sdql"))
		if err != nil {
			t.Skipf("%s: workload %s: %v (../shared absent?)", d.Pos, name, err)
			return nil, false
		}
		src = string(b)
	}
	inputs := nablasd.Inputs{}
	for n, v := range in {
		inputs[n] = v
	}
	dense := map[string]bool{}
	for _, f := range argList(d, "formats") {
		name, ten := formatArg(t, d, f, in)
		inputs[name] = ten
		dense[name] = ten.Format == formats.Dense || ten.Format == formats.DenseCol
	}
	// shape-check=off as lower's golden test reads it: lookups past an
	// input's extent read zero (VVD over a shorter V2)
	noShape := len(argList(d, "shape-check")) == 1 && argList(d, "shape-check")[0] == "off"
	q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: "prog.sdql", NoShapeCheck: noShape})
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	var wrt string
	if d.HasArg("wrt") {
		d.ScanArgs(t, "wrt", &wrt)
	}
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: wrt, Func: fmt.Sprintf("G%d", n), Package: "main"})
	if err != nil {
		t.Errorf("%s: %v", d.Pos, err)
		return nil, false
	}
	if strings.Contains(string(k.Source), "map[") {
		t.Errorf("%s: the kernel over formats uses a Go map:\n%s", d.Pos, k.Source)
	}
	var ws []string
	if wrt != "" {
		ws = []string{wrt}
	}
	plan, err := q.Plan(ws...)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	want, err := (&sdql.Interp{}).Run(plan.Program, plan.Info, plan.Bindings)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	p := pending{where: d.Pos, k: k, in: plan.Bindings, want: want, asFuncs: dense[wrt], on: onOf(q, inputs, wrt)}
	out := []pending{p}
	pk, err := q.GenerateGo(nablasd.GoOptions{Wrt: wrt, Func: fmt.Sprintf("P%d", n), Package: "main", Workspace: n%2 == 0,
		Parallel: true, MinParallel: 2})
	if err != nil {
		t.Errorf("%s: parallel: %v", d.Pos, err)
		return out, true
	}
	if pk.Parallel {
		for _, threads := range []int{2, 3} {
			p.k, p.threads = pk, threads
			out = append(out, p)
		}
	}
	return out, true
}
