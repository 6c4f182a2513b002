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
	return s
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
