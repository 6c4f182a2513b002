package formats

import (
	"fmt"
	"strings"
)

// Tensor is a tensor stored in a format: plain slices, bound to executors
// without copying. Level k of the format's layout for len(Shape) uses Pos[k]
// and Idx[k] (nil where the level has none: a dense level has neither, a
// singleton level only Idx); Val holds one value per position of the last
// level. Shape[m] is the extent of mode m (logical order, whatever the mode
// order of the format).
//
// A Tensor built by FromCoords, Convert or FromMatrix is valid; one built by
// hand should be checked with Validate before use: the other methods assume
// a valid tensor.
type Tensor struct {
	Format Format
	Shape  []int
	Pos    [][]int
	Idx    [][]int
	Val    []float64
}

// Order returns the number of modes, len(Shape).
func (t *Tensor) Order() int { return len(t.Shape) }

// NNZ returns the number of stored positions, including explicit zeros
// (every position of a dense format) and the duplicates a COO tensor may
// hold.
func (t *Tensor) NNZ() int { return len(t.Val) }

// Layout returns the layout of the tensor's format for its order.
func (t *Tensor) Layout() (Layout, error) { return t.Format.Layout(len(t.Shape)) }

// AllDense reports whether the tensor stores every position (its format's
// levels are all dense for its order).
func (t *Tensor) AllDense() bool {
	l, err := t.Layout()
	return err == nil && l.AllDense()
}

// AllRows reports whether the tensor holds every key of its first mode
// (Layout.AllRows).
func (t *Tensor) AllRows() bool {
	l, err := t.Layout()
	return err == nil && l.AllRows()
}

// String returns a short description, e.g. "csr 3×4 nnz=5".
func (t *Tensor) String() string {
	dims := make([]string, len(t.Shape))
	for i, n := range t.Shape {
		dims[i] = fmt.Sprint(n)
	}
	return fmt.Sprintf("%s %s nnz=%d", t.Format, strings.Join(dims, "×"), len(t.Val))
}

// Validate checks the tensor's data against its format: a supported order,
// non-negative extents, one Pos and one Idx slice per level, and for each
// level pos arrays starting at 0, monotone and ending at len(idx), indices
// in range, sorted (and unique where the level promises it), the expected
// slice lengths, and one value per stored position. It never panics.
func (t *Tensor) Validate() error {
	_, err := t.view()
	return err
}

// view validates the tensor and returns it with its layout.
func (t *Tensor) view() (*view, error) {
	if t == nil {
		return nil, fmt.Errorf("formats: nil tensor")
	}
	lay, err := t.Layout()
	if err != nil {
		return nil, err
	}
	for m, n := range t.Shape {
		if n < 0 {
			return nil, fmt.Errorf("formats: %s: extent of mode %d is %d, want >= 0", lay.name, m, n)
		}
	}
	n := lay.Order()
	if len(t.Pos) != n || len(t.Idx) != n {
		return nil, fmt.Errorf("formats: %s: %d pos and %d idx slices, want %d each (one per level)", lay.name, len(t.Pos), len(t.Idx), n)
	}
	v := &view{t: t, lay: lay}
	size := 1
	for k, l := range lay.Levels {
		if size, err = l.check(v, k, size); err != nil {
			return nil, err
		}
	}
	if len(t.Val) != size {
		return nil, fmt.Errorf("formats: %s: val has %d entries, want %d (one per stored position)", lay.name, len(t.Val), size)
	}
	return v, nil
}

// mustView returns the tensor's view, panicking when the tensor is invalid.
func (t *Tensor) mustView(op string) *view {
	v, err := t.view()
	if err != nil {
		panic(fmt.Sprintf("formats: %s of an invalid tensor: %v", op, strings.TrimPrefix(err.Error(), "formats: ")))
	}
	return v
}

// Iterate calls f for every stored position in storage order with its
// coordinates (in logical mode order) and value. The coords slice is
// reused between calls. Iterate panics with a "formats: " message when the
// tensor is invalid.
func (t *Tensor) Iterate(f func(coords []int, v float64)) {
	t.mustView("Iterate").iterate(f)
}

func (v *view) iterate(f func(coords []int, x float64)) {
	coords := make([]int, len(v.t.Shape))
	var walk func(k, q int)
	walk = func(k, q int) {
		if k == len(v.lay.Levels) {
			f(coords, v.t.Val[q])
			return
		}
		m := v.lay.ModeOrder[k]
		v.lay.Levels[k].each(v, k, q, func(p, x int) {
			coords[m] = x
			walk(k+1, p)
		})
	}
	walk(0, 0)
}

// At returns the value at the given coordinates (the sum of the stored
// values there, 0 when none is stored). It panics with a "formats: "
// message when the number of coordinates differs from the order, a
// coordinate is out of range, or the tensor is invalid; it validates the
// tensor at each call, so loops should use Iterate or Matrix instead.
func (t *Tensor) At(coords ...int) float64 {
	return t.mustView("At").at(coords)
}

func (v *view) at(coords []int) float64 {
	if len(coords) != len(v.t.Shape) {
		panic(fmt.Sprintf("formats: At: %d coordinates for a tensor of order %d", len(coords), len(v.t.Shape)))
	}
	for m, x := range coords {
		if x < 0 || x >= v.t.Shape[m] {
			panic(fmt.Sprintf("formats: At: coordinate %d of mode %d out of range 0..%d", x, m, v.t.Shape[m]-1))
		}
	}
	sum := 0.0
	var walk func(k, q int)
	walk = func(k, q int) {
		if k == len(v.lay.Levels) {
			sum += v.t.Val[q]
			return
		}
		v.lay.Levels[k].find(v, k, q, coords[v.lay.ModeOrder[k]], func(p int) { walk(k+1, p) })
	}
	walk(0, 0)
	return sum
}
