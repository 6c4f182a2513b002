package gogen_test

import (
	"flag"
	"fmt"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

var _ = flag.Bool // datadriven registers -rewrite

// A generated kernel of a testdata case, run after all cases were read
// (one go build for the whole file set).
type pending struct {
	where   string
	k       *gogen.Kernel
	in      map[string]sdql.Value
	want    sdql.Value // the interpreter's value, or nil
	wantErr string     // or the IR interpreter's error
	asFuncs bool
	threads int // the threads argument of a parallel kernel
	// prime binds the kernel for a run before the checked ones, into the
	// same destination and workspace (gorun.Case.Prime), or is nil
	prime map[string]sdql.Value
	// on, for a scalar program's gradient with respect to a tensor, is
	// that tensor's value: the kernel's result, completed to its stored
	// positions as the API completes it (ad.OnStoredPositions), must be
	// want completed so; the result itself may hold zeros at more of
	// them than the interpreter's (lower.Options.CompletedOn).
	on sdql.Value
}

// diff compares a run's result with the interpreter's (gorun.Diff): a
// scalar program's gradient, completed to the wrt input's stored
// positions, must be the interpreter's completed so, and otherwise equal
// it as a function (it may hold zeros at more of those positions).
func (r pending) diff(res gorun.Result) string {
	if r.on == nil || res.Err != nil || res.KernelErr != nil {
		return gorun.Diff(res, r.want, r.asFuncs)
	}
	got, want := ad.OnStoredPositions(res.Value, r.on), ad.OnStoredPositions(r.want, r.on)
	if d := sdql.DiffDicts(got, want, 1e-9); d != "" {
		return fmt.Sprintf("completed to the stored positions, generated Go %s, interpreted %s: %s",
			sdql.FormatValue(got), sdql.FormatValue(want), d)
	}
	return gorun.Diff(res, r.want, true)
}

// onOf is the value of the input wrt a gradient of q is completed to the
// stored positions of (pending.on), or nil.
func onOf(q *nablasd.Query, inputs nablasd.Inputs, wrt string) sdql.Value {
	if x, ok := inputs[wrt].(*formats.Tensor); ok && wrt != "" && q.Type() == sdql.RealType {
		return formats.ToValue(x)
	}
	return nil
}

// shortRuns are the testdata files whose kernels TestGenerate builds and
// runs under -short too: the paths of the generated Go that no other
// test of make test runs (TestRandomPrograms's programs never take
// them), so that CI runs them, on several goroutines and, in make test's
// race run, under the race detector.
var shortRuns = map[string]bool{"written_in_place.txt": true, "temps_in_result.txt": true}

// TestGenerate runs testdata/*.txt:
//
//	gen [func=NAME] [workspace] [parallel] [threads=(N, ...)] [show=(all|types)] [grep=(RE, ...)]
//	BINDINGS
//	---
//	PROGRAM
//
// lowers the program over its bindings (dictionaries, scalars, arrays
// written ints[...] and reals[...]) and prints the generated function
// (the whole file with show=all, with its types with show=types; only
// the lines matching one of the grep patterns with grep=), then the
// interpreter's result (sdql.Eval) or the IR interpreter's error
// (lower.Eval, for a program that fails). With parallel the kernel is
// generated with Options.Parallel, splitting loops of any length
// (MinParallel 2), and run on 1 goroutine and on each of threads= (2 and
// 3 by default). And
//
//	pipeline formats=(A=csr/4x4, x=dense/4) [wrt=x] [func=NAME] [workspace] [parallel] [threads=...] [prime=(n=4, ...)] [show=...] [grep=...]
//
// binds the tensors in their formats and generates through the root
// package (Query.GenerateGo), as `nablasd gen` does; with prime= the
// kernel first runs with those scalar parameters changed, into the
// destination and workspace the checked runs reuse (gorun.Case.Prime):
// what that run leaves there must not show. Every kernel is then
// built and run (in one go build), and must give the printed result, or
// fail with the printed error.
func TestGenerate(t *testing.T) {
	var runs []pending
	s := sdqltest.New()
	s.Register("gen", func(t *testing.T, d *datadriven.TestData) string {
		in, src := sdqltest.MustSplit(t, d)
		prog, err := sdql.Parse("prog.sdql", src)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		opts := genOptions(t, d, len(runs))
		k, ir, err := gorun.Generate(prog, gorun.TypesOf(in), lower.Options{}, opts)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		p := pending{where: d.Pos, k: k, in: in}
		out := show(t, d, k)
		if _, err := lower.Eval(ir, in); err != nil {
			if strings.Contains(err.Error(), "%!") {
				t.Errorf("%s: the error's message is not formatted: %v", d.Pos, err)
			}
			p.wantErr = err.Error()
			out += "error: " + err.Error() + "\n"
		} else {
			want, err := sdql.Eval(prog, in)
			if err != nil {
				t.Fatalf("%s: the interpreter fails where the IR does not: %v", d.Pos, err)
			}
			p.want = want
			out += "result: " + sdql.FormatValue(want) + "\n"
		}
		runs = append(runs, threaded(t, d, k, p)...)
		return out
	})
	s.Register("pipeline", func(t *testing.T, d *datadriven.TestData) string {
		in, src := sdqltest.MustSplit(t, d)
		inputs := nablasd.Inputs{}
		dense := map[string]bool{}
		for n, v := range in {
			inputs[n] = v
		}
		for _, f := range argList(d, "formats") {
			name, ten := formatArg(t, d, f, in)
			inputs[name] = ten
			dense[name] = ten.Format == formats.Dense || ten.Format == formats.DenseCol
		}
		q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: "prog.sdql"})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var wrt string
		if d.HasArg("wrt") {
			d.ScanArgs(t, "wrt", &wrt)
		}
		opts := genOptions(t, d, len(runs))
		k, err := q.GenerateGo(nablasd.GoOptions{Wrt: wrt, Func: opts.Func, Package: "main", Workspace: opts.Workspace,
			Parallel: opts.Parallel, MinParallel: opts.MinParallel})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var ws []string
		if wrt != "" {
			ws = []string{wrt}
		}
		plan, err := q.Plan(ws...)
		if err != nil {
			t.Fatal(err)
		}
		want, err := (&sdql.Interp{}).Run(plan.Program, plan.Info, plan.Bindings)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		p := pending{where: d.Pos, k: k, in: plan.Bindings, want: want, asFuncs: dense[wrt]}
		p.on = onOf(q, inputs, wrt)
		p.prime = primeArg(t, d, plan.Bindings)
		runs = append(runs, threaded(t, d, k, p)...)
		return show(t, d, k) + "result: " + sdql.FormatValue(want) + "\n"
	})
	s.Run(t, "testdata/*.txt")
	if testing.Short() {
		// one build of the kernels of the files no other test of make
		// test runs (a parallel loop written in place, a temporary kept
		// in the result), not of them all
		kept := runs[:0]
		for _, r := range runs {
			if shortRuns[filepath.Base(strings.SplitN(r.where, ":", 2)[0])] {
				kept = append(kept, r)
			}
		}
		t.Logf("-short: building the kernels of %d of the cases (%d files)", len(kept), len(shortRuns))
		runs = kept
	}
	cases := make([]gorun.Case, len(runs))
	for i, r := range runs {
		cases[i] = gorun.Case{Name: r.where, Kernel: r.k, Inputs: r.in, Threads: r.threads, Prime: r.prime}
	}
	results, err := gorun.Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		r := runs[i]
		where := r.where
		if r.k.Parallel {
			where += fmt.Sprintf(" (%d threads)", max(r.threads, 1))
		}
		if r.want == nil {
			if res.Err != nil || res.KernelErr == nil || res.KernelErr.Error() != r.wantErr {
				t.Errorf("%s: the kernel gives %v %v %v, want the error %s", where, res.Err, res.KernelErr, res.Value, r.wantErr)
			}
			continue
		}
		if d := r.diff(res); d != "" {
			t.Errorf("%s: %s\n%s", where, d, r.k.Source)
		}
	}
}

// genOptions reads func=, workspace and parallel; the default name is
// unique in the build.
func genOptions(t *testing.T, d *datadriven.TestData, n int) gogen.Options {
	opts := gogen.Options{Func: fmt.Sprintf("K%d", n), Package: "main", Workspace: d.HasArg("workspace")}
	if d.HasArg("parallel") {
		opts.Parallel, opts.MinParallel = true, 2
	}
	if d.HasArg("func") {
		d.ScanArgs(t, "func", &opts.Func)
		opts.Func += strconv.Itoa(n)
	}
	return opts
}

// primeArg reads prime=(NAME=VALUE, ...): the bindings in with those
// scalar parameters set to the ints or reals given (nil without prime=).
func primeArg(t *testing.T, d *datadriven.TestData, in map[string]sdql.Value) map[string]sdql.Value {
	args := argList(d, "prime")
	if args == nil {
		return nil
	}
	out := map[string]sdql.Value{}
	for n, v := range in {
		out[n] = v
	}
	for _, a := range args {
		name, val, ok := strings.Cut(a, "=")
		switch in[name].(type) {
		case sdql.Int:
			n, err := strconv.Atoi(val)
			ok = ok && err == nil
			out[name] = sdql.Int(n)
		case sdql.Real:
			x, err := strconv.ParseFloat(val, 64)
			ok = ok && err == nil
			out[name] = sdql.Real(x)
		default:
			ok = false
		}
		if !ok {
			t.Fatalf("%s: prime: want NAME=VALUE of a scalar parameter, have %q", d.Pos, a)
		}
	}
	return out
}

// threaded is the runs of a case: p, and for a kernel that takes threads
// (parallel, Kernel.Parallel) p again with each of threads= (default 2
// and 3).
func threaded(t *testing.T, d *datadriven.TestData, k *gogen.Kernel, p pending) []pending {
	if !d.HasArg("parallel") || !k.Parallel {
		return []pending{p} // no loop of the kernel runs in parallel
	}
	ns := argList(d, "threads")
	if ns == nil {
		ns = []string{"2", "3"}
	}
	out := []pending{p}
	for _, n := range ns {
		p.threads = atoi(n)
		if p.threads < 2 {
			t.Fatalf("%s: threads=%s: want at least 2", d.Pos, n)
		}
		out = append(out, p)
	}
	return out
}

// show prints the generated function (show=all: the file; show=types:
// with the types), or its lines matching grep=(...).
func show(t *testing.T, d *datadriven.TestData, k *gogen.Kernel) string {
	src := string(k.Source)
	var what string
	if d.HasArg("show") {
		d.ScanArgs(t, "show", &what)
	}
	var out string
	switch what {
	case "all":
		out = src
	case "types":
		out = src[strings.Index(src, "\nfunc "+k.Func+"(")+1:]
		if i := strings.Index(out, "\n// init empties"); i >= 0 {
			out = out[:i+1]
		}
	default:
		out = function(src, k.Func)
	}
	pats := argList(d, "grep")
	if len(pats) == 0 {
		return out
	}
	var res []*regexp.Regexp
	for _, p := range pats {
		re, err := regexp.Compile(p)
		if err != nil {
			t.Fatalf("%s: grep: %v", d.Pos, err)
		}
		res = append(res, re)
	}
	var b strings.Builder
	for _, l := range strings.Split(out, "\n") {
		for _, re := range res {
			if re.MatchString(l) {
				b.WriteString(strings.TrimSpace(l) + "\n")
				break
			}
		}
	}
	return b.String()
}

// function cuts the kernel's function out of its file.
func function(src, fn string) string {
	i := strings.Index(src, "\nfunc "+fn+"(")
	if i < 0 {
		return src
	}
	out := src[i+1:]
	if j := strings.Index(out, "\n}\n"); j >= 0 {
		out = out[:j+3]
	}
	return out
}

func argList(d *datadriven.TestData, key string) []string {
	for _, a := range d.CmdArgs {
		if a.Key == key {
			return a.Vals
		}
	}
	return nil
}

var formatRE = regexp.MustCompile(`^(\w+)=(\w+)/(\d+)(?:x(\d+))?$`)

// formatArg binds NAME=FORMAT/DIMS: the logical value of NAME (empty when
// not bound) in that format.
func formatArg(t *testing.T, d *datadriven.TestData, arg string, in map[string]sdql.Value) (string, *formats.Tensor) {
	m := formatRE.FindStringSubmatch(arg)
	if m == nil {
		t.Fatalf("%s: bad format %q (want NAME=FORMAT/DIMS)", d.Pos, arg)
	}
	f, err := formats.ByName(m[2])
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	shape := []int{atoi(m[3])}
	if m[4] != "" {
		shape = append(shape, atoi(m[4]))
	}
	v, ok := in[m[1]]
	if !ok {
		v = sdql.NewDict()
	}
	delete(in, m[1])
	idx := make([][]int, len(shape))
	var val []float64
	var walk func(v sdql.Value, coords []int)
	walk = func(v sdql.Value, coords []int) {
		var keys []int
		sdql.Entries(v, func(k int, _ sdql.Value) bool { keys = append(keys, k); return true })
		sort.Ints(keys)
		for _, k := range keys {
			x, _ := sdql.Lookup(v, k)
			c := append(coords, k)
			if len(c) == len(shape) {
				for i := range c {
					idx[i] = append(idx[i], c[i])
				}
				val = append(val, toFloat(x))
				continue
			}
			walk(x, c)
		}
	}
	walk(v, nil)
	ten, err := formats.FromCoords(shape, idx, val, f)
	if err != nil {
		t.Fatalf("%s: %s: %v", d.Pos, m[1], err)
	}
	return m[1], ten
}

func toFloat(v sdql.Value) float64 {
	switch x := v.(type) {
	case sdql.Real:
		return float64(x)
	case sdql.Int:
		return float64(x)
	}
	return 0
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}
