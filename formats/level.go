package formats

import (
	"fmt"
	"sort"
)

// Level is one level of a storage format: it stores the coordinates of one
// mode for every position of its parent level (the root has one position).
// The implementations are DenseLevel, CompressedLevel and SingletonLevel;
// the set is closed.
//
// A level is unique when no two of its positions have the same coordinates
// in all levels up to and including it; every level is ordered: the
// positions of a parent's children are sorted by coordinate (ascending, and
// strictly ascending when the level is unique).
type Level interface {
	// Kind returns "dense", "compressed" or "singleton".
	Kind() string
	// IsUnique reports whether the level promises unique coordinates.
	IsUnique() bool
	// String returns the kind, with "(non-unique)" for non-unique levels.
	String() string

	// hasPos and hasIdx report which per-level arrays the level uses.
	hasPos() bool
	hasIdx() bool
	// check validates level k of c.t given its parent's number of
	// positions and returns the level's number of positions.
	check(c *view, k, parent int) (int, error)
	// each calls f for every child position p, with coordinate x, of
	// the parent position q. The tensor must be valid.
	each(v *view, k, q int, f func(p, x int))
	// find calls f for every child position of q with coordinate x.
	find(v *view, k, q, x int, f func(p int))
	// build assembles level k from the builder's sorted entries.
	build(b *builder, k int) error
	// define returns the level's loop header (empty when the level needs
	// no loop), its key expression and its position expression, given
	// the parent's position expression q ("" for the root).
	define(g *defGen, k int, q string) (header, key, pos string)
	// inputs returns the definition inputs the level introduces.
	inputs(g *defGen, k int) []input
}

// view is a tensor together with the layout of its format for its order.
type view struct {
	t   *Tensor
	lay Layout
}

// errorf returns a validation error about level k of the tensor.
func (c *view) errorf(k int, format string, args ...any) error {
	l := c.lay.Levels[k]
	return fmt.Errorf("formats: %s: level %d (%s, mode %d): %s",
		c.lay.name, k, l, c.lay.ModeOrder[k], fmt.Sprintf(format, args...))
}

// samePrefix reports whether positions a and b of level k have the same
// coordinates in levels 0..k. Levels 0..k must have been checked.
func (c *view) samePrefix(k, a, b int) bool {
	if k < 0 {
		return true
	}
	l := c.lay.Levels[k]
	if l.IsUnique() || a == b {
		return a == b
	}
	idx := c.t.Idx[k]
	if idx[a] != idx[b] {
		return false
	}
	if _, ok := l.(SingletonLevel); ok {
		return c.samePrefix(k-1, a, b)
	}
	// A non-unique compressed level: its parent is unique (see
	// Layout.check), so equal parent positions mean equal prefixes.
	pos := c.t.Pos[k]
	return segmentOf(pos, a) == segmentOf(pos, b)
}

// segmentOf returns the parent position q with pos[q] <= p < pos[q+1].
func segmentOf(pos []int, p int) int {
	return sort.Search(len(pos)-1, func(q int) bool { return pos[q+1] > p })
}

// checkOrder checks that x (the coordinate after prev) keeps a level's
// ordering promise: ascending, strictly when unique.
func checkOrder(c *view, k int, l Level, at, prev, x int) error {
	if x < prev {
		return c.errorf(k, "idx[%d] = %d after %d: indices not sorted", at, x, prev)
	}
	if x == prev && l.IsUnique() {
		return c.errorf(k, "idx[%d] = %d: duplicate index in a unique level", at, x)
	}
	return nil
}

// checkNoArrays checks that a level without pos (or idx) arrays has none.
func checkNoArrays(c *view, k int, l Level) error {
	if !l.hasPos() && len(c.t.Pos[k]) != 0 {
		return c.errorf(k, "pos has %d entries, want none", len(c.t.Pos[k]))
	}
	if !l.hasIdx() && len(c.t.Idx[k]) != 0 {
		return c.errorf(k, "idx has %d entries, want none", len(c.t.Idx[k]))
	}
	return nil
}

// checkRange checks that every index of idx lies in 0..extent-1.
func checkRange(c *view, k int, idx []int, extent int) error {
	for p, x := range idx {
		if x < 0 || x >= extent {
			return c.errorf(k, "idx[%d] = %d out of range 0..%d", p, x, extent-1)
		}
	}
	return nil
}
