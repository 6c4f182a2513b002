package lower_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/jit"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// The golden files of testdata/ pin the loop IR that programs lower to
// through the whole pipeline (the root package's Plan: differentiate,
// optimize, fuse with the formats, lower), in the shared data-driven
// vocabulary:
//
//	loops [wrt=X] formats=(A=csr/4x3, x=dense/3) [workload=NAME]
//	      expect=(SegAccum, appended, ...) expect-not=(hash, ...)
//	A = {...}
//	x = {...}
//	---
//	program
//	----
//	the IR (lower.Print)
//
// wrt=(X, Y) differentiates with respect to the inputs named (one reverse
// sweep), value=on computes the value too, in the same kernel
// (Query.PlanDerivative with Derivative.Value: a fit's kernel); every
// result is compared.
//
// pass=NAME says the case pins lowering pass NAME (lower.Passes): the IR
// must change when NAME is disabled, and the kernel without it must still
// agree with the interpreter. off=(NAME, ...) lowers with those passes
// disabled (Options.DisablePasses).
//
// scope=steady holds expect= and expect-not= to the innermost loops a
// partition made its steady state (printed "steady"): where index
// arithmetic's tests held, so that expect-not=(select) says the stencil's
// inner loop has no test, whatever its boundary loops keep.
// scope=nest holds them to the outermost loops marked steady, with all
// they contain: a partitioned outer loop whose steady state runs its
// inner loops whole computes no bounds in it (expect-not=(select, hi)).
//
// expect= names words that must occur in the IR (primitive names such as
// SegDot, storages such as appended, statements such as transpose) and
// expect-not= words that must not: what a change must keep, whatever else
// it changes. shape-check=off turns the inputs' shape check off
// (Options.NoShapeCheck: lookups past an input's extent read zero).
// structure=off lowers the program as it is written, without the
// pipeline's invariant code motion and sharing (Options.NoHoist,
// NoShare): what lowering does with a program they would have changed.
// mode=MODE differentiates in MODE (Options.Mode: forward, reverse;
// default auto), as bench and the paper run the six kernels in forward
// mode. workload=NAME takes the program from
// ../shared/workloads/NAME.sdql (the input after --- is then empty; the
// case is skipped where the shared folder is absent): the workloads are
// read in place, never copied. Every case also runs the compiled kernel,
// the JIT (where plugins load) and the reference interpreter over the same
// inputs and compares them.
func TestGolden(t *testing.T) {
	s := sdqltest.New()
	s.Register("loops", runLoops)
	s.Run(t, "testdata/*.txt")
}

// workloadsDir is where the shared workloads are.
var workloadsDir = filepath.Join("..", "..", "shared", "workloads")

func runLoops(t *testing.T, d *datadriven.TestData) string {
	bindings, src := sdqltest.MustSplit(t, d)
	if name := argOne(d, "workload"); name != "" {
		b, err := os.ReadFile(filepath.Join(workloadsDir, name+".sdql"))
		if err != nil {
			t.Skipf("%s:%d: workload %s: %v (../shared absent?)", d.Pos, 0, name, err)
		}
		src = string(b)
	}
	inputs := nablasd.Inputs{}
	for n, v := range bindings {
		inputs[n] = v
	}
	for _, f := range argList(d, "formats") {
		name, spec, ok := strings.Cut(f, "=")
		if !ok {
			t.Fatalf("%s: formats: want NAME=FORMAT/SHAPE, have %q", d.Pos, f)
		}
		v, ok := bindings[name]
		if !ok {
			t.Fatalf("%s: formats: %s is not bound", d.Pos, name)
		}
		inputs[name] = tensorOf(t, d, v, spec)
	}
	wrt := argList(d, "wrt")
	value := argOne(d, "value") == "on"
	noShape := argOne(d, "shape-check") == "off"
	asWritten := argOne(d, "structure") == "off"
	mode := argOne(d, "mode")
	off := argList(d, "off")
	loops := func(off []string) (string, error) {
		q, err := nablasd.Prepare(src, inputs, &nablasd.Options{NoShapeCheck: noShape, DisablePasses: off, NoHoist: asWritten, NoShare: asWritten, Mode: mode})
		if err != nil {
			return "", err
		}
		p, err := q.Plan(wrt...)
		if value {
			p, err = q.PlanDerivative(&nablasd.Derivative{Wrt: wrt, Value: true})
		}
		if err != nil {
			return "", err
		}
		if p.Loops == nil {
			t.Fatalf("%s: no loops stage", d.Pos)
		}
		return lower.Print(p.Loops), nil
	}
	out, err := loops(off)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	for _, pass := range argList(d, "pass") {
		without, err := loops(append(off[:len(off):len(off)], pass))
		if err != nil {
			t.Fatalf("%s: without %s: %v", d.Pos, pass, err)
		}
		if without == out {
			t.Errorf("%s: the case pins pass %s, but the loops are the same without it", d.Pos, pass)
		}
		compareRuns(t, d, src, inputs, wrt, value, mode, noShape, asWritten, append(off[:len(off):len(off)], pass), false)
	}
	scope := out
	if argOne(d, "scope") == "steady" {
		inner := steadyInnerLoops(out)
		if len(inner) == 0 {
			t.Errorf("%s: scope=steady, but no loop is a partition's steady state:\n%s", d.Pos, out)
		}
		scope = strings.Join(inner, "\n")
	}
	if argOne(d, "scope") == "nest" {
		nests := steadyNests(out)
		if len(nests) == 0 {
			t.Errorf("%s: scope=nest, but no loop is a partition's steady state:\n%s", d.Pos, out)
		}
		scope = strings.Join(nests, "\n")
	}
	for _, w := range argList(d, "expect") {
		if !strings.Contains(scope, w) {
			t.Errorf("%s: expected %q in the loops:\n%s", d.Pos, w, scope)
		}
	}
	for _, w := range argList(d, "expect-not") {
		if strings.Contains(scope, w) {
			t.Errorf("%s: did not expect %q in the loops:\n%s", d.Pos, w, scope)
		}
	}
	compareRuns(t, d, src, inputs, wrt, value, mode, noShape, asWritten, off, true)
	return out
}

// steadyNests returns the printed bodies of the outermost loops marked
// steady that no boundary loop encloses: what scope=nest holds expect=
// and expect-not= to.
func steadyNests(out string) []string {
	lines := strings.Split(out, "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	var nests []string
	var open []int // the enclosing loops' lines
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		for len(open) > 0 && indent(l) <= indent(lines[open[len(open)-1]]) && strings.TrimSpace(l) != "}" {
			open = open[:len(open)-1]
		}
		if !strings.HasPrefix(strings.TrimLeft(l, " "), "for ") {
			continue
		}
		if !strings.Contains(l, "steady") || len(open) > 0 {
			open = append(open, i)
			continue
		}
		j := i + 1
		for j < len(lines) && !(indent(lines[j]) == indent(l) && strings.HasPrefix(strings.TrimLeft(lines[j], " "), "}")) {
			j++
		}
		nests = append(nests, strings.Join(lines[i+1:min(j, len(lines))], "\n"))
		i = j
	}
	return nests
}

// steadyInnerLoops returns the printed innermost loops (for statements
// with no loop inside) marked steady, partitions' steady states
// (AffineGuards): what scope=steady holds expect= and expect-not= to, the
// inner loops that run where every test of index arithmetic held.
func steadyInnerLoops(out string) []string {
	lines := strings.Split(out, "\n")
	indent := func(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }
	isLoop := func(l string) bool { return strings.HasPrefix(strings.TrimLeft(l, " "), "for ") }
	// end is the line closing the block opened at line i
	end := func(i int) int {
		for j := i + 1; j < len(lines); j++ {
			if indent(lines[j]) == indent(lines[i]) && strings.HasPrefix(strings.TrimLeft(lines[j], " "), "}") {
				return j
			}
		}
		return len(lines) - 1
	}
	var inner []string
	seen := map[int]bool{}
	for i, l := range lines {
		if !isLoop(l) || !strings.Contains(l, "steady") {
			continue
		}
		e := end(i)
		for a := i; a <= e; a++ {
			if !isLoop(lines[a]) || seen[a] || !strings.Contains(lines[a], "steady") {
				continue
			}
			b := end(a)
			nested := false
			for c := a + 1; c < b; c++ {
				nested = nested || isLoop(lines[c])
			}
			if !nested {
				seen[a] = true
				inner = append(inner, strings.Join(lines[a:b+1], "\n"))
			}
		}
	}
	return inner
}

// compareRuns runs the program (or its gradient) compiled (the closures,
// then with jit the JIT where plugins load) with the lowering passes off
// disabled (and as written: asWritten), and through the reference
// interpreter, and compares them.
func compareRuns(t *testing.T, d *datadriven.TestData, src string, inputs nablasd.Inputs, wrt []string, value bool, mode string, noShape, asWritten bool, off []string, jit bool) {
	run := func(o *nablasd.Options) sdql.Value {
		o.NoShapeCheck, o.Mode = noShape, mode
		o.NoHoist, o.NoShare = asWritten, asWritten
		if o.Exec != "interp" {
			o.DisablePasses = off
		}
		q, err := nablasd.Prepare(src, inputs, o)
		if err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		defer func() {
			for _, w := range q.Warnings() {
				if o != nil && o.Exec == "jit" && strings.Contains(w, "JIT") {
					t.Errorf("%s: %s", d.Pos, w)
				}
			}
		}()
		if len(wrt) == 0 {
			r, err := q.Value()
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			return r.Value()
		}
		var rs []*nablasd.Result
		if value {
			v, gs, err := q.ValueAndGrad(wrt...)
			if err != nil {
				t.Fatalf("%s: %v", d.Pos, err)
			}
			rs = append([]*nablasd.Result{v}, gs...)
		} else if rs, err = q.Grad(wrt...); err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
		if len(rs) == 1 {
			return rs[0].Value()
		}
		// several results (value=on, wrt=(U, W)): one dictionary of them,
		// in order, so that every one is compared
		all := sdql.NewDict()
		for i, r := range rs {
			all.Set(i, r.Value())
		}
		return all
	}
	// the closures by name: Options{} (auto) would run a native kernel
	// where the JIT's cache holds one from an earlier run
	got, want := run(&nablasd.Options{Exec: "compiled"}), run(&nablasd.Options{Exec: "interp"})
	if diff := sdql.DiffDicts(got, want, 1e-9); diff != "" {
		t.Errorf("%s: the compiled kernel and the interpreter differ: %s\ncompiled    %s\ninterpreter %s",
			d.Pos, diff, sdql.FormatValue(got), sdql.FormatValue(want))
	}
	if !jit {
		return
	}
	if why := jitUnavailable(); why != "" {
		t.Logf("%s: the JIT is not checked: %s", d.Pos, why)
		return
	}
	got = run(&nablasd.Options{Exec: "jit"})
	if diff := sdql.DiffDicts(got, want, 1e-9); diff != "" {
		t.Errorf("%s: the JIT and the interpreter differ: %s\njit         %s\ninterpreter %s",
			d.Pos, diff, sdql.FormatValue(got), sdql.FormatValue(want))
	}
}

var (
	jitOnce sync.Once
	jitWhy  string
)

// jitUnavailable says why this process cannot load plugins ("" when it
// can): a plugin of a trivial source is built and loaded once. Where it
// can, every golden case also runs through the JIT (Options.Exec "jit"),
// which must then not fall back.
func jitUnavailable() string {
	jitOnce.Do(func() {
		if _, err := jit.Load([]byte("package main\n\nfunc F() int { return 1 }\n"), "F"); err != nil {
			jitWhy = err.Error()
		}
	})
	return jitWhy
}

// tensorOf stores a dictionary in FORMAT/SHAPE (csr/4x3, dense/3).
func tensorOf(t *testing.T, d *datadriven.TestData, v sdql.Value, spec string) *formats.Tensor {
	fname, shapeSpec, _ := strings.Cut(spec, "/")
	f, err := formats.ByName(fname)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	var shape []int
	for _, s := range strings.Split(shapeSpec, "x") {
		n, err := strconv.Atoi(s)
		if err != nil {
			t.Fatalf("%s: shape %q: %v", d.Pos, shapeSpec, err)
		}
		shape = append(shape, n)
	}
	idx := make([][]int, len(shape))
	var val []float64
	var walk func(v sdql.Value, coords []int)
	walk = func(v sdql.Value, coords []int) {
		dd, ok := v.(*sdql.Dict)
		if !ok || len(coords) == len(shape) {
			for m, c := range coords {
				idx[m] = append(idx[m], c)
			}
			switch x := v.(type) {
			case sdql.Real:
				val = append(val, float64(x))
			case sdql.Int:
				val = append(val, float64(x))
			default:
				t.Fatalf("%s: %v is not a number", d.Pos, v)
			}
			return
		}
		keys := dd.Keys()
		sort.Ints(keys)
		for _, k := range keys {
			x, _ := dd.Get(k)
			walk(x, append(append([]int(nil), coords...), k))
		}
	}
	walk(v, nil)
	ten, err := formats.FromCoords(shape, idx, val, f)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return ten
}

func argList(d *datadriven.TestData, key string) []string {
	var out []string
	for _, a := range d.CmdArgs {
		if a.Key == key {
			out = append(out, a.Vals...)
		}
	}
	return out
}

func argOne(d *datadriven.TestData, key string) string {
	vs := argList(d, key)
	if len(vs) == 0 {
		return ""
	}
	if len(vs) > 1 {
		panic(fmt.Sprintf("%s: %s given %d values", d.Pos, key, len(vs)))
	}
	return vs[0]
}
