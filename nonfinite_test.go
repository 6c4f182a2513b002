package nablasd

import (
	"math"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
)

// TestCheckFinite: a result holding a nan or an infinity is described by
// what it is, its first such entry and how many, and where the first
// appears: an input that holds one, or the operation of the program (or
// of the derivative's program, after the operation of the source that
// started it) that makes one; a finite result is nil.
func TestCheckFinite(t *testing.T) {
	z := DenseVector([]float64{1, 800, -2})
	zInf := DenseVector([]float64{1, math.Inf(1), -2})
	for _, c := range []struct {
		name   string
		prog   string
		inputs Inputs
		d      *Derivative // nil: the value
		want   []string    // each result's description (Error), "" when finite
	}{
		{"finite", "sum(<i, v> in z) log(1 + exp(v))", Inputs{"z": DenseVector([]float64{1, 2})}, nil, []string{""}},
		{"scalar overflow", "log(1 + exp(z))", Inputs{"z": 800.0}, nil,
			[]string{"value is inf; it first appears in exp(z) at 1:9: exp(800) = inf"}},
		{"a sum", "sum(<i, v> in z) log(1 + exp(v))", Inputs{"z": z}, nil,
			[]string{"value is inf; it first appears in exp(v) at 1:26: exp(800) = inf"}},
		{"a vector, the first in key order", "sum(<i, v> in z) { i -> log(v) }", Inputs{"z": DenseVector([]float64{-1, 2, -3})}, nil,
			[]string{"value has nan at key 0 (2 of 3 entries are not finite); it first appears in log(v) at 1:25: log(-1) = nan"}},
		{"an input", "sum(<i, v> in z) { i -> 2 * v }", Inputs{"z": zInf}, nil,
			[]string{"value has inf at key 1 (1 of 3 entries are not finite); the input z holds inf at key 1"}},
		{"an overflowing sum", "sum(<i, v> in z) v * 1e307", Inputs{"z": DenseVector([]float64{10, 10, 10})}, nil,
			[]string{"value is inf; it first appears in sum(<i, v> in z) v * 1e+307 at 1:1: the sum's addition 1e+308 + 1e+308 = inf"}},
		{"the gradient and the value", "sum(<i, v> in z) log(1 + exp(v))", Inputs{"z": z}, &Derivative{Wrt: []string{"z"}, Value: true},
			[]string{"value is inf; it first appears in exp(v) at 1:26: exp(800) = inf",
				"grad z has nan at key 1 (1 of 3 entries are not finite); it first appears in ",
				" in the gradient's program: inf * 0 = nan, after exp(v) at 1:26: exp(800) = inf"}},
		{"a JVP", "sum(<i, v> in z) log(1 + exp(v))", Inputs{"z": z}, &Derivative{Tangents: Inputs{"z": DenseVector([]float64{1, 1, 1})}},
			[]string{"jvp is nan; it first appears in ", " in the JVP's program: "}},
	} {
		q, err := Prepare(c.prog, c.inputs, &Options{Exec: "compiled"})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		var outs []*Result
		if c.d == nil {
			r, err := q.Value()
			if err != nil {
				t.Fatal(err)
			}
			outs = []*Result{r}
		} else {
			k, err := q.CompileDerivative(c.d)
			if err != nil {
				t.Fatal(err)
			}
			r := k.NewResult()
			if err := k.Run(r, nil); err != nil {
				t.Fatal(err)
			}
			if outs, err = k.Split(r); err != nil {
				t.Fatal(err)
			}
		}
		for i, r := range outs {
			nf := r.CheckFinite()
			want := c.want[min(i, len(c.want)-1)]
			if i == 1 && len(c.want) > 2 {
				want = c.want[1]
			}
			switch {
			case want == "" && nf != nil:
				t.Errorf("%s: result %d: %v, want finite", c.name, i, nf)
			case want == "":
			case nf == nil:
				t.Errorf("%s: result %d (%s) is finite, want %q", c.name, i, r, want)
			case !strings.Contains(nf.Error(), want) || len(c.want) > 2 && i == 1 && !strings.Contains(nf.Error(), c.want[2]):
				t.Errorf("%s: result %d: %q\n want %q", c.name, i, nf.Error(), c.want[i:])
			case (r.NonFinite() == nil) != (nf == nil) || r.NonFinite().Origin != "":
				t.Errorf("%s: result %d: NonFinite %v differs from CheckFinite's scan", c.name, i, r.NonFinite())
			}
		}
	}
}

// TestCheckFiniteRebound: a kernel run over new inputs (a batch's group)
// is checked, and located, over those inputs, not the query's; a
// gradient split from a bundle is given on the run's input's positions.
func TestCheckFiniteRebound(t *testing.T) {
	const prog = "sum(<i, v> in z) log(1 + exp(v))"
	q, err := Prepare(prog, Inputs{"z": DenseVector([]float64{1, 2, 3})}, &Options{Exec: "compiled"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.CompileDerivative(&Derivative{Wrt: []string{"z"}, Value: true})
	if err != nil {
		t.Fatal(err)
	}
	r := k.NewResult()
	if err := k.Run(r, nil); err != nil {
		t.Fatal(err)
	}
	outs, err := k.Split(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range outs {
		if nf := o.CheckFinite(); nf != nil {
			t.Errorf("over the query's inputs: %v", nf)
		}
	}
	group := Inputs{"z": DenseVector([]float64{1, 2, 3, 900})}
	if err := k.Run(r, group); err != nil {
		t.Fatal(err)
	}
	if outs, err = k.Split(r); err != nil {
		t.Fatal(err)
	}
	nf := outs[1].CheckFinite()
	if nf == nil || !strings.Contains(nf.Error(), "grad z has nan at key 3 (1 of 4 entries") || !strings.Contains(nf.Error(), "exp(900) = inf") {
		t.Errorf("over a group's inputs: %v", nf)
	}
	// the gradient on the group's positions: a sparse input of the
	// group's pattern, against a query of the group's own
	sparse := func(idx []int, val []float64) *formats.Tensor {
		x, err := formats.FromCoords([]int{6}, [][]int{idx}, val, formats.COO)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	q, err = Prepare(prog, Inputs{"z": sparse([]int{0, 2}, []float64{1, 2})}, &Options{Exec: "compiled"})
	if err != nil {
		t.Fatal(err)
	}
	k, err = q.CompileDerivative(&Derivative{Wrt: []string{"z"}, Value: true})
	if err != nil {
		t.Fatal(err)
	}
	gz := sparse([]int{1, 4, 5}, []float64{-1, 0.5, 2})
	if err := k.Run(r, Inputs{"z": gz}); err != nil {
		t.Fatal(err)
	}
	if outs, err = k.Split(r); err != nil {
		t.Fatal(err)
	}
	own, err := Prepare(prog, Inputs{"z": gz}, &Options{Exec: "compiled"})
	if err != nil {
		t.Fatal(err)
	}
	_, want, err := own.ValueAndGrad("z")
	if err != nil {
		t.Fatal(err)
	}
	if outs[1].String() != want[0].String() {
		t.Errorf("a group's gradient: %s, want %s (its own query's)", outs[1], want[0])
	}
}
