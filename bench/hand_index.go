package bench

import "math"

// The hand-written Go closed forms of the index workloads
// (index_workloads.go): each value and gradient as a Go programmer writes
// it over the dense slices, in one pass over a range lo..hi-1 of its
// outer loop (the serial form runs the whole range; the two-goroutine
// splits of hand_index_threads.go run parts of it), the loops' ranges those where
// every read is in bounds (the programs read zero past an input's end;
// with the sizes of NewIndexData nothing is read there, except the
// Toeplitz band's corners, which the loops clip). They are the yardstick
// of the compiled kernels and an oracle independent of the engine
// (index_workloads_test.go checks them against the reference interpreter
// and finite differences).

// dot is Σ a[i]·b[i] over a's length.
func dot(a, b []float64) float64 {
	b = b[:len(a)]
	s := 0.0
	for i, x := range a {
		s += x * b[i]
	}
	return s
}

// axpy adds c·a into y.
func axpy(c float64, a, y []float64) {
	y = y[:len(a)]
	for i, x := range a {
		y[i] += c * x
	}
}

func clear64(g []float64) {
	for i := range g {
		g[i] = 0
	}
}

// conv1dValue is ‖x ⋆ K‖², y(i) = Σ_k K(k) x(i + k) for i < n.
func conv1dValue(x, K []float64, n int) float64 { return conv1dValueRange(x, K, 0, n) }

func conv1dValueRange(x, K []float64, lo, hi int) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		y := dot(K, x[i:])
		s += y * y
	}
	return s
}

// conv1dGradX is d‖x ⋆ K‖²/dx: 2y(i)·K added at x(i..i+len(K)-1).
func conv1dGradX(x, K []float64, n int, g []float64) {
	clear64(g)
	conv1dGradXRange(x, K, 0, n, g)
}

func conv1dGradXRange(x, K []float64, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		axpy(2*dot(K, x[i:]), K, g[i:])
	}
}

// conv1dGradK is d‖x ⋆ K‖²/dK: Σ_i 2y(i)·x(i + k).
func conv1dGradK(x, K []float64, n int, g []float64) {
	clear64(g)
	conv1dGradKRange(x, K, 0, n, g)
}

func conv1dGradKRange(x, K []float64, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		axpy(2*dot(K, x[i:]), x[i:i+len(K)], g)
	}
}

// stencilValue is ‖ΔU‖² over the interior of the n × m row-major U.
func stencilValue(U []float64, n, m int) float64 { return stencilValueRows(U, m, 1, n-1) }

func stencilValueRows(U []float64, m, lo, hi int) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		up, row, down := U[(i-1)*m:i*m], U[i*m:(i+1)*m], U[(i+1)*m:(i+2)*m]
		for j := 1; j < m-1; j++ {
			d := up[j] + down[j] + row[j-1] + row[j+1] - 4*row[j]
			s += d * d
		}
	}
	return s
}

// stencilGrad is d‖ΔU‖²/dU: 2ΔU spread back through the stencil.
func stencilGrad(U []float64, n, m int, g []float64) {
	clear64(g)
	stencilGradRows(U, m, 1, n-1, g)
}

func stencilGradRows(U []float64, m, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		up, row, down := U[(i-1)*m:i*m], U[i*m:(i+1)*m], U[(i+1)*m:(i+2)*m]
		gu, gr, gd := g[(i-1)*m:i*m], g[i*m:(i+1)*m], g[(i+1)*m:(i+2)*m]
		for j := 1; j < m-1; j++ {
			d := 2 * (up[j] + down[j] + row[j-1] + row[j+1] - 4*row[j])
			gu[j] += d
			gd[j] += d
			gr[j-1] += d
			gr[j+1] += d
			gr[j] -= 4 * d
		}
	}
}

// tvValue is Σ_{i < n-1} sqrt((x(i+1) - x(i))² + eps).
func tvValue(x []float64, n int, eps float64) float64 { return tvValueRange(x[:n], eps, 0, n-1) }

func tvValueRange(x []float64, eps float64, lo, hi int) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		d := x[i+1] - x[i]
		s += math.Sqrt(d*d + eps)
	}
	return s
}

// tvGrad is its gradient: g(i) = d(i)/sqrt(d(i)² + eps) at i + 1, minus
// at i.
func tvGrad(x []float64, n int, eps float64, g []float64) {
	clear64(g)
	tvGradRange(x[:n], eps, 0, n-1, g)
}

func tvGradRange(x []float64, eps float64, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		d := x[i+1] - x[i]
		c := d / math.Sqrt(d*d+eps)
		g[i+1] += c
		g[i] -= c
	}
}

// downsampleValue is ‖y‖², y(i) = Σ_k K(k) x(2i + k) for i < n.
func downsampleValue(x, K []float64, n int) float64 { return downsampleValueRange(x, K, 0, n) }

func downsampleValueRange(x, K []float64, lo, hi int) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		y := dot(K, x[2*i:])
		s += y * y
	}
	return s
}

// downsampleGradX adds 2y(i)·K at x(2i..2i+len(K)-1).
func downsampleGradX(x, K []float64, n int, g []float64) {
	clear64(g)
	downsampleGradXRange(x, K, 0, n, g)
}

func downsampleGradXRange(x, K []float64, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		axpy(2*dot(K, x[2*i:]), K, g[2*i:])
	}
}

// downsampleGradK is Σ_i 2y(i)·x(2i + k).
func downsampleGradK(x, K []float64, n int, g []float64) {
	clear64(g)
	downsampleGradKRange(x, K, 0, n, g)
}

func downsampleGradKRange(x, K []float64, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		axpy(2*dot(K, x[2*i:]), x[2*i:2*i+len(K)], g)
	}
}

// toeplitzRange is the taps k of row i whose column i + k - b lies in x:
// max(0, b - i) <= k < min(len(t), len(x) + b - i).
func toeplitzRange(i, b, nt, nx int) (int, int) {
	return max(0, b-i), min(nt, nx+b-i)
}

// toeplitzValue is ‖T x‖², (Tx)(i) = Σ_k t(k) x(i + k - b) for i < n.
func toeplitzValue(x, t []float64, n, b int) float64 { return toeplitzValueRange(x, t, b, 0, n) }

func toeplitzValueRange(x, t []float64, b, lo, hi int) float64 {
	s := 0.0
	for i := lo; i < hi; i++ {
		l, h := toeplitzRange(i, b, len(t), len(x))
		y := 0.0
		if l < h {
			y = dot(t[l:h], x[i+l-b:])
		}
		s += y * y
	}
	return s
}

// toeplitzGradX is Tᵀ(2Tx).
func toeplitzGradX(x, t []float64, n, b int, g []float64) {
	clear64(g)
	toeplitzGradXRange(x, t, b, 0, n, g)
}

func toeplitzGradXRange(x, t []float64, b, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		l, h := toeplitzRange(i, b, len(t), len(x))
		if l < h {
			axpy(2*dot(t[l:h], x[i+l-b:]), t[l:h], g[i+l-b:])
		}
	}
}

// toeplitzGradT is Σ_i 2(Tx)(i)·x(i + k - b).
func toeplitzGradT(x, t []float64, n, b int, g []float64) {
	clear64(g)
	toeplitzGradTRange(x, t, b, 0, n, g)
}

func toeplitzGradTRange(x, t []float64, b, lo, hi int, g []float64) {
	for i := lo; i < hi; i++ {
		l, h := toeplitzRange(i, b, len(t), len(x))
		if l < h {
			axpy(2*dot(t[l:h], x[i+l-b:]), x[i+l-b:i+h-b], g[l:h])
		}
	}
}
