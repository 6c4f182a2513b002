package bench

import (
	"fmt"

	"github.com/nablasd/nablasd/sdql"
)

// The index workloads' hand-written loops on several goroutines, as a
// careful programmer splits them: the outer loop's range into t equal
// parts, one goroutine each. A value adds its parts' sums, in order. A
// gradient into a short vector (a kernel's taps) adds into a private
// copy per goroutine but the first, added in after. A gradient into the
// signal's own positions (a scatter whose iterations write neighbouring
// entries) is written in place: each part empties and writes its own
// slice of the gradient, but for its first iterations, whose writes reach
// the part before's slice, which run after the goroutines, in order (the
// split the compiled kernels make, gogen/inplace.go). They are the
// ceiling beside the compiled kernels' two-goroutine times in
// indexreport: what this machine gives two goroutines over one for the
// same loops, measured in the same rounds. Their results equal the
// serial loops' up to summation order (TestIndexHandThreads).

// evenParts returns t+1 boundaries of lo..hi-1 in parts of about equal
// length.
func evenParts(t, lo, hi int) []int {
	b := make([]int, t+1)
	for w := range b {
		b[w] = lo + (hi-lo)*w/t
	}
	return b
}

// sumParts is Σ f(part) over t goroutines, the parts of lo..hi-1 added
// in order.
func sumParts(t, lo, hi int, f func(lo, hi int) float64) float64 {
	b := evenParts(t, lo, hi)
	parts := make([]float64, t)
	onGoroutines(t, func(w int) { parts[w] = f(b[w], b[w+1]) })
	s := 0.0
	for _, p := range parts {
		s += p
	}
	return s
}

// vectorParts runs f(part, into) over t goroutines, part 0 into g and
// the others into private copies (priv, reused), emptied first and
// added into g after, in order.
func vectorParts(t, lo, hi int, g []float64, priv [][]float64, f func(lo, hi int, into []float64)) {
	b := evenParts(t, lo, hi)
	onGoroutines(t, func(w int) {
		into := g
		if w > 0 {
			into = priv[w-1]
		}
		clear(into)
		f(b[w], b[w+1], into)
	})
	for _, p := range priv[:t-1] {
		axpy(1, p, g)
	}
}

// inPlaceParts runs f over the parts of lo..hi-1 on t goroutines, each
// writing g in place, where iteration i writes g[start(i) : end(i)]
// (both non-decreasing in i): part w empties g from its first write to
// the next part's, and leaves its first iterations whose writes reach
// before its own first write (part w-1's slice), which run after, in
// order.
func inPlaceParts(t, lo, hi int, g []float64, start, end func(i int) int, f func(lo, hi int)) {
	b := evenParts(t, lo, hi)
	from := make([]int, t+1) // the part's first iteration in parallel
	copy(from, b)
	for w := 1; w < t; w++ {
		for from[w] < b[w+1] && b[w] > lo && start(from[w]) < end(b[w]-1) {
			from[w]++
		}
	}
	var cut func(w int) int
	cut = func(w int) int { // where part w's slice of g begins
		switch {
		case w == 0:
			return 0
		case w == t:
			return len(g)
		case from[w] == b[w+1]:
			return cut(w + 1)
		}
		return min(max(start(from[w]), 0), len(g))
	}
	onGoroutines(t, func(w int) {
		clear(g[cut(w):max(cut(w), cut(w+1))])
		f(from[w], b[w+1])
	})
	for w := 1; w < t; w++ {
		f(b[w], from[w])
	}
}

// HandThreads returns the hand-written split of the workload's value or
// gradient (Hand's) over t goroutines, into the same kind of
// destination, and its result as Hand gives it.
func (d *IndexData) HandThreads(wrt string, t int) (run func(), value func() sdql.Value, err error) {
	var s float64
	g := make([]float64, len(d.X))
	if d.Workload == "stencil2d" {
		g = make([]float64, len(d.U))
	}
	priv := make([][]float64, t-1)
	taps := max(len(d.K), len(d.T))
	for w := range priv {
		priv[w] = make([]float64, taps)
	}
	x, K, T := d.X, d.K, d.T
	switch d.Workload + "/" + wrt {
	case "conv1d/":
		run = func() { s = sumParts(t, 0, d.N, func(lo, hi int) float64 { return conv1dValueRange(x, K, lo, hi) }) }
	case "conv1d/x":
		run = func() {
			inPlaceParts(t, 0, d.N, g, func(i int) int { return i }, func(i int) int { return i + len(K) }, func(lo, hi int) {
				conv1dGradXRange(x, K, lo, hi, g)
			})
		}
	case "conv1d/K":
		g = g[:len(K)]
		run = func() {
			vectorParts(t, 0, d.N, g, priv, func(lo, hi int, into []float64) { conv1dGradKRange(x, K, lo, hi, into) })
		}
	case "stencil2d/":
		run = func() {
			s = sumParts(t, 1, d.N-1, func(lo, hi int) float64 { return stencilValueRows(d.U, d.M, lo, hi) })
		}
	case "stencil2d/U":
		m := d.M
		run = func() {
			inPlaceParts(t, 1, d.N-1, g, func(i int) int { return (i - 1) * m }, func(i int) int { return (i + 2) * m }, func(lo, hi int) {
				stencilGradRows(d.U, m, lo, hi, g)
			})
		}
	case "tv/":
		run = func() { s = sumParts(t, 0, d.N-1, func(lo, hi int) float64 { return tvValueRange(x, d.Eps, lo, hi) }) }
	case "tv/x":
		run = func() {
			inPlaceParts(t, 0, d.N-1, g, func(i int) int { return i }, func(i int) int { return i + 2 }, func(lo, hi int) {
				tvGradRange(x, d.Eps, lo, hi, g)
			})
		}
	case "downsample/":
		run = func() {
			s = sumParts(t, 0, d.N, func(lo, hi int) float64 { return downsampleValueRange(x, K, lo, hi) })
		}
	case "downsample/x":
		run = func() {
			inPlaceParts(t, 0, d.N, g, func(i int) int { return 2 * i }, func(i int) int { return 2*i + len(K) }, func(lo, hi int) {
				downsampleGradXRange(x, K, lo, hi, g)
			})
		}
	case "downsample/K":
		g = g[:len(K)]
		run = func() {
			vectorParts(t, 0, d.N, g, priv, func(lo, hi int, into []float64) { downsampleGradKRange(x, K, lo, hi, into) })
		}
	case "toeplitz/":
		run = func() {
			s = sumParts(t, 0, d.N, func(lo, hi int) float64 { return toeplitzValueRange(x, T, d.B, lo, hi) })
		}
	case "toeplitz/x":
		b := d.B
		run = func() {
			inPlaceParts(t, 0, d.N, g, func(i int) int { return max(i-b, 0) }, func(i int) int { return min(i+len(T)-b, len(x)) }, func(lo, hi int) {
				toeplitzGradXRange(x, T, b, lo, hi, g)
			})
		}
	case "toeplitz/t":
		g = g[:len(T)]
		run = func() {
			vectorParts(t, 0, d.N, g, priv, func(lo, hi int, into []float64) { toeplitzGradTRange(x, T, d.B, lo, hi, into) })
		}
	default:
		return nil, nil, fmt.Errorf("bench: %s has no closed form with respect to %q", d.Workload, wrt)
	}
	switch {
	case wrt == "":
		value = func() sdql.Value { return sdql.Real(s) }
	case d.Workload == "stencil2d":
		value = func() sdql.Value { return matrixValue(g, d.N, d.M) }
	default:
		value = func() sdql.Value { return vectorValue(g) }
	}
	return run, value, nil
}
