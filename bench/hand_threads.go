package bench

import (
	"math"
	"sort"
	"sync"
)

// The hand-written loops on several goroutines, as a careful programmer
// would split them: a CSR matrix's rows into parts of about equal
// entries; a reduction's parts added after, in order; a scatter into a
// private copy of the destination per goroutine but the first (which
// writes the destination itself), the copies added in after, each
// goroutine a slice of the destination. They are the ceiling the report
// sets beside the kernels' threads table: what this machine gives two
// goroutines over one for the same loop, measured in the same rounds.
// Their results equal the serial loops' up to summation order
// (TestWorkloadHand, TestKernelsAgree).

// sub returns rows lo..hi-1 of a as a matrix of hi-lo rows (row i of
// the view is row lo+i of a).
func (a csrMatrix) sub(lo, hi int) csrMatrix {
	return csrMatrix{rows: hi - lo, cols: a.cols, pos: a.pos[lo : hi+1], idx: a.idx, val: a.val}
}

// splitByEntries returns t+1 row boundaries, part w being rows
// b[w]..b[w+1]-1, each with about a t-th of the entries.
func (a csrMatrix) splitByEntries(t int) []int {
	b := make([]int, t+1)
	b[t] = a.rows
	lo, nnz := a.pos[0], a.pos[a.rows]-a.pos[0]
	for w := 1; w < t; w++ {
		b[w] = max(b[w-1], sort.SearchInts(a.pos[:a.rows+1], lo+nnz*w/t))
	}
	return b
}

// onGoroutines runs f(0), ..., f(t-1), each on a goroutine of its own,
// and waits for them.
func onGoroutines(t int, f func(w int)) {
	var wg sync.WaitGroup
	wg.Add(t)
	for w := range t {
		go func() {
			defer wg.Done()
			f(w)
		}()
	}
	wg.Wait()
}

// sumRowParts returns Σ part(sub(rows of part w), lo of part w) over t
// goroutines, the rows split by entries.
func (a csrMatrix) sumRowParts(t int, part func(s csrMatrix, lo int) float64) func() float64 {
	b := a.splitByEntries(t)
	parts := make([]float64, t)
	return func() float64 {
		onGoroutines(t, func(w int) { parts[w] = part(a.sub(b[w], b[w+1]), b[w]) })
		f := 0.0
		for _, p := range parts {
			f += p
		}
		return f
	}
}

// privatized returns a run of fill on t goroutines into g: goroutine w
// fills its destination (g for w = 0, a private copy of n entries
// otherwise, each allocated once), and the copies are then added into g,
// each goroutine a t-th of g's entries.
func privatized(t, n int, fill func(w int, dest []float64)) func(g []float64) {
	copies := make([][]float64, t)
	for w := 1; w < t; w++ {
		copies[w] = make([]float64, n)
	}
	return func(g []float64) {
		g = g[:n]
		onGoroutines(t, func(w int) {
			if w == 0 {
				fill(0, g)
				return
			}
			fill(w, copies[w])
		})
		onGoroutines(t, func(w int) {
			lo, hi := n*w/t, n*(w+1)/t
			d := g[lo:hi]
			for _, c := range copies[1:] {
				c = c[lo:hi]
				c = c[:len(d)]
				for i := range d {
					d[i] += c[i]
				}
			}
		})
	}
}

// handSMVMThreads is handSMVM on t goroutines, A's entries split in
// equal parts (the column sums of each part into its destination).
func handSMVMThreads(t int, idx []int, val []float64, cols int) func(g []float64) {
	return privatized(t, cols, func(w int, dest []float64) {
		lo, hi := len(idx)*w/t, len(idx)*(w+1)/t
		handSMVM(idx[lo:hi], val[lo:hi], dest)
	})
}

// handThreadsOf returns the workload's closed form on t goroutines (the
// value's and the gradient's, like handFormOf's), or nil when it has no
// parallel form here: the rows of least squares, ridge, logistic
// regression and the factorization are independent but for the sum or
// the scatter that joins them. (The Laplacian's and mlp2's would need
// loops of their own: a row reads x at its own index, and mlp2's second
// layer waits for the whole first.)
func handThreadsOf(name string, d *WorkloadData, t int) *handForm {
	a := csrOf(d.A)
	n := d.Cols()
	x, b, y := d.X, d.B, d.Y
	scatterRows := func(init func(w int, dest []float64), row func(i int) float64) func() func(g []float64) {
		bounds := a.splitByEntries(t)
		return func() func(g []float64) {
			return privatized(t, n, func(w int, dest []float64) {
				init(w, dest)
				for i := bounds[w]; i < bounds[w+1]; i++ {
					a.scatter(i, row(i), dest)
				}
			})
		}
	}
	zero := func(_ int, dest []float64) { clear(dest) }
	hf := &handForm{gradShape: []int{n}}
	switch name {
	case "least_squares":
		hf.value = a.sumRowParts(t, func(s csrMatrix, lo int) float64 { return leastSquaresValue(s, x, b[lo:]) })
		hf.newGrad = scatterRows(zero, func(i int) float64 { return a.rowDot(i, x) - b[i] })
	case "ridge":
		rows := a.sumRowParts(t, func(s csrMatrix, lo int) float64 { return leastSquaresValue(s, x, b[lo:]) })
		parts := make([]float64, t)
		hf.value = func() float64 {
			f := rows()
			onGoroutines(t, func(w int) {
				s := 0.0
				for _, v := range x[len(x)*w/t : len(x)*(w+1)/t] {
					s += v * v
				}
				parts[w] = s
			})
			s := 0.0
			for _, p := range parts {
				s += p
			}
			return f + 0.5*d.Lambda*s
		}
		hf.newGrad = scatterRows(func(w int, dest []float64) {
			if w > 0 {
				clear(dest)
				return
			}
			for j, v := range x[:len(dest)] {
				dest[j] = d.Lambda * v
			}
		}, func(i int) float64 { return a.rowDot(i, x) - b[i] })
	case "logistic":
		hf.value = a.sumRowParts(t, func(s csrMatrix, lo int) float64 { return logisticValue(s, x, y[lo:]) })
		hf.newGrad = scatterRows(zero, func(i int) float64 {
			return 1/(1+math.Exp(-a.rowDot(i, x))) - y[i]
		})
	case "factorization":
		k := d.K
		hf.gradShape = []int{d.Rows(), k}
		hf.value = a.sumRowParts(t, func(s csrMatrix, lo int) float64 { return factorizationValue(s, d.U[lo*k:], d.W, k) })
		bounds := a.splitByEntries(t)
		hf.newGrad = func() func(g []float64) {
			return func(g []float64) {
				onGoroutines(t, func(w int) {
					lo, hi := bounds[w], bounds[w+1]
					factorizationGrad(a.sub(lo, hi), d.U[lo*k:], d.W, k, g[lo*k:hi*k])
				})
			}
		}
	default:
		return nil
	}
	return hf
}

// splitRange runs f(lo, hi) over t equal parts of 0..n-1, each on a
// goroutine of its own: an element-wise loop split by hand.
func splitRange(t, n int, f func(lo, hi int)) {
	onGoroutines(t, func(w int) { f(n*w/t, n*(w+1)/t) })
}

// handSMMMThreads is handSMMM on t goroutines: the column sums as
// handSMVMThreads makes them (A's entries in equal parts, each into its
// destination, added after), then the rows of out split by entries, each
// goroutine filling its rows with their column's sum.
func handSMMMThreads(t int, idx []int, val []float64, pos []int, cols int) func(s, out []float64) {
	a := csrMatrix{rows: len(pos) - 1, cols: cols, pos: pos, idx: idx, val: val}
	b := a.splitByEntries(t)
	sums := handSMVMThreads(t, idx, val, cols)
	return func(s, out []float64) {
		sums(s)
		onGoroutines(t, func(w int) {
			for k := b[w]; k < b[w+1]; k++ {
				c := s[k]
				row := out[pos[k]:pos[k+1]]
				for q := range row {
					row[q] = c
				}
			}
		})
	}
}
