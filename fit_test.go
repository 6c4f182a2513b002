package nablasd_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// fitData is a small least-squares problem: a random sparse m×n design A
// (CSR, about a third of its entries), b, and a start x0.
func fitData(t *testing.T, m, n int, seed uint64) (A *formats.Tensor, dense *mat.Dense, b, x0 []float64) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 36))
	dense = mat.NewDense(m, n, nil)
	var idx [2][]int
	var val []float64
	for i := range m {
		for j := range n {
			if rng.Float64() < 0.35 || i == j {
				v := 2*rng.Float64() - 1
				dense.Set(i, j, v)
				idx[0], idx[1], val = append(idx[0], i), append(idx[1], j), append(val, v)
			}
		}
	}
	A, err := formats.FromCoords([]int{m, n}, idx[:], val, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	b, x0 = make([]float64, m), make([]float64, n)
	for i := range b {
		b[i] = 2*rng.Float64() - 1
	}
	for j := range x0 {
		x0[j] = 0.1 * (2*rng.Float64() - 1)
	}
	return A, dense, b, x0
}

const fitLeastSquares = `
let r = sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) } in
let d = r - b in
0.5 * sum(<i, v> in d) v * v`

// TestMinimizeLeastSquares: every method fits ½‖Ax − b‖² to the solution
// of the normal equations (gonum's QR), on every executor; the inputs
// are left as they were.
func TestMinimizeLeastSquares(t *testing.T) {
	A, dense, b, x0 := fitData(t, 40, 12, 1)
	var want mat.VecDense
	if err := want.SolveVec(dense, mat.NewVecDense(len(b), b)); err != nil {
		t.Fatal(err)
	}
	start := append([]float64(nil), x0...)
	queries := map[string]*nablasd.Query{}
	for _, exec := range []string{"compiled", "interp"} {
		q, err := nablasd.Prepare(fitLeastSquares, nablasd.Inputs{"A": A, "b": b, "x": x0}, &nablasd.Options{Exec: exec})
		if err != nil {
			t.Fatal(err)
		}
		queries[exec] = q
	}
	for _, c := range []struct {
		method string
		tol    float64
		iters  int
		lr     float64
	}{
		{method: "lbfgs", tol: 1e-8}, {method: "bfgs", tol: 1e-8}, {method: "cg", tol: 1e-8},
		{method: "gd", tol: 1e-7, iters: 20000}, {method: "adam", tol: 1e-7, iters: 20000, lr: 0.01},
	} {
		for _, exec := range []string{"compiled", "interp"} {
			fit, err := queries[exec].Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}, Method: c.method,
				Tol: c.tol, MaxIter: c.iters, LearningRate: c.lr})
			if err != nil {
				t.Fatalf("%s %s: %v", c.method, exec, err)
			}
			if !fit.Converged {
				t.Errorf("%s %s: %s", c.method, exec, fit.Reason)
			}
			x := fit.Value("x")
			for j := range x {
				if math.Abs(x[j]-want.AtVec(j)) > 1e-5 {
					t.Errorf("%s %s: x[%d] = %v, the normal equations' %v (%s)", c.method, exec, j, x[j], want.AtVec(j), fit.Reason)
					break
				}
			}
			if fit.Evaluations < fit.Iterations || fit.Evaluations > fit.FuncEvaluations+1 {
				t.Errorf("%s %s: %d iterations, %d kernel runs, %d Func calls", c.method, exec, fit.Iterations, fit.Evaluations, fit.FuncEvaluations)
			}
		}
	}
	for j := range x0 {
		if x0[j] != start[j] {
			t.Fatalf("the fit changed its start x0")
		}
	}
	// the tests are relative: a loss scaled by 1e-20 (gradients below
	// gonum's own default threshold of 1e-12) fits to the same point
	q, err := nablasd.Prepare("1e-20 * "+fitLeastSquares, nablasd.Inputs{"A": A, "b": b, "x": x0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}, Tol: 1e-8})
	if err != nil || !fit.Converged || math.Abs(fit.Value("x")[0]-want.AtVec(0)) > 1e-5 {
		t.Errorf("a loss scaled by 1e-20: %v, %+v", err, fit)
	}
}

// TestProblemOneRun: Func and Grad at one point share one kernel run; a
// new point runs again; the gradient equals central differences of Func.
func TestProblemOneRun(t *testing.T) {
	A, _, _, x0 := fitData(t, 30, 8, 2)
	y := make([]float64, 30)
	for i := range y {
		y[i] = float64(i % 2)
	}
	q, err := nablasd.Prepare(`
		sum(<i, row> in A)
		  let z = sum(<j, a> in row) a * x(j) + c in
		  log(1 + exp(z)) - y(i) * z`, nablasd.Inputs{"A": A, "x": x0, "y": y, "c": 0.3}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := q.Problem("x", "c")
	if err != nil {
		t.Fatal(err)
	}
	if p.Dim() != 9 || p.Params()[1].Name != "c" || p.Params()[1].Offset != 8 {
		t.Fatalf("params %+v", p.Params())
	}
	x := p.X0()
	g := make([]float64, len(x))
	f := p.Func(x)
	p.Grad(g, x)
	if p.Runs() != 1 {
		t.Fatalf("Func and Grad at one point: %d runs, want 1", p.Runs())
	}
	for i := range x {
		h := 1e-6 * max(1, math.Abs(x[i]))
		xp, xm := append([]float64(nil), x...), append([]float64(nil), x...)
		xp[i] += h
		xm[i] -= h
		fd := (p.Func(xp) - p.Func(xm)) / (2 * h)
		if math.Abs(fd-g[i]) > 1e-6*max(1, math.Abs(fd)) {
			t.Errorf("d/d%d: gradient %v, central differences %v", i, g[i], fd)
		}
	}
	if p.Runs() != 1+2*len(x) {
		t.Errorf("%d runs, want %d", p.Runs(), 1+2*len(x))
	}
	if f2 := p.Func(x); f2 != f {
		t.Errorf("Func at the start again: %v, first %v", f2, f)
	}
}

// TestProblemParamKinds: a sparse parameter (a COO vector, fitted on its
// stored positions), a dense column-major matrix and a number give the
// gradients of central differences; read from a dense bundle or through
// its entries (the interpreter) alike.
func TestProblemParamKinds(t *testing.T) {
	sparse, err := formats.FromCoords([]int{6}, [][]int{{1, 4, 5}}, []float64{0.5, -1, 2}, formats.COO)
	if err != nil {
		t.Fatal(err)
	}
	colMajor, err := formats.FromCoords([]int{2, 3}, [][]int{{0, 0, 0, 1, 1, 1}, {0, 1, 2, 0, 1, 2}},
		[]float64{1, 2, 3, 4, 5, 6}, formats.DenseCol)
	if err != nil {
		t.Fatal(err)
	}
	src := `(sum(<i, v> in s) v * v * w(i)) + (sum(<i, r> in M) sum(<j, m> in r) m * m * m * (i + 1)) + c * c * c`
	for _, exec := range []string{"compiled", "interp"} {
		q, err := nablasd.Prepare(src, nablasd.Inputs{"s": sparse, "w": []float64{1, 2, 3, 4, 5, 6}, "M": colMajor, "c": 1.5},
			&nablasd.Options{Exec: exec})
		if err != nil {
			t.Fatal(err)
		}
		// by hand: d/ds_p = 2 s_p w(i_p); d/dM = 3 m² (i + 1) on the
		// column-major positions; d/dc = 3c²
		ds := []float64{2 * 0.5 * 2, 2 * -1 * 5, 2 * 2 * 6}
		dM := []float64{3 * 1 * 1, 3 * 16 * 2, 3 * 4 * 1, 3 * 25 * 2, 3 * 9 * 1, 3 * 36 * 2}
		dc := []float64{3 * 1.5 * 1.5}
		// with s the bundle is read through its entries; without, from its
		// dense array (M's positions gathered from its rows)
		for _, c := range []struct {
			wrt  []string
			want []float64
		}{
			{[]string{"s", "M", "c"}, append(append(append([]float64(nil), ds...), dM...), dc...)},
			{[]string{"M", "c"}, append(append([]float64(nil), dM...), dc...)},
		} {
			p, err := q.Problem(c.wrt...)
			if err != nil {
				t.Fatal(err)
			}
			x := p.X0()
			g := make([]float64, len(x))
			p.Grad(g, x)
			for i := range c.want {
				if math.Abs(g[i]-c.want[i]) > 1e-12 {
					t.Errorf("%s %v: gradient %v, want %v", exec, c.wrt, g, c.want)
					break
				}
			}
		}
	}
}

// TestMinimizeStops: a cancelled context, a diverging fit and a loss that
// is NaN at the start end with an error saying so, and the fit's last
// good iterate.
func TestMinimizeStops(t *testing.T) {
	A, _, b, x0 := fitData(t, 20, 5, 3)
	q, err := nablasd.Prepare(fitLeastSquares, nablasd.Inputs{"A": A, "b": b, "x": x0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var seen []nablasd.FitProgress
	fit, err := q.Minimize(ctx, &nablasd.FitOptions{Wrt: []string{"x"}, Tol: 1e-14, Method: "gd", MaxIter: 1000,
		Progress: func(pr nablasd.FitProgress) {
			seen = append(seen, pr)
			if pr.Iteration == 3 {
				cancel()
			}
		}})
	if !errors.Is(err, context.Canceled) || fit == nil || fit.Iterations != 3 || !strings.Contains(err.Error(), "last good iterate is iteration 3's") {
		t.Fatalf("cancelled: %v %+v", err, fit)
	}
	if last := seen[len(seen)-1]; !last.Done || seen[3].Loss != fit.Loss {
		t.Errorf("progress %+v, fit loss %v", seen, fit.Loss)
	}
	fit, err = q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}, Tol: 1e-14, Method: "gd", MaxIter: 7})
	if err != nil || fit.Iterations != 7 || fit.Status != optimize.IterationLimit || !strings.Contains(fit.Reason, "iteration limit (7)") {
		t.Errorf("7 iterations at most: %v, %d iterations, %s", err, fit.Iterations, fit.Reason)
	}

	// a loss unbounded below: exp overflows
	qd, err := nablasd.Prepare("sum(<i, v> in x) -exp(v)", nablasd.Inputs{"x": []float64{1, 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit, err = qd.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}})
	var d *nablasd.DivergedError
	if !errors.As(err, &d) || fit == nil || math.IsInf(fit.Loss, 0) || math.IsNaN(fit.Loss) {
		t.Fatalf("diverging: %v %+v", err, fit)
	}
	for _, v := range fit.X {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			t.Fatalf("diverging: the iterate kept is not finite: %v", fit.X)
		}
	}

	// log of a negative number at the start
	q2, err := nablasd.Prepare("sum(<i, v> in x) log(v)", nablasd.Inputs{"x": []float64{1, -1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit, err = q2.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}})
	if !errors.As(err, &d) || !strings.Contains(err.Error(), "at the start") || fit.X[1] != -1 {
		t.Errorf("NaN at the start: %v %+v", err, fit)
	}
}

// TestFitBadInput: what cannot be fitted is an error naming the reason.
func TestFitBadInput(t *testing.T) {
	for _, c := range []struct {
		src  string
		in   nablasd.Inputs
		wrt  []string
		want string
	}{
		{"sum(<i, v> in x) { i -> v * v }", nablasd.Inputs{"x": []float64{1}}, []string{"x"}, "fit.sdql:1:1: a fit minimizes a real number, and the program's result is {int -> real}"},
		{"sum(<i, v> in x) v * v", nablasd.Inputs{"x": []float64{1}}, []string{"y"}, "wrt y: y is not an input of the program (its inputs: x)"},
		{"sum(<i, v> in x) v * v", nablasd.Inputs{"x": []float64{1}}, nil, "needs the inputs to fit"},
		{"sum(<i, v> in x) v * v", nablasd.Inputs{"x": []float64{1}}, []string{"x", "x"}, "given twice"},
		{"sum(<i, j> in (0:n)) x(j) * x(j)", nablasd.Inputs{"n": 2, "x": []float64{1, 2}}, []string{"n"}, "the program uses n as int"},
		{"sum(<i, v> in x) v * v", nablasd.Inputs{"x": map[int]float64{0: 1}}, []string{"x"}, "a parameter is a tensor"},
		{"sum(<i, v> in x) v * v", nablasd.Inputs{"x": []float64{}}, []string{"x"}, "nothing to fit"},
	} {
		q, err := nablasd.Prepare(c.src, c.in, &nablasd.Options{File: "fit.sdql"})
		if err != nil {
			t.Fatal(err)
		}
		_, err = q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: c.wrt})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s wrt %v: %v, want %q", c.src, c.wrt, err, c.want)
		}
	}
}

// TestProblemGonum: the Problem is gonum's: optimize.Minimize with any of
// its methods, here Nelder–Mead (Func only) and Newton's method is
// refused (no Hessian).
func TestProblemGonum(t *testing.T) {
	q, err := nablasd.Prepare("sum(<i, v> in x) (v - i) * (v - i)", nablasd.Inputs{"x": []float64{5, 5, 5}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := q.Problem("x")
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.Minimize(p.Problem, p.X0(), nil, &optimize.NelderMead{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range res.X {
		if math.Abs(v-float64(i)) > 1e-3 {
			t.Errorf("Nelder–Mead: %v, want [0 1 2]", res.X)
		}
	}
}

// repeater is a gonum Method that asks for its start over and over, as
// gonum's Moré–Thuente can once its interval stops shrinking.
type repeater struct{}

func (repeater) Init(dim, tasks int) int { return 1 }
func (repeater) Uses(has optimize.Available) (optimize.Available, error) {
	return optimize.Available{Grad: true}, nil
}
func (repeater) Run(operation chan<- optimize.Task, result <-chan optimize.Task, tasks []optimize.Task) {
	task := tasks[0]
	for {
		task.Op = optimize.FuncEvaluation | optimize.GradEvaluation
		operation <- task
		if task = <-result; task.Op == optimize.PostIteration {
			break
		}
	}
	for range result {
	}
	close(operation)
}

// TestProblemStalls: a method that asks for one point over and over is
// stopped by the Problem's Status (one kernel run), not left spinning.
func TestProblemStalls(t *testing.T) {
	q, err := nablasd.Prepare("sum(<i, v> in x) v * v", nablasd.Inputs{"x": []float64{1, 2}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := q.Problem("x")
	if err != nil {
		t.Fatal(err)
	}
	res, err := optimize.Minimize(p.Problem, p.X0(), nil, repeater{})
	if err == nil || !strings.Contains(err.Error(), "the same point over and over") || res.Status != optimize.Failure || p.Runs() != 1 {
		t.Errorf("%v, %v, %d runs", err, res, p.Runs())
	}
}

// TestMinimizeBacksOff: a line search that reaches a step whose loss
// overflows (log(1 + exp(z)) past z ≈ 710) shortens it instead of
// stopping the fit: the fit converges to the minimizer of
// log(1 + exp(1000v)) − 10v, v = log(1/99)/1000.
func TestMinimizeBacksOff(t *testing.T) {
	// from v = -100 the line search extrapolates past v = 0.71
	q, err := nablasd.Prepare("sum(<i, v> in x) log(1 + exp(1000 * v)) - 10 * v", nablasd.Inputs{"x": []float64{-100}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []string{"lbfgs", "cg", "gd", "bfgs"} {
		fit, err := q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}, Method: method, Tol: 1e-9})
		want := math.Log(1.0/99) / 1000
		if err != nil || math.Abs(fit.X[0]-want) > 1e-9 {
			t.Errorf("%s: %v, x %v, want %v (%s)", method, err, fit.X, want, fit.Reason)
		}
	}
	// log(1 + exp(v)) − 2v falls without bound, and overflows past
	// v ≈ 709.78 first: the fit stops at the wall, saying so, without an
	// error
	q, err = nablasd.Prepare("sum(<i, v> in x) log(1 + exp(v)) - 2 * v", nablasd.Inputs{"x": []float64{0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fit, err := q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}})
	if err != nil || fit.Converged || fit.X[0] < 700 || fit.X[0] > 709.8 || !strings.Contains(fit.Reason, "softplus(z) does not") {
		t.Errorf("the overflow's wall: %v, x %v, %s", err, fit.X, fit.Reason)
	}
}
