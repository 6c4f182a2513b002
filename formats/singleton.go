package formats

// SingletonLevel stores one coordinate idx[q] for every parent position q;
// the child's position is q itself. With a non-unique compressed level above
// it, it gives COO: one (row, col, ...) tuple per position. Its parent must
// be non-unique (a compressed or singleton level).
//
// A unique singleton level promises that no two positions have the same
// coordinates in all levels up to it; a non-unique one allows duplicate
// tuples, whose values add up.
type SingletonLevel struct {
	// Unique reports whether whole coordinate tuples are unique.
	Unique bool
}

// Kind returns "singleton".
func (SingletonLevel) Kind() string { return "singleton" }

// IsUnique reports whether the level promises unique coordinates.
func (l SingletonLevel) IsUnique() bool { return l.Unique }

// String returns "singleton" or "singleton(non-unique)".
func (l SingletonLevel) String() string {
	if l.Unique {
		return "singleton"
	}
	return "singleton(non-unique)"
}

func (SingletonLevel) hasPos() bool { return false }
func (SingletonLevel) hasIdx() bool { return true }

func (l SingletonLevel) check(c *view, k, parent int) (int, error) {
	if err := checkNoArrays(c, k, l); err != nil {
		return 0, err
	}
	idx := c.t.Idx[k]
	if len(idx) != parent {
		return 0, c.errorf(k, "idx has %d entries, want %d (one per parent position)", len(idx), parent)
	}
	if err := checkRange(c, k, idx, c.t.Shape[c.lay.ModeOrder[k]]); err != nil {
		return 0, err
	}
	for p := 1; p < len(idx); p++ {
		if c.samePrefix(k-1, p-1, p) {
			if err := checkOrder(c, k, l, p, idx[p-1], idx[p]); err != nil {
				return 0, err
			}
		}
	}
	return len(idx), nil
}

func (SingletonLevel) each(v *view, k, q int, f func(p, x int)) {
	f(q, v.t.Idx[k][q])
}

func (SingletonLevel) find(v *view, k, q, x int, f func(p int)) {
	if v.t.Idx[k][q] == x {
		f(q)
	}
}

func (SingletonLevel) build(b *builder, k int) error {
	idx := make([]int, b.parent)
	xs := b.coords[k]
	for e, x := range xs {
		idx[b.posOf[e]] = x
	}
	b.t.Idx[k] = idx
	return nil
}

func (SingletonLevel) define(g *defGen, k int, q string) (header, key, pos string) {
	return "", g.coordArray(g.lay.ModeOrder[k]) + "(" + q + ")", q
}

func (SingletonLevel) inputs(g *defGen, k int) []input {
	m := g.lay.ModeOrder[k]
	return []input{{g.coordArray(m), inIdx, k, m}}
}
