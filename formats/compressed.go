package formats

import "sort"

// CompressedLevel stores, for every parent position q, the sorted
// coordinates idx[pos[q]:pos[q+1]] of its children; the children's
// positions are pos[q]..pos[q+1]-1. Pos has one entry more than the parent
// has positions, starting at 0 and ending at len(idx). At the top of a
// format (one parent position) pos is {0, len(idx)}.
//
// A unique compressed level has strictly increasing coordinates within each
// parent; a non-unique one (the rows of COO) repeats them, and only
// singleton levels may follow it.
type CompressedLevel struct {
	// Unique reports whether coordinates are unique within a parent.
	Unique bool
}

// Kind returns "compressed".
func (CompressedLevel) Kind() string { return "compressed" }

// IsUnique reports whether the level promises unique coordinates.
func (l CompressedLevel) IsUnique() bool { return l.Unique }

// String returns "compressed" or "compressed(non-unique)".
func (l CompressedLevel) String() string {
	if l.Unique {
		return "compressed"
	}
	return "compressed(non-unique)"
}

func (CompressedLevel) hasPos() bool { return true }
func (CompressedLevel) hasIdx() bool { return true }

func (l CompressedLevel) check(c *view, k, parent int) (int, error) {
	pos, idx := c.t.Pos[k], c.t.Idx[k]
	if len(pos) != parent+1 {
		return 0, c.errorf(k, "pos has %d entries, want %d (parent positions + 1)", len(pos), parent+1)
	}
	if pos[0] != 0 {
		return 0, c.errorf(k, "pos[0] = %d, want 0", pos[0])
	}
	for q := 1; q <= parent; q++ {
		if pos[q] < 0 || pos[q] > len(idx) {
			return 0, c.errorf(k, "pos[%d] = %d out of range 0..%d (len(idx))", q, pos[q], len(idx))
		}
		if pos[q] < pos[q-1] {
			return 0, c.errorf(k, "pos[%d] = %d < pos[%d] = %d: pos not monotone", q, pos[q], q-1, pos[q-1])
		}
	}
	if pos[parent] != len(idx) {
		return 0, c.errorf(k, "pos[%d] = %d, want len(idx) = %d", parent, pos[parent], len(idx))
	}
	if err := checkRange(c, k, idx, c.t.Shape[c.lay.ModeOrder[k]]); err != nil {
		return 0, err
	}
	for q := 0; q < parent; q++ {
		for p := pos[q] + 1; p < pos[q+1]; p++ {
			if err := checkOrder(c, k, l, p, idx[p-1], idx[p]); err != nil {
				return 0, err
			}
		}
	}
	return len(idx), nil
}

func (CompressedLevel) each(v *view, k, q int, f func(p, x int)) {
	pos, idx := v.t.Pos[k], v.t.Idx[k]
	for p := pos[q]; p < pos[q+1]; p++ {
		f(p, idx[p])
	}
}

func (CompressedLevel) find(v *view, k, q, x int, f func(p int)) {
	pos, idx := v.t.Pos[k], v.t.Idx[k]
	lo, hi := pos[q], pos[q+1]
	p := lo + sort.SearchInts(idx[lo:hi], x)
	for ; p < hi && idx[p] == x; p++ {
		f(p)
	}
}

func (l CompressedLevel) build(b *builder, k int) error {
	xs := b.coords[k]
	pos := make([]int, b.parent+1)
	idx := make([]int, 0, len(xs))
	prevParent, prevX := -1, -1
	for e, x := range xs {
		q := b.posOf[e]
		if !l.Unique || q != prevParent || x != prevX {
			pos[q+1]++
			idx = append(idx, x)
			prevParent, prevX = q, x
		}
		b.posOf[e] = len(idx) - 1
	}
	for q := 1; q <= b.parent; q++ {
		pos[q] += pos[q-1]
	}
	b.t.Pos[k], b.t.Idx[k] = pos, idx
	b.parent = len(idx)
	return nil
}

func (CompressedLevel) define(g *defGen, k int, q string) (header, key, pos string) {
	p := g.posVar(k)
	if k == 0 {
		header = "sum(<_, " + p + "> in (0:" + g.name + "_len))"
		return header, g.coordArray(g.lay.ModeOrder[k]) + "(" + p + ")", p
	}
	x := g.coordVar(g.lay.ModeOrder[k])
	ps, is := g.posArray(k), g.idxArray(k)
	header = "sum(<" + p + ", " + x + "> in " + is + "(" + ps + "(" + q + "):" + ps + "(" + q + "+1)))"
	return header, x, p
}

func (CompressedLevel) inputs(g *defGen, k int) []input {
	m := g.lay.ModeOrder[k]
	if k == 0 {
		return []input{{g.name + "_len", inLen, k, m}, {g.coordArray(m), inIdx, k, m}}
	}
	return []input{{g.posArray(k), inPos, k, m}, {g.idxArray(k), inIdx, k, m}}
}
