package formats

// MaxDenseSize is the largest number of positions a dense level may have
// (the product of the parent's positions and the level's extent). Building
// or validating a bigger container is refused with an error rather than
// exhausting memory; ToDense uses the same limit.
var MaxDenseSize = 1 << 28

// DenseLevel stores every coordinate 0..n-1 of its mode for every parent
// position, with no arrays: the child of parent position q at coordinate x
// is position q*n+x. A dense level is always unique.
type DenseLevel struct{}

// Kind returns "dense".
func (DenseLevel) Kind() string { return "dense" }

// IsUnique returns true.
func (DenseLevel) IsUnique() bool { return true }

// String returns "dense".
func (DenseLevel) String() string { return "dense" }

func (DenseLevel) hasPos() bool { return false }
func (DenseLevel) hasIdx() bool { return false }

// denseSize returns parent*extent, or ok=false when it exceeds MaxDenseSize.
func denseSize(parent, extent int) (int, bool) {
	if extent != 0 && parent > MaxDenseSize/extent {
		return 0, false
	}
	n := parent * extent
	return n, n <= MaxDenseSize
}

func (l DenseLevel) check(c *view, k, parent int) (int, error) {
	if err := checkNoArrays(c, k, l); err != nil {
		return 0, err
	}
	extent := c.t.Shape[c.lay.ModeOrder[k]]
	n, ok := denseSize(parent, extent)
	if !ok {
		return 0, c.errorf(k, "%d×%d positions exceed MaxDenseSize (%d)", parent, extent, MaxDenseSize)
	}
	return n, nil
}

func (DenseLevel) each(v *view, k, q int, f func(p, x int)) {
	n := v.t.Shape[v.lay.ModeOrder[k]]
	for x := 0; x < n; x++ {
		f(q*n+x, x)
	}
}

func (DenseLevel) find(v *view, k, q, x int, f func(p int)) {
	f(q*v.t.Shape[v.lay.ModeOrder[k]] + x)
}

func (DenseLevel) build(b *builder, k int) error {
	extent := b.shape[b.lay.ModeOrder[k]]
	n, ok := denseSize(b.parent, extent)
	if !ok {
		return b.errorf(k, "%d×%d positions exceed MaxDenseSize (%d)", b.parent, extent, MaxDenseSize)
	}
	xs := b.coords[k]
	for e := range b.posOf {
		b.posOf[e] = b.posOf[e]*extent + xs[e]
	}
	b.parent = n
	return nil
}

func (DenseLevel) define(g *defGen, k int, q string) (header, key, pos string) {
	x := g.coordVar(g.lay.ModeOrder[k])
	n := g.denseExtent(k)
	header = "sum(<_, " + x + "> in (0:" + n + "))"
	return header, x, linear(q, n, x)
}

func (DenseLevel) inputs(g *defGen, k int) []input {
	m := g.lay.ModeOrder[k]
	if k == 0 {
		return []input{{g.name + "_len", inExtent, k, m}}
	}
	return []input{{g.denseExtent(k), inExtent, k, m}}
}

// linear returns the expression q*n+x, or x when q is the root ("").
func linear(q, n, x string) string {
	if q == "" {
		return x
	}
	return paren(q) + "*" + n + "+" + x
}
