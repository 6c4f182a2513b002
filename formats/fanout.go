package formats

import "github.com/nablasd/nablasd/sdql"

// Fanout measures the tensor's logical dictionary (ToValue) for fuse's cost
// model: the number of keys of the outer dictionary, then for each deeper
// level the average, over the dictionaries one level up, of their own
// fanout at that level (sdql.Fanout of ToValue(t), which fuse.StatsOf
// gives too). Keys count whatever their value: a CSR matrix has a key for
// every row, empty ones included (ToValue); COO duplicates count once. An
// empty dictionary gives [0]. Vectors and matrices of the built-in formats
// are read off their arrays in one pass without building the dictionary,
// assuming a valid tensor (as the methods other than Validate do); other
// tensors are measured on ToValue, and Fanout panics with a "formats: "
// message when one is invalid.
func (t *Tensor) Fanout() []float64 {
	if f, ok := t.fanoutArrays(); ok {
		return f
	}
	return sdql.Fanout(ToValue(t).(*sdql.Dict))
}

// fanoutArrays is Fanout of a vector or matrix in a built-in format,
// read off its arrays: the number of row keys, and the number of distinct
// (row, column) pairs over it (the average number of keys of a row). ok is
// false for other tensors. Like the other methods but Validate, it
// assumes a valid tensor: it reads the arrays unchecked.
func (t *Tensor) fanoutArrays() (f []float64, ok bool) {
	order := len(t.Shape)
	if order < 1 || order > 2 || len(t.Pos) != order || len(t.Idx) != order {
		return nil, false // not a vector or matrix, or not a valid one
	}
	n := len(t.Val)
	rows, pairs := 0, n // formats other than COO store each position once
	switch {
	case t.Format == Dense || t.Format == DenseCol || t.Format == CSR:
		rows = t.Shape[0] // a dense row level: every row is a key
	case order == 1: // COO and CSF vectors: one compressed unique level
		rows = len(t.Idx[0])
	case t.Format == DCSR || t.Format == CSF:
		rows = len(t.Idx[0]) // every stored row is a key, even an empty one
	case t.Format == CSC:
		seen := make([]bool, t.Shape[0])
		for _, i := range t.Idx[1] {
			if !seen[i] {
				seen[i] = true
				rows++
			}
		}
	case t.Format == COO: // sorted row-major, duplicates adjacent
		if n == 0 {
			break
		}
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
	if order == 1 || rows == 0 {
		return []float64{float64(rows)}, true
	}
	return []float64{float64(rows), float64(pairs) / float64(rows)}, true
}
