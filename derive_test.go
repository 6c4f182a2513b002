package nablasd_test

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// lsProgram is ½‖Ax − b‖² over a 3×3 A: its gradient is Aᵀ(Ax − b) =
// (2.25, 12, -13.5) and its value 24.75, computed by hand.
const lsProgram = `let r = sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) } in
let d = r - b in
0.5 * sum(<i, v> in d) v * v`

func lsInputs(t *testing.T) nablasd.Inputs {
	A, err := formats.FromCoords([]int{3, 3}, [][]int{{0, 0, 1, 2, 2}, {0, 1, 1, 0, 2}}, []float64{1, 2, -1, 0.5, 3}, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	return nablasd.Inputs{"A": A, "x": []float64{1, 2, -1}, "b": []float64{0.5, 1, 2}}
}

// TestModes: every mode and executor gives the same gradient, and auto
// chooses reverse for a loss and says why.
func TestModes(t *testing.T) {
	for _, mode := range []string{"auto", "forward", "reverse"} {
		for _, o := range variants {
			o.Mode = mode
			q, err := nablasd.Prepare(lsProgram, lsInputs(t), &o)
			if err != nil {
				t.Fatal(err)
			}
			g, err := q.Grad("x")
			if err != nil {
				t.Fatalf("%+v: %v", o, err)
			}
			if got := g[0].String(); got != "{0 -> 2.25, 1 -> 12, 2 -> -13.5}" {
				t.Errorf("%+v: gradient %s", o, got)
			}
			p, err := q.Plan("x")
			if err != nil {
				t.Fatal(err)
			}
			want := mode
			if mode == "auto" {
				want = "reverse"
			}
			if p.Mode.String() != want || (mode == "auto" && o.Opt != "none") != strings.HasPrefix(p.ModeChoice, "estimated cost") {
				t.Errorf("%+v: mode %s (%s), want %s", o, p.Mode, p.ModeChoice, want)
			}
		}
	}
	if _, err := nablasd.Prepare("x", nil, &nablasd.Options{Mode: "sideways"}); err == nil || !strings.Contains(err.Error(), `Options.Mode "sideways"`) {
		t.Errorf("a bad mode: %v", err)
	}
}

// TestOneSweep: the value and several gradients from one kernel, the
// products, and their results' shapes.
func TestOneSweep(t *testing.T) {
	for _, o := range variants {
		o.Mode = "reverse"
		q, err := nablasd.Prepare(lsProgram, lsInputs(t), &o)
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile("x", "b")
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(k.Outputs(), " "); got != "x b" {
			t.Errorf("%+v: outputs %s", o, got)
		}
		v, g, err := q.ValueAndGrad("x", "b")
		if err != nil {
			t.Fatal(err)
		}
		if v.Scalar() != 24.75 || g[0].String() != "{0 -> 2.25, 1 -> 12, 2 -> -13.5}" || g[1].String() != "{0 -> -4.5, 1 -> 3, 2 -> 4.5}" {
			t.Errorf("%+v: value %s, gradients %s and %s", o, v, g[0], g[1])
		}
		if s := g[0].Shape(); len(s) != 1 || s[0] != 3 {
			t.Errorf("%+v: the gradient's shape %v", o, s)
		}
		// the HVP AᵀA v for v = e0, forward over reverse
		h, err := q.HVP("x", []float64{1, 0, 0})
		if err != nil {
			t.Fatal(err)
		}
		if got := h.String(); got != "{0 -> 1.25, 1 -> 2, 2 -> 1.5}" {
			t.Errorf("%+v: HVP %s", o, got)
		}
	}
	// the VJP Aᵀ ȳ and the JVP A v of the product A x
	q, err := nablasd.Prepare("sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) }", lsInputs(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	vjp, err := q.VJP([]float64{1, 10, 100}, "x")
	if err != nil {
		t.Fatal(err)
	}
	if got := vjp[0].String(); got != "{0 -> 51, 1 -> -8, 2 -> 300}" {
		t.Errorf("VJP %s", got)
	}
	jvp, err := q.JVP(nablasd.Inputs{"x": []float64{1, 10, 100}})
	if err != nil {
		t.Fatal(err)
	}
	if got := jvp.String(); got != "{0 -> 21, 1 -> -10, 2 -> 300.5}" {
		t.Errorf("JVP %s", got)
	}
	if _, err := q.VJP(2.0, "x"); err == nil || !strings.Contains(err.Error(), "cotangent") {
		t.Errorf("a cotangent of the wrong kind: %v", err)
	}
	if _, err := q.HVP("x", []float64{1, 0, 0}); err == nil || !strings.Contains(err.Error(), "real result") {
		t.Errorf("the HVP of a vector program: %v", err)
	}
}

// TestAutoChoosesByCost: the gradient of SMMM with respect to B is a scalar
// program's, which the orders alone would give reverse mode; the cost
// model sees that forward mode's optimized program (A's column sums once)
// is cheaper, as it is (bench.BenchmarkModes measures it).
func TestAutoChoosesByCost(t *testing.T) {
	m, err := formats.FromCoords([]int{40, 40}, diag(40), ones(40+39), formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	q, err := nablasd.Prepare("sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b", nablasd.Inputs{"A": m, "B": m}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := q.Plan("B")
	if err != nil {
		t.Fatal(err)
	}
	if p.Mode.String() != "forward" || !strings.Contains(p.String(), "-- mode: forward (auto; estimated cost reverse") {
		t.Errorf("mode %s:\n%s", p.Mode, p)
	}
	g, err := q.Grad("B")
	if err != nil {
		t.Fatal(err)
	}
	want, err := sdql.Eval(sdql.MustParse("sum(<k, r> in B) { k -> sum(<j, _> in r) { j -> sum(<i, ra> in A) ra(k) } }"),
		map[string]sdql.Value{"A": formats.ToValue(m), "B": formats.ToValue(m)})
	if err != nil {
		t.Fatal(err)
	}
	if !sdql.Equal(g[0].Value(), want) {
		t.Errorf("gradient %s, want %s", g[0], sdql.FormatValue(want))
	}
}

// diag returns the coordinates of a bidiagonal n×n matrix's entries.
func diag(n int) [][]int {
	var is, js []int
	for i := range n {
		is, js = append(is, i), append(js, i)
		if i+1 < n {
			is, js = append(is, i), append(js, i+1)
		}
	}
	return [][]int{is, js}
}

func ones(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

// TestProductShapes: tangents, directions and cotangents get the inputs'
// shape check (issue 39), on Prepare's inputs and on a kernel's new ones,
// and Options.NoShapeCheck lets them through with the language's
// partial-dictionary semantics; a logical value has no shape to check.
func TestProductShapes(t *testing.T) {
	A := lsInputs(t)["A"]
	x3 := []float64{1, 2, 3}
	const spmv = "sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) }"
	const loss = "sum(<i, a> in x) a * a"
	for _, c := range []struct {
		prog    string
		d       nablasd.Derivative
		want    string // the error, or with NoShapeCheck the result
		lenient string
	}{
		{spmv, nablasd.Derivative{Tangents: nablasd.Inputs{"x": []float64{1, 1}}}, "tangent of x: 2 entries, but x has 3", "{0 -> 3, 1 -> -1, 2 -> 0.5}"},
		{spmv, nablasd.Derivative{Tangents: nablasd.Inputs{"x": []float64{1, 1, 1, 1, 1}}}, "tangent of x: 5 entries, but x has 3", "{0 -> 3, 1 -> -1, 2 -> 3.5}"},
		{spmv, nablasd.Derivative{Wrt: []string{"x"}, Cotangent: []float64{1, 1}}, "cotangent: 2 entries, but the result has 3", "{0 -> 1, 1 -> 1, 2 -> 0}"},
		{spmv, nablasd.Derivative{Wrt: []string{"x"}, Cotangent: []float64{1, 1, 1, 1}}, "cotangent: 4 entries, but the result has 3", "{0 -> 1.5, 1 -> 1, 2 -> 3}"},
		{loss, nablasd.Derivative{Wrt: []string{"x"}, Direction: []float64{1, 1}}, "direction of x: 2 entries, but x has 3", "{0 -> 2, 1 -> 2, 2 -> 0}"},
		{spmv, nablasd.Derivative{Tangents: nablasd.Inputs{"A": [][]float64{{1, 1}, {1, 1}, {1, 1}}}}, "tangent of A: 2 columns, but A has 3", "{0 -> 3, 1 -> 2, 2 -> 1}"},
		// a logical tangent has no shape: not checked
		{spmv, nablasd.Derivative{Tangents: nablasd.Inputs{"x": map[int]float64{0: 1, 7: 1}}}, "", "{0 -> 1, 1 -> 0, 2 -> 0.5}"},
	} {
		for _, lenient := range []bool{false, true} {
			q, err := nablasd.Prepare(c.prog, nablasd.Inputs{"A": A, "x": x3}, &nablasd.Options{NoShapeCheck: lenient})
			if err != nil {
				t.Fatal(err)
			}
			k, err := q.CompileDerivative(&c.d)
			switch {
			case !lenient && c.want != "":
				if err == nil || err.Error() != c.want {
					t.Errorf("%s %+v: error %v, want %q", c.prog, c.d, err, c.want)
				}
				continue
			case err != nil:
				t.Errorf("%s %+v (lenient %v): %v", c.prog, c.d, lenient, err)
				continue
			}
			r := k.NewResult()
			if err := k.Run(r, nil); err != nil {
				t.Fatal(err)
			}
			if got := r.String(); got != c.lenient {
				t.Errorf("%s %+v (lenient %v): %s, want %s", c.prog, c.d, lenient, got, c.lenient)
			}
		}
	}
	// a kernel rerun over a new x of another length than its tangent
	q, err := nablasd.Prepare(spmv, nablasd.Inputs{"A": A, "x": x3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.CompileDerivative(&nablasd.Derivative{Tangents: nablasd.Inputs{"A": A}})
	if err != nil {
		t.Fatal(err)
	}
	B, err := formats.FromCoords([]int{3, 4}, [][]int{{0}, {3}}, []float64{1}, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	err = k.Run(k.NewResult(), nablasd.Inputs{"A": B, "x": []float64{1, 2, 3, 4}})
	if err == nil || err.Error() != "tangent of A: 3 columns, but A has 4" {
		t.Errorf("a rerun over an A of another shape than its tangent: %v", err)
	}
}
