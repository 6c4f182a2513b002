package ad

import (
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

var _ = flag.Bool // datadriven registers -rewrite

// The commands of the ad testdata files, added to the shared vocabulary:
//
//   - anf: prints ANF(program); with bindings, also checks that it
//     evaluates to the program's value.
//   - forward [order=N] [anf]: prints D_τ[[program]] with τ = tensor N
//     (N = 0, the default, is the scalar mode F of Fig. 5); with anf, of
//     ANF(program).
//   - gradient wrt=X: prints the gradient macro of Fig. 7 over the program
//     as given (no ANF, no sparsity propagation).
//   - grad wrt=X: prints the stages anf, derivative and sparse; with
//     bindings it also evaluates both derivative programs, checks that they
//     agree and prints the gradient's value.
//   - sparsify: prints Sparsify(program).
//   - fd wrt=X: the finite-difference check of fd_test.go; prints the
//     gradient's value (8 significant digits).
//   - reverse wrt=X[,Y...] [value] [vjp=NAME] [dense=X[,Y...]]
//     [dims=(X=N, A=MxN)] [stages]:
//     Reverse; prints its result program (with stages, every stage). With
//     bindings it evaluates the transposed and the result programs, checks
//     that they agree and, without vjp, that every output equals forward
//     mode's (Derive), and prints the outputs' values.
//   - jvp X=NAME...: JVP with the tangent of X held by NAME (bound among
//     the bindings); prints the program and, with bindings, its value.
//   - hvp wrt=X dir=NAME: HVP; prints the program and, with bindings, its
//     value.
//   - mode wrt=X[,Y...]: prints ChooseMode's choice.
//
// Every printing command accepts, after the program, a line "===" and an
// expected program (the paper's listing): the printed result must equal it
// up to the renaming of bound variables (sdql.AlphaEqual).
func suite() *sdqltest.Suite {
	s := sdqltest.New()
	s.Register("anf", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		out := ANF(c.prog)
		sdqltest.CheckRoundTrip(t, d.Pos, out)
		if !isANF(out) {
			t.Errorf("%s: not in ANF:\n%s", d.Pos, sdql.Print(out))
		}
		if len(c.values) > 0 {
			want := c.eval(t, c.prog)
			if got := c.eval(t, out); !sdql.Equal(got, want) {
				t.Errorf("%s: ANF changes the value: %s, want %s", d.Pos, sdql.FormatValue(got), sdql.FormatValue(want))
			}
		}
		return c.result(t, out)
	})
	s.Register("forward", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		order := 0
		if d.HasArg("order") {
			d.ScanArgs(t, "order", &order)
		}
		prog := c.prog
		if d.HasArg("anf") {
			prog = ANF(prog)
		}
		tan, err := Tensorized(prog, c.types, sdql.Tensor(order))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return c.result(t, tan.Expr)
	})
	s.Register("gradient", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		out, err := Gradient(c.prog, c.wrt(t, d), c.types)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return c.result(t, out)
	})
	s.Register("sparsify", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		out, err := Sparsify(c.prog, c.types)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return c.result(t, out)
	})
	s.Register("grad", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		st, err := GradStages(c.prog, c.wrt(t, d), c.types)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		var b strings.Builder
		fmt.Fprintf(&b, "anf:\n%s\nderivative:\n%s\nsparse:\n", sdql.Print(st.ANF), sdql.Print(st.Derivative))
		b.WriteString(c.result(t, st.Sparse))
		if len(c.values) > 0 {
			raw := c.eval(t, st.Derivative)
			sparse := c.eval(t, st.Sparse)
			if !sdql.Equal(raw, sparse) {
				t.Errorf("%s: sparsified gradient %s differs from the derivative %s", d.Pos, sdql.FormatValue(sparse), sdql.FormatValue(raw))
			}
			fmt.Fprintf(&b, "value:\n%s\n", roundedValue(sparse))
		}
		return b.String()
	})
	s.Register("fd", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		g, err := checkGradient(c.prog, c.wrt(t, d), c.values, nil)
		if err != nil {
			t.Errorf("%s: %v\n%s", d.Pos, err, c.src)
			return "error: " + err.Error() + "\n"
		}
		return roundedValue(g) + "\n"
	})
	s.Register("reverse", runReverse)
	s.Register("jvp", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		tangents := map[string]string{}
		for _, a := range d.CmdArgs {
			if len(a.Vals) != 1 {
				t.Fatalf("%s: want X=NAME, not %s", d.Pos, a)
			}
			tangents[a.Key] = a.Vals[0]
		}
		types := c.typesWithout(tangents)
		out, err := JVP(c.prog, tangents, types)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return c.result(t, out) + c.valueOf(t, out)
	})
	s.Register("hvp", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		var wrt, dir string
		d.ScanArgs(t, "wrt", &wrt)
		d.ScanArgs(t, "dir", &dir)
		out, err := HVP(c.prog, wrt, dir, c.typesWithout(map[string]string{"": dir}))
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return c.result(t, out) + c.valueOf(t, out)
	})
	s.Register("mode", func(t *testing.T, d *datadriven.TestData) string {
		c := parseCase(t, d)
		m, err := ChooseMode(c.prog, listArg(t, d, "wrt"), c.types)
		if err != nil {
			return "error: " + err.Error() + "\n"
		}
		return m.String() + "\n"
	})
	return s
}

// runReverse is the reverse command.
func runReverse(t *testing.T, d *datadriven.TestData) string {
	c := parseCase(t, d)
	req := &Request{Wrt: listArg(t, d, "wrt"), Value: d.HasArg("value"), Dense: map[string]bool{}, Dims: sdqltest.ScanDims(t, d)}
	for _, n := range listArg(t, d, "dense") {
		req.Dense[n] = true
	}
	types := c.types
	if d.HasArg("vjp") {
		d.ScanArgs(t, "vjp", &req.Cotangent)
		types = c.typesWithout(map[string]string{"": req.Cotangent})
	}
	st, err := Reverse(c.prog, req, types)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	var b strings.Builder
	if d.HasArg("stages") {
		for _, s := range []struct {
			name string
			e    sdql.Expr
		}{{"anf", st.ANF}, {"linearized", st.Linearized}, {"unzipped", st.Unzipped}, {"transposed", st.Transposed}} {
			sdqltest.CheckRoundTrip(t, d.Pos, s.e)
			fmt.Fprintf(&b, "%s:\n%s\n", s.name, sdql.Print(s.e))
		}
		b.WriteString("result:\n")
	}
	b.WriteString(c.result(t, st.Result))
	if len(c.values) == 0 {
		return b.String()
	}
	v := c.eval(t, st.Result)
	if tv := c.eval(t, st.Transposed); !sdql.Equal(v, tv) {
		t.Errorf("%s: the simplified reverse program gives %s, the transposed one %s", d.Pos, sdql.FormatValue(v), sdql.FormatValue(tv))
	}
	outs, err := st.Outputs.Split(v)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	var fwd []sdql.Value
	if req.Cotangent == "" {
		f, fo, _, err := Derive(c.prog, &Request{Wrt: req.Wrt, Value: req.Value}, ModeForward, types)
		if err != nil {
			t.Fatalf("%s: forward mode: %v", d.Pos, err)
		}
		if fwd, err = fo.Split(c.eval(t, f)); err != nil {
			t.Fatalf("%s: %v", d.Pos, err)
		}
	}
	for i, n := range st.Outputs.Names {
		if fwd != nil && !sdql.Equal(outs[i], fwd[i]) {
			t.Errorf("%s: reverse mode's %s is %s, forward mode's %s", d.Pos, n, sdql.FormatValue(outs[i]), sdql.FormatValue(fwd[i]))
		}
		fmt.Fprintf(&b, "%s: %s\n", n, roundedValue(outs[i]))
	}
	return b.String()
}

// listArg returns the comma-separated values of a command argument.
func listArg(t *testing.T, d *datadriven.TestData, key string) []string {
	var out []string
	for _, a := range d.CmdArgs {
		if a.Key == key {
			for _, v := range a.Vals {
				out = append(out, strings.Split(v, ",")...)
			}
		}
	}
	return out
}

// typesWithout returns the case's input types without the variables named
// by the values of names (tangents, cotangents, directions bound among the
// bindings), whose types the function under test decides.
func (c *testCase) typesWithout(names map[string]string) map[string]sdql.Type {
	out := map[string]sdql.Type{}
	skip := map[string]bool{}
	for _, n := range names {
		skip[n] = true
	}
	for n, ty := range c.types {
		if !skip[n] {
			out[n] = ty
		}
	}
	return out
}

// valueOf evaluates e when the case has bindings and prints "value: ...".
func (c *testCase) valueOf(t *testing.T, e sdql.Expr) string {
	if len(c.values) == 0 {
		return ""
	}
	return "value: " + roundedValue(c.eval(t, e)) + "\n"
}

func TestData(t *testing.T) { suite().Run(t, "testdata/*.txt") }

// testCase is one data-driven case: bindings, the program and an optional
// expected program.
type testCase struct {
	pos    string
	src    string
	values map[string]sdql.Value
	types  map[string]sdql.Type
	prog   sdql.Expr
	expect sdql.Expr
}

func parseCase(t *testing.T, d *datadriven.TestData) *testCase {
	t.Helper()
	values, rest := sdqltest.MustSplit(t, d)
	src, want, hasWant := strings.Cut(rest, "\n===\n")
	c := &testCase{pos: d.Pos, src: src, values: values, types: map[string]sdql.Type{}}
	for n, v := range values {
		c.types[n] = sdql.TypeOfValue(v)
	}
	var err error
	if c.prog, err = sdql.Parse("prog.sdql", src); err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	if hasWant {
		if c.expect, err = sdql.Parse("expected", want); err != nil {
			t.Fatalf("%s: expected program: %v", d.Pos, err)
		}
	}
	return c
}

func (c *testCase) wrt(t *testing.T, d *datadriven.TestData) string {
	var w string
	d.ScanArgs(t, "wrt", &w)
	return w
}

// result prints e, checking it against the expected program if any.
func (c *testCase) result(t *testing.T, e sdql.Expr) string {
	t.Helper()
	sdqltest.CheckRoundTrip(t, c.pos, e)
	if c.expect != nil && !sdql.AlphaEqual(e, c.expect) {
		t.Errorf("%s: not alpha-equal to the expected program\n got: %s\nwant: %s", c.pos, sdql.PrintFlat(e), sdql.PrintFlat(c.expect))
	}
	return sdql.Print(e) + "\n"
}

func (c *testCase) eval(t *testing.T, e sdql.Expr) sdql.Value {
	t.Helper()
	v, err := sdql.Eval(e, c.values)
	if err != nil {
		t.Fatalf("%s: eval: %v\n%s", c.pos, err, sdql.Print(e))
	}
	return v
}

// isANF reports whether every operand in e is an atom and every scope ends
// in an atom.
func isANF(e sdql.Expr) bool {
	var scope func(e sdql.Expr) bool
	var complex func(e sdql.Expr) bool
	scope = func(e sdql.Expr) bool {
		for {
			l, ok := e.(*sdql.LetExpr)
			if !ok {
				return isAtom(e)
			}
			for _, v := range l.Values {
				if !complex(v) {
					return false
				}
			}
			e = l.Body
		}
	}
	complex = func(e sdql.Expr) bool {
		switch x := e.(type) {
		case *sdql.SumExpr:
			return isAtom(x.Src) && scope(x.Body)
		case *sdql.IfExpr:
			return isAtom(x.Cond) && scope(x.Then) && (x.Else == nil || scope(x.Else))
		case *sdql.LetExpr:
			return false
		}
		for _, k := range sdql.Children(e) {
			if !isAtom(k) {
				return false
			}
		}
		return true
	}
	return scope(e)
}
