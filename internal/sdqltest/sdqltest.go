// Package sdqltest is the one data-driven test vocabulary of nablasd.
//
// A testdata file is a sequence of cases in the format of
// github.com/cockroachdb/datadriven:
//
//	command arg=value ...
//	input
//	----
//	expected output
//
// The input is an SDQL program, optionally preceded by input bindings and a
// line "---" (three dashes):
//
//	eval
//	V = {0 -> 1.0, 2 -> 3.0}
//	beta = 0.5
//	---
//	sum(<i, a> in V) beta * a
//	----
//	2
//
// A binding's right-hand side is any closed SDQL expression (usually a
// literal). Run the tests with -rewrite to regenerate the expected outputs,
// and review the diff like code.
//
// The base commands are parse, print, check and eval (see New); later
// packages register their own (grad, plan, run, ...) with Suite.Register.
package sdqltest

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/sdql"
)

// Handler runs one test case and returns its output.
type Handler func(t *testing.T, d *datadriven.TestData) string

// Suite is a set of commands.
type Suite struct {
	cmds map[string]Handler
}

// New returns a suite with the base commands:
//
//   - parse: parses the program and prints it back (Print); it also checks
//     that the printed form parses to a tree that prints the same.
//   - print: like parse, but prints on one line (PrintFlat).
//   - check: prints the inferred type of every input and of the result, or
//     the errors.
//   - eval: evaluates the program with the reference interpreter over the
//     bindings and prints the value; arg want=VALUE compares as functions
//     instead of textually (a missing key equals zero).
//   - work: evaluates like eval and prints the interpreter's operation
//     counts (sdql.Work) after the value.
//   - lint: prints the warnings of sdql.Lint, one a line, or "no warnings".
//   - extents: sdql.AnalyzeExtents with dims=(A=2x3, x=3): the bounds of
//     the result's levels and of every bound name.
//   - hoist, share, sharework: the program after sdql.Hoist (sdql.Share,
//     sdql.ShareWork; another with arg then=share, say); with bindings, it
//     also checks that both programs evaluate to the same dictionaries.
func New() *Suite {
	s := &Suite{cmds: map[string]Handler{}}
	s.Register("parse", func(t *testing.T, d *datadriven.TestData) string {
		_, prog := MustSplit(t, d)
		e, err := sdql.Parse("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		out := sdql.Print(e)
		CheckRoundTrip(t, d.Pos, e)
		return out + "\n"
	})
	s.Register("print", func(t *testing.T, d *datadriven.TestData) string {
		_, prog := MustSplit(t, d)
		e, err := sdql.Parse("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		CheckRoundTrip(t, d.Pos, e)
		return sdql.PrintFlat(e) + "\n"
	})
	s.Register("lint", func(t *testing.T, d *datadriven.TestData) string {
		_, prog := MustSplit(t, d)
		ws, err := sdql.Lint("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		if len(ws) == 0 {
			return "no warnings\n"
		}
		var b strings.Builder
		for _, w := range ws {
			b.WriteString("warning: " + w.Error() + "\n")
		}
		return b.String()
	})
	s.Register("check", func(t *testing.T, d *datadriven.TestData) string {
		inputs, prog := MustSplit(t, d)
		e, err := sdql.Parse("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		types := map[string]sdql.Type{}
		for n, v := range inputs {
			types[n] = sdql.TypeOfValue(v)
		}
		info, err := sdql.Check(e, &sdql.CheckConfig{File: "prog.sdql", Inputs: types, Strict: d.HasArg("strict")})
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		for _, n := range info.FreeNames() {
			fmt.Fprintf(&b, "%s: %s\n", n, info.Free[n])
		}
		fmt.Fprintf(&b, "result: %s\n", info.Result)
		return b.String()
	})
	s.Register("eval", func(t *testing.T, d *datadriven.TestData) string {
		inputs, prog := MustSplit(t, d)
		e, err := sdql.Parse("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		in := &sdql.Interp{File: "prog.sdql"}
		v, err := in.Eval(e, inputs)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		if d.HasArg("want") {
			var want string
			d.ScanArgs(t, "want", &want)
			wv := MustValue(t, want)
			if !sdql.Equal(v, wv) {
				t.Errorf("%s: got %s, want %s (as functions)", d.Pos, sdql.FormatValue(v), want)
			}
		}
		return sdql.FormatValue(v) + "\n"
	})
	s.Register("work", func(t *testing.T, d *datadriven.TestData) string {
		inputs, prog := MustSplit(t, d)
		e, err := sdql.Parse("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		in := &sdql.Interp{File: "prog.sdql"}
		v, err := in.Eval(e, inputs)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		w := in.Work
		return fmt.Sprintf("%s\narith=%d writes=%d lookups=%d iters=%d total=%d\n",
			sdql.FormatValue(v), w.Arith, w.Writes, w.Lookups, w.Iters, w.Total())
	})
	for _, name := range []string{"hoist", "share", "sharework"} {
		s.Register(name, func(t *testing.T, d *datadriven.TestData) string {
			inputs, prog := MustSplit(t, d)
			e, err := sdql.Parse("prog.sdql", prog)
			if err != nil {
				return "error: " + err.Error() + "\n"
			}
			steps := []string{d.Cmd}
			if d.HasArg("then") {
				var then string
				d.ScanArgs(t, "then", &then)
				steps = append(steps, then)
			}
			out := e
			for _, st := range steps {
				switch st {
				case "hoist":
					out = sdql.Hoist(out)
				case "share":
					out = sdql.Share(out)
				case "sharework":
					out = sdql.ShareWork(out)
				default:
					t.Fatalf("%s: unknown step %s", d.Pos, st)
				}
			}
			CheckRoundTrip(t, d.Pos, out)
			if len(inputs) > 0 {
				want, err1 := (&sdql.Interp{}).Eval(e, inputs)
				got, err2 := (&sdql.Interp{}).Eval(out, inputs)
				if err1 != nil || err2 != nil {
					t.Errorf("%s: %v, %v", d.Pos, err1, err2)
				} else if diff := sdql.DiffDicts(got, want, 1e-12); diff != "" {
					t.Errorf("%s: the program changed its value: %s", d.Pos, diff)
				}
			}
			return sdql.Print(out) + "\n"
		})
	}
	s.Register("extents", func(t *testing.T, d *datadriven.TestData) string {
		inputs, prog := MustSplit(t, d)
		e, err := sdql.Parse("prog.sdql", prog)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		types := map[string]sdql.Type{}
		for n, v := range inputs {
			types[n] = sdql.TypeOfValue(v)
		}
		x, err := sdql.AnalyzeExtents(e, types, ScanDims(t, d))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "result: %s\n", bounds(x.Result))
		names := make([]string, 0, len(x.Names))
		for n := range x.Names {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			fmt.Fprintf(&b, "%s: %s\n", n, bounds(x.Names[n]))
		}
		return b.String()
	})
	return s
}

func bounds(bs []sdql.Bound) string {
	if len(bs) == 0 {
		return "-"
	}
	parts := make([]string, len(bs))
	for i, b := range bs {
		parts[i] = b.String()
	}
	return strings.Join(parts, " | ")
}

// ScanDims reads the argument dims=(A=2x3, x=3) of a case: the extents of
// tensor inputs' modes, as shapes are written on the command line.
func ScanDims(t *testing.T, d *datadriven.TestData) map[string][]int {
	t.Helper()
	dims := map[string][]int{}
	for _, arg := range d.CmdArgs {
		if arg.Key != "dims" {
			continue
		}
		for _, v := range arg.Vals {
			name, shape, ok := strings.Cut(v, "=")
			if !ok {
				t.Fatalf("%s: dims: want NAME=AxB, got %q", d.Pos, v)
			}
			for _, f := range strings.Split(shape, "x") {
				var n int
				if _, err := fmt.Sscan(f, &n); err != nil {
					t.Fatalf("%s: dims: bad extent %q in %q", d.Pos, f, v)
				}
				dims[name] = append(dims[name], n)
			}
		}
	}
	return dims
}

// Register adds or replaces a command.
func (s *Suite) Register(name string, h Handler) { s.cmds[name] = h }

// Run runs every testdata file matching glob (e.g. "testdata/*.txt").
func (s *Suite) Run(t *testing.T, glob string) {
	paths, err := filepath.Glob(glob)
	if err != nil || len(paths) == 0 {
		t.Fatalf("sdqltest: no testdata files match %s", glob)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) { s.runFile(t, path) })
	}
}

func (s *Suite) runFile(t *testing.T, path string) {
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		h, ok := s.cmds[d.Cmd]
		if !ok {
			names := make([]string, 0, len(s.cmds))
			for n := range s.cmds {
				names = append(names, n)
			}
			sort.Strings(names)
			t.Fatalf("%s: unknown command %q (have %s)", d.Pos, d.Cmd, strings.Join(names, ", "))
		}
		return h(t, d)
	})
}

// Split separates a case's input into bindings and program (see the
// package comment). Each binding is evaluated as a closed expression.
func Split(input string) (map[string]sdql.Value, string, error) {
	lines := strings.Split(input, "\n")
	sep := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == "---" {
			sep = i
			break
		}
	}
	inputs := map[string]sdql.Value{}
	if sep < 0 {
		return inputs, input, nil
	}
	for _, l := range lines[:sep] {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "//") {
			continue
		}
		name, rhs, ok := strings.Cut(l, "=")
		if !ok {
			return nil, "", fmt.Errorf("binding %q: want NAME = VALUE", l)
		}
		v, err := ParseValue(strings.TrimSpace(rhs))
		if err != nil {
			return nil, "", fmt.Errorf("binding %s: %v", strings.TrimSpace(name), err)
		}
		inputs[strings.TrimSpace(name)] = v
	}
	return inputs, strings.Join(lines[sep+1:], "\n"), nil
}

// MustSplit is Split that fails the test on error.
func MustSplit(t *testing.T, d *datadriven.TestData) (map[string]sdql.Value, string) {
	t.Helper()
	inputs, prog, err := Split(d.Input)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return inputs, prog
}

// ParseValue evaluates a closed SDQL expression, such as a dictionary
// literal, to a value. Physical arrays are written ints[1, 2, 3] or
// reals[1.5, 2].
func ParseValue(src string) (sdql.Value, error) {
	if rest, ok := strings.CutPrefix(src, "ints["); ok {
		var a sdql.IntArray
		for _, f := range splitList(strings.TrimSuffix(rest, "]")) {
			var x int
			if _, err := fmt.Sscan(f, &x); err != nil {
				return nil, fmt.Errorf("bad int %q", f)
			}
			a = append(a, x)
		}
		return a, nil
	}
	if rest, ok := strings.CutPrefix(src, "reals["); ok {
		var a sdql.RealArray
		for _, f := range splitList(strings.TrimSuffix(rest, "]")) {
			var x float64
			if _, err := fmt.Sscan(f, &x); err != nil {
				return nil, fmt.Errorf("bad real %q", f)
			}
			a = append(a, x)
		}
		return a, nil
	}
	e, err := sdql.Parse("", src)
	if err != nil {
		return nil, err
	}
	return sdql.Eval(e, nil)
}

func splitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// MustValue is ParseValue that fails the test on error.
func MustValue(t *testing.T, src string) sdql.Value {
	t.Helper()
	v, err := ParseValue(src)
	if err != nil {
		t.Fatalf("value %q: %v", src, err)
	}
	return v
}

// CheckRoundTrip checks print(parse(print(e))) == print(e), both in the
// multi-line and the flat layout.
func CheckRoundTrip(t *testing.T, where string, e sdql.Expr) {
	t.Helper()
	for _, pr := range []func(sdql.Expr) string{sdql.Print, sdql.PrintFlat} {
		s := pr(e)
		e2, err := sdql.Parse("", s)
		if err != nil {
			t.Errorf("%s: printed form does not parse: %v\n%s", where, err, s)
			continue
		}
		if s2 := pr(e2); s2 != s {
			t.Errorf("%s: print is not stable:\n%s\n-- reprinted --\n%s", where, s, s2)
		}
	}
}
