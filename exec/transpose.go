package exec

import (
	"slices"

	"github.com/nablasd/nablasd/lower"
)

// transpose runs a lower.Transpose: a counting sort of the level's
// coordinates under the parents lo..hi-1 into its Temp arrays, which the
// frame keeps from run to run. The sort depends on the structure alone
// (pos and idx), which a program run again and again over one sparse
// input rarely changes while its values do: the frame keeps a copy of the
// structure it last sorted, and a run over an equal structure reuses the
// sort (the inspector–executor pattern). Equal is compared entry by
// entry, never by identity, so an input changed in place is sorted
// again.
func (c *compiler) transpose(s *lower.Transpose) stmt {
	lo, hi := c.int(s.Lo), c.int(s.Hi)
	pa, ia := s.Pos.ID, s.Idx.ID
	tp, tq, tat, n := s.TPos.ID, s.Parent.ID, s.At.ID, s.N.ID
	name := s.Idx.Name
	return func(fr *frame) {
		pos, idx := fr.ia[pa], fr.ia[ia]
		l, h := lo(fr), hi(fr)
		if l < h && (l < 0 || h >= len(pos)) {
			panic(rtErrorf("transpose: parents %d..%d out of range 0..%d of %s", l, h-1, len(pos)-2, name))
		}
		if fr.transposed == nil {
			fr.transposed = map[*lower.Transpose]*transposed{}
		}
		memo := fr.transposed[s]
		if memo == nil {
			memo = &transposed{}
			fr.transposed[s] = memo
		}
		if memo.same(pos, idx, l, h) && len(fr.ia[tp]) == memo.keys+1 {
			fr.i[n] = memo.keys
			return
		}
		memo.ok = false // until the sort completes (it may fail)
		keys, count := 0, 0
		for q := l; q < h; q++ {
			for _, j := range idx[pos[q]:pos[q+1]] {
				if j < 0 {
					panic(rtErrorf("transpose: a coordinate of %s is negative (%d)", name, j))
				}
				keys = max(keys, j+1)
			}
			count += max(pos[q+1]-pos[q], 0)
		}
		fr.ia[tp] = resize(fr.ia[tp], keys+1)
		tpos := fr.ia[tp]
		clear(tpos)
		for q := l; q < h; q++ {
			for _, j := range idx[pos[q]:pos[q+1]] {
				tpos[j+1]++
			}
		}
		for j := 1; j <= keys; j++ {
			tpos[j] += tpos[j-1]
		}
		fr.ia[tq], fr.ia[tat] = resize(fr.ia[tq], count), resize(fr.ia[tat], count)
		par, at := fr.ia[tq], fr.ia[tat]
		// fill with tpos[j] as j's cursor, then shift the starts back
		for q := l; q < h; q++ {
			for p := pos[q]; p < pos[q+1]; p++ {
				j := idx[p]
				t := tpos[j]
				par[t], at[t] = q, p
				tpos[j] = t + 1
			}
		}
		copy(tpos[1:], tpos[:keys])
		tpos[0] = 0
		fr.i[n] = keys
		memo.keep(pos, idx, l, h, keys)
	}
}

// transposed is the structure a Transpose last sorted: the parents lo..hi-1,
// copies of pos[lo:hi+1] and of the coordinates under them, and the
// number of keys it found.
type transposed struct {
	ok       bool
	lo, hi   int
	keys     int
	pos, idx []int
}

// same reports whether pos and idx under the parents lo..hi-1 are the
// structure last sorted.
func (m *transposed) same(pos, idx []int, lo, hi int) bool {
	if !m.ok || m.lo != lo || m.hi != hi {
		return false
	}
	if lo >= hi {
		return true
	}
	return slices.Equal(m.pos, pos[lo:hi+1]) && slices.Equal(m.idx, idx[pos[lo]:pos[hi]])
}

// keep records the structure just sorted (copies, reusing m's memory).
func (m *transposed) keep(pos, idx []int, lo, hi, keys int) {
	m.ok, m.lo, m.hi, m.keys = true, lo, hi, keys
	m.pos, m.idx = m.pos[:0], m.idx[:0]
	if lo < hi {
		m.pos = append(m.pos, pos[lo:hi+1]...)
		m.idx = append(m.idx, idx[pos[lo]:pos[hi]]...)
	}
}
