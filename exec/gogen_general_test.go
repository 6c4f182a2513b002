package exec_test

import (
	"fmt"
	"go/scanner"
	"go/token"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// genCase is a program of a testdata file with its inputs and what
// generating Go for it gave.
type genCase struct {
	prog   sdql.Expr
	inputs map[string]sdql.Value
	want   sdql.Value // the interpreter's result
	shape  []int
	kernel *exec.GoKernel
	err    error // generating
	res    gorun.Result
}

// generate parses a case and generates its kernel: through the general
// translation alone with arg general, else through GenerateGoKernel (arg
// shape=N gives the result's extent).
func generate(t *testing.T, d *datadriven.TestData, fn string) *genCase {
	t.Helper()
	inputs, src := sdqltest.MustSplit(t, d)
	prog, err := sdql.Parse("prog.sdql", src)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	c := &genCase{prog: prog, inputs: inputs}
	if c.want, err = sdql.Eval(prog, inputs); err != nil {
		t.Fatalf("%s: interpreter: %v", d.Pos, err)
	}
	opts := exec.GoOptions{Package: "main"}
	if d.HasArg("shape") {
		var n int
		d.ScanArgs(t, "shape", &n)
		opts.ResultShape = []int{n}
		c.shape = opts.ResultShape
	}
	if d.HasArg("general") {
		c.kernel, c.err = exec.GenerateGoValue(prog, inputs, fn, opts)
	} else {
		c.kernel, c.err = exec.GenerateGoKernel(prog, nil, inputs, fn, opts)
	}
	if c.err == nil {
		checkNoInterfaces(t, d.Pos, c.kernel.Source)
	}
	return c
}

// checkNoInterfaces fails when generated code mentions interfaces or
// reflection.
func checkNoInterfaces(t *testing.T, where string, src []byte) {
	t.Helper()
	var s scanner.Scanner
	fset := token.NewFileSet()
	s.Init(fset.AddFile("", fset.Base(), len(src)), src, nil, 0)
	for {
		_, tok, lit := s.Scan()
		if tok == token.EOF {
			return
		}
		if tok == token.INTERFACE || tok == token.IDENT && (lit == "any" || lit == "reflect") {
			t.Errorf("%s: the generated Go uses %s", where, tok.String()+lit)
		}
	}
}

// scalarDrift says how a GoValue kernel's scalar result type differs
// from the kind of the interpreter's scalar result ("" when it does not):
// the translation mirrors the interpreter's ints and reals.
func scalarDrift(want sdql.Value, k *exec.GoKernel) string {
	if k.Layout != exec.GoValue {
		return ""
	}
	var kind string
	switch want.(type) {
	case sdql.Int:
		kind = "int"
	case sdql.Real:
		kind = "float64"
	case sdql.Bool:
		kind = "bool"
	default:
		return ""
	}
	if k.ResultType != kind {
		return fmt.Sprintf("the kernel returns a %s, the interpreter a %T", k.ResultType, want)
	}
	return ""
}

// describe prints a kernel's layout (and result type for GoValue).
func describe(k *exec.GoKernel) string {
	switch k.Layout {
	case exec.GoValue:
		return "value " + k.ResultType
	}
	return k.Layout.String()
}

// TestGenerateGoGeneral runs testdata/gogen_general.txt: the general
// translation (GoValue) of each construct and representation, and which
// layout GenerateGoKernel chooses. Commands:
//
//   - run [general] [shape=N]: generates the program's kernel, builds and
//     runs it (all cases of the file in one build) and prints its layout,
//     result type and result, which must equal the interpreter's; or the
//     generation error.
//   - gen [general]: prints the generated source.
func TestGenerateGoGeneral(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs generated Go")
	}
	const path = "testdata/gogen_general.txt"
	cases := map[string]*genCase{}
	var runs []gorun.Case
	var order []*genCase
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd == "run" {
			c := generate(t, d, fmt.Sprintf("k%d", len(cases)))
			cases[d.Pos] = c
			if c.err == nil {
				runs = append(runs, gorun.Case{Name: d.Pos, Kernel: c.kernel, Inputs: c.inputs, Shape: c.shape})
				order = append(order, c)
			}
		}
		return d.Expected
	})
	results, err := gorun.Run(runs)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range results {
		order[i].res = r
	}
	datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
		switch d.Cmd {
		case "gen":
			c := generate(t, d, "Kernel")
			if c.err != nil {
				return "error: " + c.err.Error() + "\n"
			}
			return string(c.kernel.Source)
		case "run":
			c := cases[d.Pos]
			if c == nil {
				t.Fatalf("%s: case not prepared", d.Pos)
			}
			if c.err != nil {
				return "error: " + c.err.Error() + "\n"
			}
			if c.res.Err != nil {
				t.Errorf("%v\n%s", c.res.Err, c.kernel.Source)
				return "run error\n"
			}
			if !sdql.Equal(c.res.Value, c.want) {
				t.Errorf("%s: generated Go gives %s, the interpreter %s\n%s", d.Pos,
					sdql.FormatValue(c.res.Value), sdql.FormatValue(c.want), c.kernel.Source)
			}
			if msg := scalarDrift(c.want, c.kernel); msg != "" {
				t.Errorf("%s: %s", d.Pos, msg)
			}
			return describe(c.kernel) + "\n" + sdql.FormatValue(c.res.Value) + "\n"
		}
		t.Fatalf("%s: unknown command %q (have run, gen)", d.Pos, d.Cmd)
		return ""
	})
	if t.Failed() {
		return
	}
	t.Logf("%d kernels built and run", len(runs))
}
