package exec

import (
	"slices"
	"sync"

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
	threads := c.opts.Threads
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
		if w := min(threads, h-l, (pos[h]-pos[l])/max(minParallelTranspose/2, 1)); l < h && w >= 2 && !fr.worker {
			keys := transposeParallel(fr, memo, pos, idx, l, h, w, tp, tq, tat, name)
			fr.i[n] = keys
			memo.keep(pos, idx, l, h, keys)
			return
		}
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

// minParallelTranspose is the least number of entries a Transpose sorts
// on several goroutines (Options.Threads).
var minParallelTranspose = 1 << 17

// transposeParallel is the counting sort of transpose on w goroutines,
// each over a share of the parents (equal shares of their entries): each
// counts its coordinates, the counts' prefix sums give every worker its
// own cursor per coordinate (the workers' parents in order, so the
// parents under each coordinate stay ascending), and each fills its
// entries. The cursors are w arrays of one int per coordinate, kept in
// memo. It returns the number of keys.
func transposeParallel(fr *frame, memo *transposed, pos, idx []int, l, h, w int, tp, tq, tat int, name string) int {
	bounds := make([]int, w+1)
	for i := range bounds {
		bounds[i] = split(l, h, i, w, pos)
	}
	maxes := make([]int, w)
	bad := make([]int, w)
	// run runs f for every worker, each on its goroutine; a panic (an
	// input that breaks its format's invariants) is raised again here
	run := func(f func(g int)) {
		var wg sync.WaitGroup
		panics := make([]any, w)
		for g := range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() { panics[g] = recover() }()
				f(g)
			}()
		}
		wg.Wait()
		for _, p := range panics {
			if p != nil {
				panic(p)
			}
		}
	}
	run(func(g int) {
		m, neg := 0, 0
		for _, j := range idx[pos[bounds[g]]:pos[bounds[g+1]]] {
			m = max(m, j+1)
			if j < 0 {
				neg = min(neg, j)
			}
		}
		maxes[g], bad[g] = m, neg
	})
	keys := 0
	for g := range w {
		if bad[g] < 0 {
			panic(rtErrorf("transpose: a coordinate of %s is negative (%d)", name, bad[g]))
		}
		keys = max(keys, maxes[g])
	}
	for len(memo.cursors) < w {
		memo.cursors = append(memo.cursors, nil)
	}
	run(func(g int) {
		cur := resize(memo.cursors[g], keys)
		clear(cur)
		for _, j := range idx[pos[bounds[g]]:pos[bounds[g+1]]] {
			cur[j]++
		}
		memo.cursors[g] = cur
	})
	fr.ia[tp] = resize(fr.ia[tp], keys+1)
	tpos := fr.ia[tp]
	t := 0
	for j := 0; j < keys; j++ {
		tpos[j] = t
		for g := range w {
			c := memo.cursors[g][j]
			memo.cursors[g][j] = t
			t += c
		}
	}
	tpos[keys] = t
	fr.ia[tq], fr.ia[tat] = resize(fr.ia[tq], t), resize(fr.ia[tat], t)
	par, at := fr.ia[tq], fr.ia[tat]
	run(func(g int) {
		cur := memo.cursors[g]
		for q := bounds[g]; q < bounds[g+1]; q++ {
			for p := pos[q]; p < pos[q+1]; p++ {
				j := idx[p]
				c := cur[j]
				par[c], at[c] = q, p
				cur[j] = c + 1
			}
		}
	})
	return keys
}

// transposed is the structure a Transpose last sorted: the parents lo..hi-1,
// copies of pos[lo:hi+1] and of the coordinates under them, and the
// number of keys it found.
type transposed struct {
	ok       bool
	lo, hi   int
	keys     int
	pos, idx intsCopy
	// cursors are the parallel sort's, one array per worker
	cursors [][]int
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
	return m.pos.equal(pos[lo:hi+1]) && m.idx.equal(idx[pos[lo]:pos[hi]])
}

// keep records the structure just sorted (copies, reusing m's memory).
func (m *transposed) keep(pos, idx []int, lo, hi, keys int) {
	m.ok, m.lo, m.hi, m.keys = true, lo, hi, keys
	if lo < hi {
		m.pos.keep(pos[lo : hi+1])
		m.idx.keep(idx[pos[lo]:pos[hi]])
	} else {
		m.pos.keep(nil)
		m.idx.keep(nil)
	}
}

// intsCopy is a copy of an int array kept to compare with it later, in
// int32 when every entry fits (a transposition's copy of the coordinates
// it sorted, nnz entries, is then half the memory: 16 MB less on a matrix
// of 4M entries, and so is the heap the collector lets grow on top of
// it), else in int.
type intsCopy struct {
	narrow []int32
	wide   []int
	isWide bool
}

// keep makes c a copy of a, reusing c's memory.
func (c *intsCopy) keep(a []int) {
	c.narrow = resize(c.narrow, len(a))
	for i, x := range a {
		if x != int(int32(x)) {
			c.narrow, c.isWide = nil, true
			c.wide = append(c.wide[:0], a...)
			return
		}
		c.narrow[i] = int32(x)
	}
	c.wide, c.isWide = c.wide[:0], false
}

// equal reports whether a equals, entry by entry, the array c copied.
func (c *intsCopy) equal(a []int) bool {
	if c.isWide {
		return slices.Equal(c.wide, a)
	}
	if len(a) != len(c.narrow) {
		return false
	}
	for i, x := range c.narrow {
		if int(x) != a[i] {
			return false
		}
	}
	return true
}
