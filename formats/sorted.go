package formats

import (
	"errors"
	"fmt"
)

// ErrNotSorted is returned (wrapped) by FromSortedCoords when the entries
// are not in the format's storage order or store a coordinate twice; the
// caller can sort and sum them, or use FromCoords.
var ErrNotSorted = errors.New("entries not sorted in storage order without duplicates")

// FromSortedCoords builds a tensor like FromCoords from entries that are
// already in the storage order of format f for len(shape) modes (sorted
// by their coordinates in the layout's mode order, CSC by column then
// row) and store no coordinate twice. It copies as little as it can: where
// the format stores a coordinate slice as it is (the last level of every
// sparse layout, COO's row and column slices) the tensor's Idx shares
// idx[m], and Val shares val when every entry is one stored position (all
// sparse layouts, and dense layouts given every position). The caller must
// not modify idx and val afterwards.
//
// Unsorted entries or a repeated coordinate give an error wrapping
// ErrNotSorted; bad shapes, lengths or coordinates and dense containers
// past MaxDenseSize give other errors, as for FromCoords.
func FromSortedCoords(shape []int, idx [][]int, val []float64, f Format) (*Tensor, error) {
	lay, err := f.Layout(len(shape))
	if err != nil {
		return nil, err
	}
	if err := checkEntries(shape, idx, val); err != nil {
		return nil, err
	}
	n, order := len(val), lay.Order()
	if err := checkSorted(f, lay.ModeOrder, idx, n); err != nil {
		return nil, err
	}
	// diff[e]: the first level at which entry e's coordinates differ from
	// entry e-1's; needed by unique compressed levels above the last.
	var diff []uint8
	if needsDiff(lay) {
		diff = make([]uint8, n)
		for e := 1; e < n; e++ {
			k := 0
			for idx[lay.ModeOrder[k]][e-1] == idx[lay.ModeOrder[k]][e] {
				k++
			}
			diff[e] = uint8(k)
		}
	}
	t := &Tensor{Format: f, Shape: append([]int(nil), shape...), Pos: make([][]int, order), Idx: make([][]int, order)}
	// The position of each entry at the last built level: computed from
	// the coordinates while every level so far is dense (linear), one per
	// entry after a level that stores every entry (identity), else held
	// in posOf; so CSR, CSC and COO need no array of n positions.
	var (
		posOf    []int
		linear   = true
		identity = false
		dense    []int // the modes of the dense levels so far, while linear
		parent   = 1
	)
	positionOf := func(e int) int {
		switch {
		case posOf != nil:
			return posOf[e]
		case identity:
			return e
		}
		p := 0
		for _, m := range dense {
			p = p*shape[m] + idx[m][e]
		}
		return p
	}
	materialize := func() {
		if posOf == nil {
			posOf = make([]int, n)
			for e := range posOf {
				posOf[e] = positionOf(e)
			}
		}
		linear, identity = false, false
	}
	for k, l := range lay.Levels {
		xs := idx[lay.ModeOrder[k]]
		switch l := l.(type) {
		case DenseLevel:
			extent := shape[lay.ModeOrder[k]]
			size, ok := denseSize(parent, extent)
			if !ok {
				return nil, fmt.Errorf("formats: %s: level %d (dense, mode %d): %d×%d positions exceed MaxDenseSize (%d)",
					f, k, lay.ModeOrder[k], parent, extent, MaxDenseSize)
			}
			if linear {
				dense = append(dense, lay.ModeOrder[k])
			} else {
				materialize()
				for e := range posOf {
					posOf[e] = posOf[e]*extent + xs[e]
				}
			}
			parent = size
		case CompressedLevel:
			pos := make([]int, parent+1)
			if k == order-1 || !l.Unique {
				// one position per entry: the coordinates are the level's idx
				for e := range n {
					pos[positionOf(e)+1]++
				}
				t.Idx[k] = xs
				parent, posOf, linear, identity = n, nil, false, true
			} else {
				ix := []int{}
				next := make([]int, n)
				for e := range n {
					if e == 0 || int(diff[e]) <= k {
						ix = append(ix, xs[e])
						pos[positionOf(e)+1]++
					}
					next[e] = len(ix) - 1
				}
				t.Idx[k] = ix
				parent, posOf, linear, identity = len(ix), next, false, false
			}
			for q := 1; q < len(pos); q++ {
				pos[q] += pos[q-1]
			}
			t.Pos[k] = pos
		case SingletonLevel:
			// one position per parent position, which is one per entry
			// (a singleton follows a non-unique level, or another singleton)
			if !identity {
				return nil, fmt.Errorf("internal error: formats: %s: singleton level %d under a level that merges entries", f, k)
			}
			t.Idx[k] = xs
		default:
			return nil, fmt.Errorf("internal error: formats: unknown level %T", l)
		}
	}
	if parent == n && (identity || (n > 0 && positionOf(0) == 0 && positionOf(n-1) == n-1)) {
		// every position stored, in order (entries are strictly sorted)
		t.Val = val
	} else {
		t.Val = make([]float64, parent)
		for e, x := range val {
			t.Val[positionOf(e)] = x
		}
	}
	return t, nil
}

// needsDiff reports whether a unique compressed level sits above the last.
func needsDiff(lay Layout) bool {
	for _, l := range lay.Levels[:len(lay.Levels)-1] {
		if c, ok := l.(CompressedLevel); ok && c.Unique {
			return true
		}
	}
	return false
}

// checkSorted checks that the n entries are sorted strictly by their
// coordinates in the mode order.
func checkSorted(f Format, modeOrder []int, idx [][]int, n int) error {
	if len(modeOrder) == 2 {
		a, b := idx[modeOrder[0]], idx[modeOrder[1]]
		a, b = a[:n], b[:n]
		for e := 1; e < n; e++ {
			if a[e-1] < a[e] {
				continue
			}
			if a[e-1] > a[e] || b[e-1] > b[e] {
				return fmt.Errorf("formats: %s: entry %d: %w", f, e, ErrNotSorted)
			}
			if b[e-1] == b[e] {
				return fmt.Errorf("formats: %s: entries %d and %d store the same coordinates: %w", f, e-1, e, ErrNotSorted)
			}
		}
		return nil
	}
	for e := 1; e < n; e++ {
		k := 0
		for ; k < len(modeOrder); k++ {
			a, b := idx[modeOrder[k]][e-1], idx[modeOrder[k]][e]
			if a < b {
				break
			}
			if a > b {
				return fmt.Errorf("formats: %s: entry %d: %w", f, e, ErrNotSorted)
			}
		}
		if k == len(modeOrder) {
			return fmt.Errorf("formats: %s: entries %d and %d store the same coordinates: %w", f, e-1, e, ErrNotSorted)
		}
	}
	return nil
}

// checkEntries checks FromCoords-style entries: one coordinate slice per
// mode, each as long as val, every coordinate within its extent.
func checkEntries(shape []int, idx [][]int, val []float64) error {
	for m, n := range shape {
		if n < 0 {
			return fmt.Errorf("formats: extent of mode %d is %d, want >= 0", m, n)
		}
	}
	if len(idx) != len(shape) {
		return fmt.Errorf("formats: %d coordinate slices for a tensor of order %d", len(idx), len(shape))
	}
	if len(shape) > 255 {
		return fmt.Errorf("formats: order %d is too large", len(shape))
	}
	for m := range idx {
		if len(idx[m]) != len(val) {
			return fmt.Errorf("formats: %d coordinates in mode %d for %d values", len(idx[m]), m, len(val))
		}
		for e, x := range idx[m] {
			if x < 0 || x >= shape[m] {
				return fmt.Errorf("formats: entry %d: coordinate %d of mode %d out of range 0..%d", e, x, m, shape[m]-1)
			}
		}
	}
	return nil
}
