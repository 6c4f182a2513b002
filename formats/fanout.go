package formats

import "sort"

// Fanout measures the tensor's logical dictionary (ToValue) without
// building it: the number of keys of the outer dictionary, then for each
// deeper level the average, over the dictionaries one level up, of their
// own fanout at that level — the sizes fuse's cost model reads
// (fuse.StatsOf gives the same numbers for ToValue(t)). Stored positions
// count as keys whatever their value; COO duplicates count once. An empty
// tensor gives [0]. Vectors and matrices of the built-in formats are read
// off their arrays in one pass, assuming a valid tensor (as the methods
// other than Validate do); other tensors are validated first, and Fanout
// panics with a "formats: " message when one is invalid.
func (t *Tensor) Fanout() []float64 {
	if f, ok := t.fanoutArrays(); ok {
		return f
	}
	v := t.mustView("Fanout")
	order := len(t.Shape)
	var flat []int // the stored coordinates, order ints each
	v.iterate(func(coords []int, _ float64) { flat = append(flat, coords...) })
	n := len(flat) / order
	if n == 0 {
		return []float64{0}
	}
	perm := make([]int, n)
	sorted := true
	for i := range perm {
		perm[i] = i
		if i > 0 && less(flat, order, i, i-1) {
			sorted = false
		}
	}
	if !sorted { // column-major storage: order the positions row-major
		sort.Slice(perm, func(a, b int) bool { return less(flat, order, perm[a], perm[b]) })
	}
	coord := func(i, m int) int { return flat[perm[i]*order+m] }
	var level func(lo, hi, m int) []float64
	level = func(lo, hi, m int) []float64 {
		groups := 0
		var sums []float64
		for i := lo; i < hi; {
			j := i + 1
			for j < hi && coord(j, m) == coord(i, m) {
				j++
			}
			groups++
			if m+1 < order {
				for l, x := range level(i, j, m+1) {
					if l >= len(sums) {
						sums = append(sums, 0)
					}
					sums[l] += x
				}
			}
			i = j
		}
		out := []float64{float64(groups)}
		for _, s := range sums {
			out = append(out, s/float64(groups))
		}
		return out
	}
	return level(0, n, 0)
}

// less orders stored positions a and b of flat row-major (lexicographically
// by coordinates).
func less(flat []int, order, a, b int) bool {
	for m := 0; m < order; m++ {
		x, y := flat[a*order+m], flat[b*order+m]
		if x != y {
			return x < y
		}
	}
	return false
}

// fanoutArrays is Fanout of a vector or matrix in a built-in format,
// read off its arrays: the number of distinct rows, and the number of
// distinct (row, column) pairs over it (the average number of keys of a
// row). ok is false for other tensors. Like the other methods but
// Validate, it assumes a valid tensor: it reads the arrays unchecked.
func (t *Tensor) fanoutArrays() (f []float64, ok bool) {
	order := len(t.Shape)
	if order < 1 || order > 2 || len(t.Pos) != order || len(t.Idx) != order {
		return nil, false // not a vector or matrix, or not a valid one
	}
	n := len(t.Val)
	rows, pairs := 0, n // formats other than COO store each position once
	switch {
	case n == 0:
		return []float64{0}, true
	case t.Format == Dense || t.Format == DenseCol:
		rows = t.Shape[0]
	case order == 1: // COO and CSF vectors: one compressed unique level
		rows = len(t.Idx[0])
	case t.Format == CSR:
		pos := t.Pos[1]
		for i := 0; i+1 < len(pos); i++ {
			if pos[i] < pos[i+1] {
				rows++
			}
		}
	case t.Format == DCSR || t.Format == CSF:
		pos := t.Pos[1]
		for p := 0; p+1 < len(pos); p++ {
			if pos[p] < pos[p+1] {
				rows++
			}
		}
	case t.Format == CSC:
		seen := make([]bool, t.Shape[0])
		for _, i := range t.Idx[1] {
			if !seen[i] {
				seen[i] = true
				rows++
			}
		}
	case t.Format == COO: // sorted row-major, duplicates adjacent
		ri, ci := t.Idx[0], t.Idx[1]
		rows, pairs = 1, 1
		for q := 1; q < n; q++ {
			if ri[q] != ri[q-1] {
				rows++
				pairs++
			} else if ci[q] != ci[q-1] {
				pairs++
			}
		}
	default:
		return nil, false
	}
	if order == 1 {
		return []float64{float64(rows)}, true
	}
	return []float64{float64(rows), float64(pairs) / float64(rows)}, true
}
