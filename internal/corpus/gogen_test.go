package corpus

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// goRun is a corpus program over inputs, with the interpreter's result,
// to run through generated Go.
type goRun struct {
	where  string
	prog   sdql.Expr
	inputs map[string]sdql.Value
	want   sdql.Value
}

// goRuns collects what TestCorpusAcrossExecutors compiles.
var goRuns []goRun

// checkGeneratedGo lowers every collected program (each distinct program
// and inputs once), generates its Go kernel (gogen), builds and runs them
// all in one program, and compares each result with the interpreter's as
// a dictionary, as the compiled kernel's is.
func checkGeneratedGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Log("-short: not building the corpus's generated Go")
		return
	}
	start := time.Now()
	// in a fixed order, so that the generated program is the same from
	// run to run and its build cached
	sort.SliceStable(goRuns, func(i, j int) bool { return goRuns[i].where < goRuns[j].where })
	seen := map[string]bool{}
	kernels := map[string]*gogen.Kernel{} // by program and input types
	var cases []gorun.Case
	var runs []goRun
	for _, r := range goRuns {
		prog := sdql.Print(r.prog)
		if key := prog + "\n" + bindingsKey(r.inputs, true); seen[key] {
			continue
		} else {
			seen[key] = true
		}
		key := prog + "\n" + bindingsKey(r.inputs, false)
		k, ok := kernels[key]
		if !ok {
			var err error
			k, _, err = gorun.Generate(r.prog, gorun.TypesOf(r.inputs), lower.Options{},
				gogen.Options{Func: fmt.Sprintf("K%d", len(kernels)), Package: "main", Workspace: len(kernels)%2 == 1})
			if err != nil {
				t.Errorf("%s: generating Go: %v\n%s", r.where, err, prog)
				continue
			}
			kernels[key] = k
		}
		cases = append(cases, gorun.Case{Name: r.where, Kernel: k, Inputs: r.inputs})
		runs = append(runs, r)
	}
	generated := time.Since(start)
	wants := make([]sdql.Value, len(runs))
	for i, r := range runs {
		wants[i] = r.want
	}
	gorun.Check(t, cases, wants, func(i int) string { return sdql.Print(runs[i].prog) })
	t.Logf("%d distinct programs over their inputs through %d generated kernels: generated in %v, built and run in %v",
		len(cases), len(kernels), generated.Round(time.Millisecond), (time.Since(start) - generated).Round(time.Millisecond))
}

// bindingsKey prints the types of bindings, and their values with values,
// in a canonical order.
func bindingsKey(in map[string]sdql.Value, values bool) string {
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		fmt.Fprintf(&b, "%s: %T %v", n, in[n], sdql.TypeOfValue(in[n]))
		if values {
			b.WriteString(" = " + sdql.FormatValue(in[n]))
		}
		b.WriteByte('\n')
	}
	return b.String()
}
