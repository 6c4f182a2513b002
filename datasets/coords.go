package datasets

import (
	"fmt"
	"slices"
)

// Coords is a tensor given by its stored entries: Idx[m][e] is the 0-based
// coordinate in mode m of entry e. Explicit zero values are stored entries.
type Coords struct {
	Shape []int
	Idx   [][]int
	Val   []float64
}

// Order returns the number of modes of c.
func (c *Coords) Order() int { return len(c.Shape) }

// NNZ returns the number of stored entries of c.
func (c *Coords) NNZ() int { return len(c.Val) }

// Validate reports whether c is well formed: one index slice per mode, all
// of the same length as Val, every index within its mode's extent, and no
// coordinate stored twice.
func (c *Coords) Validate() error {
	if len(c.Idx) != len(c.Shape) {
		return fmt.Errorf("coords: %d index slices for %d modes", len(c.Idx), len(c.Shape))
	}
	for m, n := range c.Shape {
		if n < 0 {
			return fmt.Errorf("coords: negative extent %d in mode %d", n, m)
		}
		if len(c.Idx[m]) != len(c.Val) {
			return fmt.Errorf("coords: mode %d has %d indices for %d values", m, len(c.Idx[m]), len(c.Val))
		}
		for e, i := range c.Idx[m] {
			if i < 0 || i >= n {
				return fmt.Errorf("coords: entry %d: index %d out of range 0..%d in mode %d", e, i, n-1, m)
			}
		}
	}
	perm := c.rowMajorPerm()
	for k := 1; k < len(perm); k++ {
		if c.compare(perm[k-1], perm[k]) == 0 {
			return fmt.Errorf("coords: entries %d and %d both store %v", perm[k-1], perm[k], c.At(perm[k]))
		}
	}
	return nil
}

// At returns the coordinates of entry e.
func (c *Coords) At(e int) []int {
	p := make([]int, len(c.Idx))
	for m := range c.Idx {
		p[m] = c.Idx[m][e]
	}
	return p
}

// IsSorted reports whether the entries of c are in row-major order (mode 0
// slowest) without duplicates.
func (c *Coords) IsSorted() bool {
	for e := 1; e < len(c.Val); e++ {
		if c.compare(e-1, e) >= 0 {
			return false
		}
	}
	return true
}

// SortRowMajor sorts the entries of c into row-major order (mode 0
// slowest), keeping the relative order of entries with equal coordinates.
func (c *Coords) SortRowMajor() {
	if c.IsSorted() {
		return
	}
	perm := c.rowMajorPerm()
	for m := range c.Idx {
		c.Idx[m] = permute(c.Idx[m], perm)
	}
	c.Val = permute(c.Val, perm)
}

func (c *Coords) rowMajorPerm() []int {
	perm := make([]int, len(c.Val))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, c.compare)
	return perm
}

func (c *Coords) compare(a, b int) int {
	for m := range c.Idx {
		x, y := c.Idx[m][a], c.Idx[m][b]
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

func permute[T any](s []T, perm []int) []T {
	out := make([]T, len(s))
	for i, p := range perm {
		out[i] = s[p]
	}
	return out
}
