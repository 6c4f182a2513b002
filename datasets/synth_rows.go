package datasets

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// rowSpec says where the entries of each row of a row-wise generated matrix go.
type rowSpec struct {
	kind       string
	rows, cols int
	bandwidth  int
	alpha      float64
}

// window returns the columns [lo, hi) row i may use with half-bandwidth bw;
// lower restricts them to the strict lower triangle.
func (rs rowSpec) window(i, bw int, lower bool) (lo, hi int) {
	if rs.kind != Banded {
		if lower {
			return 0, i
		}
		return 0, rs.cols
	}
	if lower {
		return max(0, i-bw), i
	}
	c := int(uint64(i) * uint64(rs.cols) / uint64(rs.rows))
	return max(0, c-bw), min(rs.cols, c+bw+1)
}

// plan chooses the bandwidth and the number of entries of each row so that
// total entries fit; lower places them in the strict lower triangle.
func (rs rowSpec) plan(rng *rand.Rand, total int, lower bool) (counts []int, bw int, err error) {
	n := rs.rows
	caps := make([]int, n)
	capacity := func(bw int) int {
		sum := 0
		for i := range n {
			lo, hi := rs.window(i, bw, lower)
			caps[i] = hi - lo
			sum += caps[i]
		}
		return sum
	}
	bw = rs.bandwidth
	if rs.kind == Banded && bw <= 0 {
		avg := (total + n - 1) / max(n, 1)
		bw = max(1, avg)
		if lower {
			bw = max(1, 2*avg)
		}
		for capacity(bw) < total && bw < rs.cols {
			bw *= 2
		}
	}
	if c := capacity(bw); c < total {
		return nil, 0, fmt.Errorf("synthetic: %d entries do not fit in the %d positions of the %s pattern", total, c, rs.kind)
	}
	w := make([]float64, n)
	if rs.kind == PowerLaw {
		alpha := rs.alpha
		if alpha == 0 {
			alpha = 1
		}
		for rank, i := range rng.Perm(n) {
			w[i] = math.Pow(float64(rank+1), -alpha)
		}
	} else {
		for i := range n {
			w[i] = float64(caps[i])
		}
	}
	return distribute(total, w, caps), bw, nil
}

// generalRows draws nnz entries row by row.
func generalRows(rng *rand.Rand, rs rowSpec, nnz int) (*Coords, error) {
	counts, bw, err := rs.plan(rng, nnz, false)
	if err != nil {
		return nil, err
	}
	I, J, V := make([]int, 0, nnz), make([]int, 0, nnz), make([]float64, nnz)
	for i, k := range counts {
		lo, hi := rs.window(i, bw, false)
		J = appendSampleRange(rng, J, k, lo, hi)
		for range k {
			I = append(I, i)
		}
	}
	for e := range V {
		V[e] = 2*rng.Float64() - 1
	}
	return &Coords{Shape: []int{rs.rows, rs.cols}, Idx: [][]int{I, J}, Val: V}, nil
}

// symmetricRows draws off entries in the strict lower triangle and diag
// diagonal entries, and returns the symmetric matrix they make (2*off+diag
// entries), sorted row-major.
func symmetricRows(rng *rand.Rand, rs rowSpec, off, diag int) (*Coords, error) {
	n := rs.rows
	counts, bw, err := rs.plan(rng, off, true)
	if err != nil {
		return nil, err
	}
	// The lower triangle, row by row.
	lptr := make([]int, n+1)
	lcol := make([]int32, 0, off)
	for i, k := range counts {
		lo, hi := rs.window(i, bw, true)
		lcol = appendSampleRange(rng, lcol, k, lo, hi)
		lptr[i+1] = len(lcol)
	}
	lval := make([]float64, off)
	for e := range lval {
		lval[e] = 2*rng.Float64() - 1
	}
	// The upper triangle is its transpose: uptr, urow, usrc by column of L.
	uptr := make([]int, n+1)
	for _, j := range lcol {
		uptr[j+1]++
	}
	for j := range n {
		uptr[j+1] += uptr[j]
	}
	next := append([]int(nil), uptr[:n]...)
	urow, usrc := make([]int32, off), make([]int32, off)
	for i := range n {
		for e := lptr[i]; e < lptr[i+1]; e++ {
			j := lcol[e]
			urow[next[j]], usrc[next[j]] = int32(i), int32(e)
			next[j]++
		}
	}
	next = nil
	isDiag := make([]bool, n)
	for _, i := range sampleSorted(rng, diag, uint64(n)) {
		isDiag[i] = true
	}
	total := 2*off + diag
	I, J, V := make([]int, total), make([]int, total), make([]float64, total)
	p := 0
	for i := range n {
		for e := lptr[i]; e < lptr[i+1]; e++ {
			I[p], J[p], V[p] = i, int(lcol[e]), lval[e]
			p++
		}
		if isDiag[i] {
			I[p], J[p], V[p] = i, i, 1+rng.Float64()
			p++
		}
		for q := uptr[i]; q < uptr[i+1]; q++ {
			I[p], J[p], V[p] = i, int(urow[q]), lval[usrc[q]]
			p++
		}
	}
	return &Coords{Shape: []int{n, n}, Idx: [][]int{I, J}, Val: V}, nil
}
