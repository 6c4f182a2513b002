package formats

import (
	"fmt"
)

// FromSortedBuckets is FromSortedCoords with the coordinates of the first
// mode in storage order (the layout's ModeOrder[0]) given by where they
// change instead of one for each entry: the entries start[i] to
// start[i+1]-1 have coordinate i in that mode. start has that mode's
// extent plus one elements, ascending from 0 to len(val); idx of that mode
// is not read (it may be nil). A counting sort by that mode gives such
// entries (as a grouped table's rows are read: datasets).
//
// Where the layout is a dense level over a last compressed one (CSR,
// CSC), start becomes the compressed level's positions: the tensor shares
// start, the other mode's idx and val, and no array of an entry's
// coordinate is made. Other layouts get the mode's coordinates written out
// and go through FromSortedCoords. The caller must not modify start, idx
// and val afterwards.
//
// Entries out of storage order within a bucket, or a coordinate stored
// twice, give an error wrapping ErrNotSorted; bad shapes, lengths or
// coordinates give other errors, as for FromSortedCoords.
func FromSortedBuckets(shape []int, start []int, idx [][]int, val []float64, f Format) (*Tensor, error) {
	lay, err := f.Layout(len(shape))
	if err != nil {
		return nil, err
	}
	first := lay.ModeOrder[0]
	if err := checkStarts(shape[first], start, len(val)); err != nil {
		return nil, err
	}
	if len(idx) != len(shape) {
		return nil, fmt.Errorf("formats: %d coordinate slices for a tensor of order %d", len(idx), len(shape))
	}
	if !denseOverLast(lay) {
		// write the first mode's coordinates out
		full := make([][]int, len(idx))
		copy(full, idx)
		xs := make([]int, len(val))
		for i := range len(start) - 1 {
			for e := start[i]; e < start[i+1]; e++ {
				xs[e] = i
			}
		}
		full[first] = xs
		return FromSortedCoords(shape, full, val, f)
	}
	second := lay.ModeOrder[1]
	xs := idx[second]
	if len(xs) != len(val) {
		return nil, fmt.Errorf("formats: %d coordinates in mode %d for %d values", len(xs), second, len(val))
	}
	for e, x := range xs {
		if x < 0 || x >= shape[second] {
			return nil, fmt.Errorf("formats: entry %d: coordinate %d of mode %d out of range 0..%d", e, x, second, shape[second]-1)
		}
	}
	if _, ok := denseSize(1, shape[first]); !ok {
		return nil, fmt.Errorf("formats: %s: level 0 (dense, mode %d): %d positions exceed MaxDenseSize (%d)",
			f, first, shape[first], MaxDenseSize)
	}
	for i := range len(start) - 1 {
		for e := start[i] + 1; e < start[i+1]; e++ {
			if xs[e-1] > xs[e] {
				return nil, fmt.Errorf("formats: %s: entry %d: %w", f, e, ErrNotSorted)
			}
			if xs[e-1] == xs[e] {
				return nil, fmt.Errorf("formats: %s: entries %d and %d store the same coordinates: %w", f, e-1, e, ErrNotSorted)
			}
		}
	}
	t := &Tensor{Format: f, Shape: append([]int(nil), shape...), Pos: make([][]int, 2), Idx: make([][]int, 2), Val: val}
	t.Pos[1], t.Idx[1] = start, xs
	return t, nil
}

// denseOverLast reports whether a layout is a dense level over a last
// compressed level (CSR, CSC): the compressed level's positions are the
// dense level's bucket starts.
func denseOverLast(lay Layout) bool {
	if len(lay.Levels) != 2 {
		return false
	}
	_, dense := lay.Levels[0].(DenseLevel)
	_, comp := lay.Levels[1].(CompressedLevel)
	return dense && comp
}

// checkStarts checks a first mode's bucket starts: extent+1 of them,
// ascending from 0 to n.
func checkStarts(extent int, start []int, n int) error {
	if extent < 0 {
		return fmt.Errorf("formats: extent %d, want >= 0", extent)
	}
	if len(start) != extent+1 {
		return fmt.Errorf("formats: %d bucket starts for an extent of %d (want %d)", len(start), extent, extent+1)
	}
	if start[0] != 0 || start[extent] != n {
		return fmt.Errorf("formats: bucket starts from %d to %d, want 0 to %d", start[0], start[extent], n)
	}
	for i := 1; i < len(start); i++ {
		if start[i] < start[i-1] {
			return fmt.Errorf("formats: bucket start %d is %d, below the one before (%d)", i, start[i], start[i-1])
		}
	}
	return nil
}
