package gogen

import "github.com/nablasd/nablasd/lower"

// Row segments sliced once. An inner loop over a dense row read at an
// offset (the factorization's U[c6 + k], k < c7) slices the row each
// time it starts: once an entry of the enclosing loop over a sparse row,
// where a hand-written loop slices U's row once a row. When the offset
// and the inner loop's range are invariant in the enclosing loop, and
// every iteration of the enclosing loop runs an inner loop slicing that
// segment (on every path through its body, each such loop known to run:
// a fact, facts.go, as in a copy of a versioned loop), the segment is
// sliced once before the enclosing loop instead; the inner loops take
// it. Slicing it there fails only where the first iteration's own
// slicing would have (the same expression of the same values), so an
// input that breaks its format's invariants still fails, with the same
// kind of error. The factorization's value went from 1.19 to 1.10x the
// hand-written loop, its gradient from 0.98 to 0.91 (chunked A/B on
// e40r0000, aligned builds).

// rowSegKey identifies a segment: the array, the offset and the inner
// loop's bounds (canonical forms).
type rowSegKey struct {
	a           *lower.Array
	off, lo, hi string
}

// rowSeg is a segment to slice before the enclosing loop.
type rowSeg struct {
	key    rowSegKey
	a      *lower.Array
	off    lower.Expr
	lo, hi lower.Expr
}

// alwaysSegments lists the segments every iteration of the loop of v
// over body slices in an inner loop, whose offsets and bounds the loop
// does not change.
func (g *gen) alwaysSegments(v *lower.Var, body lower.Stmt) []rowSeg {
	var always func(s lower.Stmt) []rowSeg
	always = func(s lower.Stmt) []rowSeg {
		switch x := s.(type) {
		case *lower.Block:
			var out []rowSeg
			for _, y := range x.List {
				out = unionSegs(out, always(y))
			}
			return out
		case *lower.If:
			if x.Else == nil {
				return nil
			}
			return intersectSegs(always(x.Then), always(x.Else))
		case *lower.For:
			if g.hoisted[x.V] || !g.holdsFact(lower.RangeCond(x)) || !invariantIn(x.Lo, v, body) || !invariantIn(x.Hi, v, body) {
				return nil
			}
			var out []rowSeg
			for _, sg := range g.segmentArrays(x.V, x.Body) {
				if sg.off == nil || !invariantIn(sg.off, v, body) {
					continue
				}
				key := rowSegKey{sg.a, lower.CanonString(sg.off), lower.CanonString(x.Lo), lower.CanonString(x.Hi)}
				out = unionSegs(out, []rowSeg{{key: key, a: sg.a, off: sg.off, lo: x.Lo, hi: x.Hi}})
			}
			return out
		}
		return nil
	}
	return always(body)
}

func unionSegs(a, b []rowSeg) []rowSeg {
	for _, s := range b {
		if !hasSeg(a, s.key) {
			a = append(a, s)
		}
	}
	return a
}

func intersectSegs(a, b []rowSeg) []rowSeg {
	var out []rowSeg
	for _, s := range a {
		if hasSeg(b, s.key) {
			out = append(out, s)
		}
	}
	return out
}

func hasSeg(ss []rowSeg, k rowSegKey) bool {
	for _, s := range ss {
		if s.key == k {
			return true
		}
	}
	return false
}

// sliceRowSegs slices the segments before the enclosing loop and
// records their names for the inner loops (g.rowSegs); it returns their
// keys, for dropRowSegs once the loop is emitted.
func (g *gen) sliceRowSegs(segs []rowSeg) []rowSegKey {
	var keys []rowSegKey
	for _, s := range segs {
		n := g.loc.name(g.arrays[s.a] + "Row")
		g.typed(n, "[]"+goKind(s.a.Kind))
		o := g.simple(s.off, lower.Int, "o")
		lo, hi := g.simple(s.lo, lower.Int, "lo"), g.simple(s.hi, lower.Int, "hi")
		g.line("%s := %s[%s+%s : %s+%s : len(%s)]", n, g.arrays[s.a], o, lo, o, hi, g.arrays[s.a])
		g.line("_ = %s // an inner loop may be written another way (copyLoop)", n)
		g.rowSegs[s.key] = n
		keys = append(keys, s.key)
	}
	return keys
}

// dropRowSegs forgets the segments sliceRowSegs recorded.
func (g *gen) dropRowSegs(keys []rowSegKey) {
	for _, k := range keys {
		delete(g.rowSegs, k)
	}
}

// rowSegName returns the name of a segment sliced before an enclosing
// loop for the inner loop f reading array a at offset off, or "".
func (g *gen) rowSegName(f *lower.For, a *lower.Array, off lower.Expr) string {
	if f == nil || off == nil {
		return ""
	}
	return g.rowSegs[rowSegKey{a, lower.CanonString(off), lower.CanonString(f.Lo), lower.CanonString(f.Hi)}]
}
