package formats

import (
	"fmt"
	"slices"
)

// builder assembles a tensor level by level from entries sorted by their
// coordinates in storage order.
type builder struct {
	lay    Layout
	shape  []int
	coords [][]int // coords[k][e]: coordinate of entry e at level k
	posOf  []int   // position of entry e at the last built level
	parent int     // number of positions of the last built level
	t      *Tensor
}

func (b *builder) errorf(k int, format string, args ...any) error {
	return fmt.Errorf("formats: %s: level %d (%s, mode %d): %s",
		b.lay.name, k, b.lay.Levels[k], b.lay.ModeOrder[k], fmt.Sprintf(format, args...))
}

// FromCoords builds a tensor of the given shape in format f from entries:
// idx[m][e] is the 0-based coordinate in mode m of entry e and val[e] its
// value. Entries may come in any order. Formats promising unique
// coordinates (Layout.UniqueCoords: all but COO of order >= 2) sum the
// values of duplicate coordinates; COO keeps duplicates, in input order.
// Explicit zeros are stored. Bad shapes, lengths or coordinates and dense
// containers past MaxDenseSize give an error.
func FromCoords(shape []int, idx [][]int, val []float64, f Format) (*Tensor, error) {
	lay, err := f.Layout(len(shape))
	if err != nil {
		return nil, err
	}
	for m, n := range shape {
		if n < 0 {
			return nil, fmt.Errorf("formats: extent of mode %d is %d, want >= 0", m, n)
		}
	}
	if len(idx) != len(shape) {
		return nil, fmt.Errorf("formats: %d coordinate slices for a tensor of order %d", len(idx), len(shape))
	}
	for m := range idx {
		if len(idx[m]) != len(val) {
			return nil, fmt.Errorf("formats: %d coordinates in mode %d for %d values", len(idx[m]), m, len(val))
		}
		for e, x := range idx[m] {
			if x < 0 || x >= shape[m] {
				return nil, fmt.Errorf("formats: entry %d: coordinate %d of mode %d out of range 0..%d", e, x, m, shape[m]-1)
			}
		}
	}
	n := lay.Order()
	// Sort the entries by their coordinates in storage order.
	perm := make([]int, len(val))
	for e := range perm {
		perm[e] = e
	}
	slices.SortStableFunc(perm, func(a, b int) int {
		for _, m := range lay.ModeOrder {
			if c := idx[m][a] - idx[m][b]; c != 0 {
				return c
			}
		}
		return 0
	})
	vals := make([]float64, 0, len(val))
	keep := perm[:0:0]
	for i, e := range perm {
		if lay.UniqueCoords() && i > 0 && sameCoords(idx, e, perm[i-1]) {
			vals[len(vals)-1] += val[e]
			continue
		}
		keep = append(keep, e)
		vals = append(vals, val[e])
	}
	b := &builder{lay: lay, shape: shape, coords: make([][]int, n), posOf: make([]int, len(keep)), parent: 1}
	for k, m := range lay.ModeOrder {
		xs := make([]int, len(keep))
		for i, e := range keep {
			xs[i] = idx[m][e]
		}
		b.coords[k] = xs
	}
	b.t = &Tensor{Format: f, Shape: append([]int(nil), shape...), Pos: make([][]int, n), Idx: make([][]int, n)}
	for k, l := range lay.Levels {
		if err := l.build(b, k); err != nil {
			return nil, err
		}
	}
	b.t.Val = make([]float64, b.parent)
	for e, x := range vals {
		b.t.Val[b.posOf[e]] += x
	}
	return b.t, nil
}

func sameCoords(idx [][]int, a, b int) bool {
	for m := range idx {
		if idx[m][a] != idx[m][b] {
			return false
		}
	}
	return true
}

// Coords returns the tensor's stored entries in storage order as
// coordinate slices (idx[m][e]) and values, the inverse of FromCoords.
func (t *Tensor) Coords() (idx [][]int, val []float64, err error) {
	v, err := t.view()
	if err != nil {
		return nil, nil, err
	}
	idx = make([][]int, len(t.Shape))
	for m := range idx {
		idx[m] = make([]int, 0, len(t.Val))
	}
	val = make([]float64, 0, len(t.Val))
	v.iterate(func(coords []int, x float64) {
		for m, c := range coords {
			idx[m] = append(idx[m], c)
		}
		val = append(val, x)
	})
	return idx, val, nil
}

// Convert returns t stored in format f, a new tensor sharing nothing with
// t. Every stored position of t stays stored (explicit zeros included, so
// a dense tensor converts to a sparse one storing every position; see
// Prune); duplicates are summed when f promises unique coordinates. An
// invalid t, an order f does not support, or a dense result past
// MaxDenseSize give an error.
func Convert(t *Tensor, f Format) (*Tensor, error) {
	idx, val, err := t.Coords()
	if err != nil {
		return nil, err
	}
	return FromCoords(t.Shape, idx, val, f)
}

// Prune returns t, in its own format, without the stored zeros of a
// sparse format (dense formats store every position, so they are returned
// as a copy).
func Prune(t *Tensor) (*Tensor, error) {
	idx, val, err := t.Coords()
	if err != nil {
		return nil, err
	}
	keep := 0
	for e, x := range val {
		if x != 0 {
			for m := range idx {
				idx[m][keep] = idx[m][e]
			}
			val[keep] = x
			keep++
		}
	}
	for m := range idx {
		idx[m] = idx[m][:keep]
	}
	return FromCoords(t.Shape, idx, val[:keep], t.Format)
}
