package bench

import (
	"fmt"
	"math"

	"github.com/nablasd/nablasd/formats"
)

// The hand-written Go closed forms of the workloads (../shared/workloads):
// each value and gradient as a Go programmer writes it over the CSR
// arrays of A and dense vectors and row-major matrices, in one or two
// passes over A, into a destination (and workspace) the caller reuses.
// They are the yardstick of the compiled kernels, and an oracle
// independent of the engine (workloads_test.go checks them against the
// reference interpreter and finite differences).
//
// A is m×n; x has n entries, b and y m. A missing row of the CSR arrays
// is an empty row, as the programs see it: its sum is 0.

// csrMatrix is a CSR matrix's arrays, as the hand-written loops read
// them.
type csrMatrix struct {
	rows, cols int
	pos, idx   []int
	val        []float64
}

func csrOf(t *formats.Tensor) csrMatrix {
	return csrMatrix{rows: t.Shape[0], cols: t.Shape[1], pos: t.Pos[1], idx: t.Idx[1], val: t.Val}
}

// row returns row i's columns and values.
func (a csrMatrix) row(i int) ([]int, []float64) {
	lo, hi := a.pos[i], a.pos[i+1]
	return a.idx[lo:hi], a.val[lo:hi:hi]
}

// rowDot returns row i of A times x.
func (a csrMatrix) rowDot(i int, x []float64) float64 {
	idx, val := a.row(i)
	val = val[:len(idx)]
	s := 0.0
	for p, j := range idx {
		s += val[p] * x[j]
	}
	return s
}

// scatter adds c times row i of A into g (g += c Aᵢ, g indexed by
// columns).
func (a csrMatrix) scatter(i int, c float64, g []float64) {
	idx, val := a.row(i)
	val = val[:len(idx)]
	for p, j := range idx {
		g[j] += c * val[p]
	}
}

// leastSquaresValue is ½‖Ax − b‖².
func leastSquaresValue(a csrMatrix, x, b []float64) float64 {
	b = b[:a.rows]
	f := 0.0
	for i := range b {
		d := a.rowDot(i, x) - b[i]
		f += d * d
	}
	return 0.5 * f
}

// leastSquaresGrad writes Aᵀ(Ax − b) into g (n entries): for each row,
// its residual, then the row scaled by it.
func leastSquaresGrad(a csrMatrix, x, b, g []float64) {
	clear(g)
	b = b[:a.rows]
	for i := range b {
		a.scatter(i, a.rowDot(i, x)-b[i], g)
	}
}

// ridgeValue is ½‖Ax − b‖² + ½λ‖x‖².
func ridgeValue(a csrMatrix, x, b []float64, lambda float64) float64 {
	s := 0.0
	for _, v := range x {
		s += v * v
	}
	return leastSquaresValue(a, x, b) + 0.5*lambda*s
}

// ridgeGrad writes Aᵀ(Ax − b) + λx into g.
func ridgeGrad(a csrMatrix, x, b []float64, lambda float64, g []float64) {
	g = g[:len(x)]
	for j, v := range x {
		g[j] = lambda * v
	}
	b = b[:a.rows]
	for i := range b {
		a.scatter(i, a.rowDot(i, x)-b[i], g)
	}
}

// logisticValue is Σᵢ log(1 + exp(zᵢ)) − yᵢzᵢ with z = Ax, written as the
// program writes it (no log1p).
func logisticValue(a csrMatrix, x, y []float64) float64 {
	y = y[:a.rows]
	f := 0.0
	for i := range y {
		z := a.rowDot(i, x)
		f += math.Log(1+math.Exp(z)) - y[i]*z
	}
	return f
}

// logisticGrad writes Aᵀ(σ(Ax) − y) into g, σ(z) = 1/(1 + exp(−z)).
func logisticGrad(a csrMatrix, x, y, g []float64) {
	clear(g)
	y = y[:a.rows]
	for i := range y {
		z := a.rowDot(i, x)
		a.scatter(i, 1/(1+math.Exp(-z))-y[i], g)
	}
}

// laplacianValue is ½ Σ₍ᵢ,ⱼ₎ A(i,j) (x(i) − x(j))² over A's entries (A
// square): xᵀLx with L the Laplacian of (A + Aᵀ)/2.
func laplacianValue(a csrMatrix, x []float64) float64 {
	f := 0.0
	for i := 0; i < a.rows; i++ {
		xi := x[i]
		idx, val := a.row(i)
		val = val[:len(idx)]
		for p, j := range idx {
			d := xi - x[j]
			f += val[p] * d * d
		}
	}
	return 0.5 * f
}

// laplacianGrad writes the gradient of laplacianValue into g: 2Lx for the
// Laplacian L of (A + Aᵀ)/2, that is (diag(row sums + column sums) − A −
// Aᵀ) x (2Lx with L = D − A for a symmetric A, as the workload's comment
// says). One pass: each entry A(i,j) adds A(i,j)(x(i) − x(j)) to g(i) and
// takes it from g(j).
func laplacianGrad(a csrMatrix, x, g []float64) {
	clear(g)
	for i := 0; i < a.rows; i++ {
		xi := x[i]
		idx, val := a.row(i)
		val = val[:len(idx)]
		gi := 0.0
		for p, j := range idx {
			t := val[p] * (xi - x[j])
			gi += t
			g[j] -= t
		}
		g[i] += gi
	}
}

// mlp2Value is Σᵢ tanh((A h)ᵢ) with h = tanh(A x), A square; h is a
// workspace of m entries.
func mlp2Value(a csrMatrix, x, h []float64) float64 {
	h = h[:a.rows]
	for i := range h {
		h[i] = math.Tanh(a.rowDot(i, x))
	}
	f := 0.0
	for i := range h {
		f += math.Tanh(a.rowDot(i, h))
	}
	return f
}

// mlp2Grad writes the gradient of mlp2Value into g by the closed form of
// the workload's comment, Aᵀ(diag(1 − h²) Aᵀ(1 − tanh(A h)²)): h =
// tanh(A x) into h, then t = Aᵀ(1 − tanh(A h)²) into t (a workspace of n
// entries), then g = Aᵀ(t ⊙ (1 − h²)).
func mlp2Grad(a csrMatrix, x, h, t, g []float64) {
	h = h[:a.rows]
	for i := range h {
		h[i] = math.Tanh(a.rowDot(i, x))
	}
	clear(t)
	for i := range h {
		th := math.Tanh(a.rowDot(i, h))
		a.scatter(i, 1-th*th, t)
	}
	clear(g)
	t = t[:len(h)]
	for j, hj := range h {
		a.scatter(j, t[j]*(1-hj*hj), g)
	}
}

// factorizationValue is Σ₍ᵢ,ⱼ₎∈R (R(i,j) − U(i)·W(j))² over R's entries;
// U (m×k) and W (n×k) are row-major.
func factorizationValue(r csrMatrix, u, w []float64, k int) float64 {
	f := 0.0
	for i := 0; i < r.rows; i++ {
		ui := u[i*k : i*k+k]
		idx, val := r.row(i)
		val = val[:len(idx)]
		for p, j := range idx {
			wj := w[j*k : j*k+k]
			wj = wj[:len(ui)]
			dot := 0.0
			for c, uc := range ui {
				dot += uc * wj[c]
			}
			e := val[p] - dot
			f += e * e
		}
	}
	return f
}

// factorizationGrad writes the gradient with respect to U into g (m×k,
// row-major): g(i) = −2 Σⱼ (R(i,j) − U(i)·W(j)) W(j) over row i's
// entries.
func factorizationGrad(r csrMatrix, u, w []float64, k int, g []float64) {
	for i := 0; i < r.rows; i++ {
		ui := u[i*k : i*k+k]
		gi := g[i*k : i*k+k]
		gi = gi[:len(ui)]
		clear(gi)
		idx, val := r.row(i)
		val = val[:len(idx)]
		for p, j := range idx {
			wj := w[j*k : j*k+k]
			wj = wj[:len(ui)]
			dot := 0.0
			for c, uc := range ui {
				dot += uc * wj[c]
			}
			s := -2 * (val[p] - dot)
			for c, wc := range wj {
				gi[c] += s * wc
			}
		}
	}
}

// handForm is a workload's hand-written closed form over one input: its
// value, and its gradient into a destination of gradShape (the wrt
// input's shape), with a workspace newGrad allocates.
type handForm struct {
	value     func() float64
	gradShape []int
	newGrad   func() (grad func(g []float64))
}

// handFormOf returns the closed form of the workload over the data.
func handFormOf(name string, d *WorkloadData) (*handForm, error) {
	a := csrOf(d.A)
	m, n := d.Rows(), d.Cols()
	square := func() error {
		if m != n {
			return fmt.Errorf("bench: workload %s needs a square matrix, have %d×%d", name, m, n)
		}
		return nil
	}
	stateless := func(grad func(g []float64)) func() func(g []float64) {
		return func() func(g []float64) { return grad }
	}
	hf := &handForm{gradShape: []int{n}}
	switch name {
	case "least_squares":
		hf.value = func() float64 { return leastSquaresValue(a, d.X, d.B) }
		hf.newGrad = stateless(func(g []float64) { leastSquaresGrad(a, d.X, d.B, g) })
	case "ridge":
		hf.value = func() float64 { return ridgeValue(a, d.X, d.B, d.Lambda) }
		hf.newGrad = stateless(func(g []float64) { ridgeGrad(a, d.X, d.B, d.Lambda, g) })
	case "logistic":
		hf.value = func() float64 { return logisticValue(a, d.X, d.Y) }
		hf.newGrad = stateless(func(g []float64) { logisticGrad(a, d.X, d.Y, g) })
	case "laplacian":
		if err := square(); err != nil {
			return nil, err
		}
		hf.value = func() float64 { return laplacianValue(a, d.X) }
		hf.newGrad = stateless(func(g []float64) { laplacianGrad(a, d.X, g) })
	case "mlp2":
		if err := square(); err != nil {
			return nil, err
		}
		h := make([]float64, m)
		hf.value = func() float64 { return mlp2Value(a, d.X, h) }
		hf.newGrad = func() func(g []float64) {
			h, t := make([]float64, m), make([]float64, n)
			return func(g []float64) { mlp2Grad(a, d.X, h, t, g) }
		}
	case "factorization":
		k := d.K
		hf.gradShape = []int{m, k}
		hf.value = func() float64 { return factorizationValue(a, d.U, d.W, k) }
		hf.newGrad = stateless(func(g []float64) { factorizationGrad(a, d.U, d.W, k, g) })
	default:
		return nil, fmt.Errorf("bench: no hand-written closed form for workload %q", name)
	}
	return hf, nil
}
