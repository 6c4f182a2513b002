package nablasd_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
	"gonum.org/v1/gonum/mat"
)

// every executor and optimization level the API offers
var variants = []nablasd.Options{
	{}, {Exec: "interp"}, {Opt: "none"}, {Opt: "none", Exec: "interp"}, {Opt: "rules"},
	{Threads: 2, Dict: "swiss", NoValidate: true}, {NoDPS: true, Dict: "map"},
}

// TestInputKinds: each kind of Go value binds to the same logical input:
// the dot product with [1, 2, 3] gives 1·a + 2·b + 3·c whatever the
// vector's kind and the executor.
func TestInputKinds(t *testing.T) {
	a := []float64{1, 2, 3}
	coo, _ := formats.FromCoords([]int{3}, [][]int{{0, 1, 2}}, a, formats.COO)
	vd := mat.NewVecDense(3, []float64{1, 2, 3})
	var strided mat.VecDense
	strided.CloneFromVec(mat.NewDense(3, 2, []float64{1, 0, 2, 0, 3, 0}).ColView(0))
	kinds := map[string]any{
		"[]float64": a, "coo": coo, "VecDense": vd, "strided": strided.SliceVec(0, 3),
		"map": map[int]float64{0: 1, 1: 2, 2: 3}, "sdql": sdql.MustParse("1"), // replaced below
	}
	d := sdql.NewDict()
	for i, x := range a {
		d.Set(i, sdql.Real(x))
	}
	kinds["sdql"] = sdql.Value(d)
	for name, v := range kinds {
		for _, o := range variants {
			o := o
			q, err := nablasd.Prepare("sum(<i, x> in v) x * w(i) * s", nablasd.Inputs{"v": v, "w": []float64{4, 5, 6}, "s": 2}, &o)
			if err != nil {
				t.Fatalf("%s %+v: %v", name, o, err)
			}
			r, err := q.Value()
			if err != nil {
				t.Fatalf("%s %+v: %v", name, o, err)
			}
			if r.Scalar() != 64 {
				t.Errorf("%s %+v: %v, want 2·(4 + 10 + 18) = 64", name, o, r)
			}
		}
	}
	// matrices: gonum dense and sparse (through mat.NonZeroDoer), rows,
	// a CSR from arrays, a map of maps: A·[1, 1] of [[1, 2], [0, 3]]
	csr, err := nablasd.CSR(2, 2, []int{0, 2, 3}, []int{0, 1, 1}, []float64{1, 2, 3})
	if err != nil {
		t.Fatal(err)
	}
	sparse, _ := formats.NewMatrix(csr)
	for name, m := range map[string]any{
		"Dense": mat.NewDense(2, 2, []float64{1, 2, 0, 3}), "Matrix": sparse, "rows": [][]float64{{1, 2}, {0, 3}},
		"csr": csr, "map": map[int]map[int]float64{0: {0: 1, 1: 2}, 1: {1: 3}},
	} {
		q, err := nablasd.Prepare("sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) }", nablasd.Inputs{"A": m, "x": []float64{1, 1}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		r, err := q.Value()
		if err != nil || r.String() != "{0 -> 3, 1 -> 3}" {
			t.Errorf("%s: %v (%v), want {0 -> 3, 1 -> 3}", name, r, err)
		}
	}
	if _, err := nablasd.Prepare("x", nablasd.Inputs{"x": "text"}, nil); err == nil || !strings.Contains(err.Error(), "cannot bind a string") {
		t.Errorf("a string input: %v", err)
	}
	if _, err := nablasd.CSR(2, 2, []int{0, 2, 1}, []int{0, 1}, []float64{1, 2}); err == nil {
		t.Errorf("CSR of a non-monotone indptr: no error")
	}
	// numbers typed by their use: an int range bound, a real factor
	q, err := nablasd.Prepare("sum(<_, i> in (0:n)) s * i", nablasd.Inputs{"n": 4.0, "s": 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r, _ := q.Value(); r.Scalar() != 6 {
		t.Errorf("n as int, s as real: %v", r)
	}
	if _, err := nablasd.Prepare("sum(<_, i> in (0:n)) 1.0 * i", nablasd.Inputs{"n": 2.5}, nil); err == nil ||
		!strings.Contains(err.Error(), "the program uses n as an int, but it is bound to 2.5") {
		t.Errorf("a fractional range bound: %v", err)
	}
}

// TestShapeCheck: a lookup whose key ranges over another input's
// dimension is checked before running, in every executor, and at a
// kernel's rerun over new inputs; NoShapeCheck keeps the partial
// semantics; computed keys stay unchecked.
func TestShapeCheck(t *testing.T) {
	A, _ := formats.FromCoords([]int{2, 5300}, [][]int{{0, 1}, {0, 5299}}, []float64{1, 2}, formats.CSR)
	x := make([]float64, 100)
	for _, o := range variants {
		o.File = "lsq.sdql"
		_, err := nablasd.Prepare("sum(<i, r> in A) sum(<j, a> in r) a * x(j)", nablasd.Inputs{"A": A, "x": x}, &o)
		if err == nil || err.Error() != "lsq.sdql:1:39: x has 100 entries but is indexed by A's columns (5300)" {
			t.Errorf("%+v: %v", o, err)
		}
		o.NoShapeCheck = true
		q, err := nablasd.Prepare("sum(<i, r> in A) sum(<j, a> in r) a * x(j)", nablasd.Inputs{"A": A, "x": x}, &o)
		if err != nil {
			t.Fatal(err)
		}
		if g, err := q.Grad("x"); err != nil || o.Exec != "interp" && g[0].Shape()[0] != 100 {
			t.Errorf("%+v: partial semantics: %v %v", o, g, err)
		}
	}
	q, err := nablasd.Prepare("sum(<i, a> in v) a * w(i - 1)", nablasd.Inputs{"v": []float64{1, 2}, "w": []float64{5}}, nil)
	if err != nil {
		t.Fatalf("a computed key: %v", err)
	}
	if r, _ := q.Value(); r.Scalar() != 10 {
		t.Errorf("a computed key: %v", r)
	}
	q, err = nablasd.Prepare("sum(<i, a> in v) a * w(i)", nablasd.Inputs{"v": []float64{1, 2}, "w": []float64{3, 4}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.Compile("w")
	if err != nil {
		t.Fatal(err)
	}
	dst := k.NewResult()
	err = k.Run(dst, nablasd.Inputs{"v": []float64{1, 2, 3}})
	if err == nil || !strings.Contains(err.Error(), "w has 2 entries but is indexed by v's entries (3)") {
		t.Errorf("a rerun with a longer v: %v", err)
	}
	if err := k.Run(dst, nablasd.Inputs{"v": []float64{1, 2, 3}, "w": []float64{0, 0, 0}}); err != nil || dst.String() != "{0 -> 1, 1 -> 2, 2 -> 3}" {
		t.Errorf("a rerun with both longer: %v %v", dst, err)
	}
	if err := k.Run(dst, nablasd.Inputs{"v": map[int]float64{0: 1}}); err == nil || !strings.Contains(err.Error(), "compiled for a dense tensor of order 1") {
		t.Errorf("a rerun with another kind: %v", err)
	}
}

// TestWarningsAndErrors: the lint and unused inputs are warnings; unbound
// inputs, misspelt calls and several wrt at once are errors naming the
// place.
func TestWarningsAndErrors(t *testing.T) {
	q, err := nablasd.Prepare("sum(<i, a> in v) a - b", nablasd.Inputs{"v": []float64{1, 2}, "b": 1.0, "c": 2.0}, &nablasd.Options{File: "p.sdql"})
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.Join(q.Warnings(), "\n")
	if ws != "p.sdql:1:20: the body of the sum at 1:1 extends over '- b', which uses none of the variables it binds: did you mean (sum …) - b? (parenthesize the body if not)\ninput c is not used by the program" {
		t.Errorf("warnings:\n%s", ws)
	}
	if r, _ := q.Value(); r.Scalar() != 1 {
		t.Errorf("(1 - 1) + (2 - 1) = 1, got %v", r)
	}
	for src, want := range map[string]string{
		"sum(<i, a> in v) a * y":     "p.sdql:1:22: undefined: y (no input binds it)",
		"sum(<i, a> in v) logg(a)":   "p.sdql:1:18: unknown function logg (did you mean log?)",
		"sum(<i, a> in v) tanhh(i)":  "p.sdql:1:18: unknown function tanhh (did you mean tanh?)",
		"sum(<i, a> in v) a +":       "p.sdql:1:21: expected an expression, found end of input",
		"sum(<i, a> in v) pow(a)":    "p.sdql:1:23: expected ',' and a second argument: pow takes two, pow(x, y); found ')'",
		"sum(<i, a> in v) v(i)(0)":   "p.sdql:1:15: v is a vector ({int -> real}) here; the program uses it as a matrix ({int -> {int -> real}}), first at 1:15 (the type error: 1:18: cannot look up a key in real (want a dictionary))",
		"sum(<i, a> in v) a - w(i)":  "p.sdql:1:22: undefined: w (no input binds it)",
		"sum(<i, a> in v) a * vv(i)": "p.sdql:1:22: undefined: vv (did you mean the input v?)",
		"sum(<i, a> in v) aa":        "p.sdql:1:18: undefined: aa (did you mean a?)",
	} {
		_, err := nablasd.Prepare(src, nablasd.Inputs{"v": []float64{1, 2}}, &nablasd.Options{File: "p.sdql"})
		if err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %s", src, err, want)
		}
	}
	q, _ = nablasd.Prepare("x * y", nablasd.Inputs{"x": 1.0, "y": 2.0}, nil)
	if k, err := q.Compile("x", "y"); err != nil || strings.Join(k.Outputs(), " ") != "x y" {
		t.Errorf("two wrt in one kernel: %v", err)
	}
	if g, err := q.Grad("x", "y"); err != nil || g[0].Scalar() != 2 || g[1].Scalar() != 1 {
		t.Errorf("Grad(x, y): %v %v", g, err)
	}
	if _, err := q.Grad("z"); err == nil || err.Error() != "wrt z: z is not an input of the program (its inputs: x, y)" {
		t.Errorf("Grad(z): %v", err)
	}
	if _, err := nablasd.Prepare("x", nil, &nablasd.Options{Opt: "max"}); err == nil || !strings.Contains(err.Error(), `Options.Opt "max"`) {
		t.Errorf("a bad option: %v", err)
	}
}

// TestPlan: the stages nablasd plan prints, in order, and planning without
// inputs (types inferred), which cannot run.
func TestPlan(t *testing.T) {
	A, _ := formats.FromCoords([]int{2, 2}, [][]int{{0, 1}, {1, 0}}, []float64{1, 2}, formats.CSR)
	q, err := nablasd.Prepare("sum(<i, r> in A) sum(<j, a> in r) a * x(j)", nablasd.Inputs{"A": A, "x": []float64{1, 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for mode, want := range map[string]string{
		"forward": "logical differentiated sparsity saturated composed normalized",
		"reverse": "logical anf linearized unzipped transposed differentiated sparsity saturated composed normalized",
	} {
		q, err := nablasd.Prepare("sum(<i, r> in A) sum(<j, a> in r) a * x(j)", nablasd.Inputs{"A": A, "x": []float64{1, 1}}, &nablasd.Options{Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		p, err := q.Plan("x")
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, s := range p.Stages {
			names = append(names, s.Name)
		}
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s mode: stages %s", mode, got)
		}
		if !strings.Contains(p.String(), "-- stage: differentiated\n") || !strings.HasSuffix(p.String(), "-- mode: "+mode+"\n") ||
			p.Program != p.Stages[len(p.Stages)-1].Program {
			t.Errorf("%s mode: plan:\n%s", mode, p)
		}
	}
	q, err = nablasd.Prepare("sum(<i, a> in V2) V1(i) * a", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p, err := q.Plan("V1"); err != nil || !strings.Contains(p.String(), "-- stage: differentiated\n") || p.Mode.String() != "reverse" {
		t.Errorf("plan without inputs: %v", err)
	}
	if _, err := q.Value(); err == nil || !strings.Contains(err.Error(), "undefined: V2 (no input binds it)") {
		t.Errorf("running without inputs: %v", err)
	}
}

// TestMemoryBudget: a result certainly over the budget is an error before
// anything runs, in every executor; a gradient's too.
func TestMemoryBudget(t *testing.T) {
	for _, o := range variants {
		o.MemoryLimit = 1 << 30
		_, err := nablasd.Prepare("sum(<i, _> in (0:n)) { i -> { i -> 1.0 } }", nablasd.Inputs{"n": 1 << 40}, &o)
		if err == nil || err.Error() != "1:1: the result needs 8.0 TiB (1099511627776 entries), over the memory limit of 1.0 GiB" {
			t.Errorf("%+v: %v", o, err)
		}
		// a gradient's size is checked too, as far as a lower bound on it
		// sees (else the executors stop it as it grows)
		q, err := nablasd.Prepare("sum(<i, _> in (0:n)) 1.0 * i * x", nablasd.Inputs{"n": 1 << 40, "x": 1.0}, &o)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := q.Plan("x"); err != nil {
			t.Errorf("%+v: a scalar gradient: %v", o, err)
		}
	}
	for _, s := range []string{"512MiB", "0.5 GiB", "536870912", "536.870912MB"} {
		if n, err := nablasd.ParseBytes(s); err != nil || n != 512<<20 {
			t.Errorf("ParseBytes(%q) = %d, %v", s, n, err)
		}
	}
	for _, s := range []string{"none", "0", "0B", "0 MiB", "0.0"} {
		if n, err := nablasd.ParseBytes(s); err != nil || n != -1 {
			t.Errorf("ParseBytes(%q) = %d, %v; want -1 (no budget)", s, n, err)
		}
	}
	for _, s := range []string{"lots", "0.5B", "-1", "0%"} {
		if _, err := nablasd.ParseBytes(s); err == nil {
			t.Errorf("ParseBytes(%q): no error", s)
		}
	}
	// without a budget, the memory available still bounds a result
	if avail := nablasd.AvailableMemory(); avail > 0 {
		_, err := nablasd.Prepare("sum(<i, _> in (0:n)) { i -> { i -> 1.0 } }", nablasd.Inputs{"n": 1 << 40}, &nablasd.Options{MemoryLimit: -1})
		want := "1:1: the result needs 8.0 TiB (1099511627776 entries), more than the memory available (" + sdql.FormatBytes(float64(avail)) + ")"
		if err == nil || err.Error() != want {
			t.Errorf("no budget: %v, want %s", err, want)
		}
	}
	if d := nablasd.DefaultMemoryLimit(); d != -1 && d != nablasd.AvailableMemory()/5*4 {
		t.Errorf("DefaultMemoryLimit %d is not 80%% of %d", d, nablasd.AvailableMemory())
	}
}

// TestLoad: a one-column Matrix Market file is a vector, as in the CLI.
func TestLoad(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.mtx")
	os.WriteFile(p, []byte("%%MatrixMarket matrix coordinate real general\n4 1 2\n1 1 2.0\n3 1 0.5\n"), 0o644)
	b, err := nablasd.Load(p, nil)
	if err != nil || b.Order() != 1 || b.Format != formats.COO || b.Shape[0] != 4 {
		t.Fatalf("Load: %v, %v", b, err)
	}
	if b, err := nablasd.Load(p+":dense", nil); err != nil || b.Format != formats.Dense {
		t.Errorf("Load :dense: %v, %v", b, err)
	}
	if _, err := nablasd.Load("synthetic:rows=3,colz=2", nil); err == nil || !strings.Contains(err.Error(), "colz") {
		t.Errorf("bad synthetic: %v", err)
	}
}

// TestLoadTables: Load reads the table specs the CLI's --in does
// (Parquet and Arrow, with a format and column options), and LoadValue a
// number and a table of one number.
func TestLoadTables(t *testing.T) {
	dir := t.TempDir()
	m, err := formats.FromCoords([]int{3, 4}, [][]int{{0, 2, 2}, {1, 0, 3}}, []float64{1.5, -2, 4}, formats.COO)
	if err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".parquet", ".arrow", ".arrows"} {
		p := filepath.Join(dir, "m"+ext)
		if err := datasets.WriteTensorTable(p, m, nil); err != nil {
			t.Fatal(err)
		}
		got, err := nablasd.Load(p+":csc", nil)
		if err != nil {
			t.Fatalf("Load %s:csc: %v", ext, err)
		}
		if got.Format != formats.CSC || !sdql.Equal(formats.ToValue(got), formats.ToValue(m)) {
			t.Errorf("Load %s:csc: %v, want %v in CSC", ext, formats.ToValue(got), formats.ToValue(m))
		}
		// a shape option must agree with the one the table records
		if _, err = nablasd.Load(p+"?shape=5x6", nil); err == nil || !strings.Contains(err.Error(), "disagrees") {
			t.Errorf("Load %s?shape=5x6: %v, want the disagreement", ext, err)
		}
	}
	if _, err := nablasd.Load(filepath.Join(dir, "m.parquet")+":cssr", nil); err == nil || !strings.Contains(err.Error(), "cssr") {
		t.Errorf("a misspelt format: %v", err)
	}
	s := filepath.Join(dir, "s.parquet")
	if err := datasets.WriteTable(s, &datasets.TableTensor{Scalar: 2.5}, nil); err != nil {
		t.Fatal(err)
	}
	if v, err := nablasd.LoadValue(s, nil); err != nil || v != 2.5 {
		t.Errorf("LoadValue of a number's table: %v, %v", v, err)
	}
	if _, err := nablasd.Load(s, nil); err == nil || !strings.Contains(err.Error(), "holds a number") {
		t.Errorf("Load of a number's table: %v", err)
	}
	if v, err := nablasd.LoadValue("0.7", nil); err != nil || v != 0.7 {
		t.Errorf("LoadValue 0.7: %v, %v", v, err)
	}
}
