package exec

import (
	"sort"

	"github.com/nablasd/nablasd/lower"
)

// tensor is the run-time form of a lower.Tensor: its levels map parent
// positions and keys to child positions, and vals holds the leaves.
type tensor struct {
	t      *lower.Tensor
	levels []*level
	vals   []float64
	limit  int64  // Options.MemoryLimit (memory.go)
	dict   string // Options.Dict: the index of hashed levels
	// setFirst: the last Init said every value read is set first
	// (lower.Init.SetFirst): a full positions level's values are not
	// zeroed
	setFirst bool
	// zero: a worker's copy of a full dense tensor whose values are all
	// zero at the sizes it was last reset to (the merge zeroed what it
	// added: mergeAll), so that the next reset to those sizes has
	// nothing to clear
	zero bool
	// span: the positions of a worker's copy a parallel loop's chunk
	// wrote, found by the worker once its chunk ran (from its first to
	// one past its last value that is not zero; ok false when not found:
	// a tensor mergeAll does not add position by position)
	span struct {
		lo, hi int
		ok     bool
	}
	// inResult: the values are a view of the result's first values, own
	// the tensor's own memory meanwhile (inresult.go)
	inResult bool
	own      []float64
}

// level is one level of a tensor, in the storage lowering chose.
//
//   - dense: child = parent*size + key; present marks the positions that
//     exist (nil when full: every key exists). Level 0 grows when a key
//     beyond size arrives; deeper dense levels are full with a fixed size.
//   - sparse: one parent; child = key; mark and list are the keys present,
//     in insertion order; reset clears only those.
//   - positions: the positions of an input's level (pos and idx, bound
//     at Init): the children of parent q are pos[q]..pos[q+1]-1 (0..
//     len(idx)-1 without pos), keys idx[p]; present marks those inserted
//     (Insert gives the position itself, lower.Insert.At).
//   - hash (also written as source in gogen/runtime.go, for generated files
//     that import only the standard library): children numbered in
//     insertion order; keys[c] and parent[c]
//     describe child c; table maps (parent, key) to c + 1; head and next
//     chain each parent's children for iteration.
//   - appended: children numbered in insertion order, each parent's in
//     one burst, so consecutive: head..tail (+1) per parent, keys[c];
//     mark[key] is c + 1 for the children of the parent being filled
//     (cur), cleared when the next parent starts.
//   - diagonal: at most one child per parent, at the parent's key and
//     position (level 1 under a dense level 0); present marks the parents
//     that have it (nil when full: every parent present has).
type level struct {
	kind lower.Storage
	size int
	full bool
	// dense, not full: no presence (lower.Level.Unmarked); present nil
	unmarked bool
	present  []bool
	list     []int // sparse: keys in insertion order
	// hash
	keys, parent []int
	table        []int32
	shift        uint
	head, tail   []int32   // per parent: first and last child + 1
	next         []int32   // per child: the next sibling + 1
	ix           hashIndex // Options.Dict other than intmap: replaces table
	// diagonal, not full: every parent has its child (an Init found
	// Covered: the program inserts every row's), present unused
	all bool
	// appended
	mark []int32
	cur  int
	// positions: the input level's arrays
	pos, idx []int
}

func newTensor(t *lower.Tensor, dict string) *tensor {
	rt := &tensor{t: t, levels: make([]*level, len(t.Levels)), dict: dict}
	for i, l := range t.Levels {
		rt.levels[i] = &level{kind: l.Storage, full: l.Full, unmarked: l.Unmarked, cur: -1}
		if l.Storage == lower.Hash {
			rt.levels[i].ix = newHashIndex(dict)
		}
	}
	return rt
}

// reset empties the tensor and sizes its levels (sizes[i] <= 0: unknown),
// reusing its memory.
func (rt *tensor) reset(sizes []int) { rt.resize(sizes, false) }

// resize sizes the tensor's levels as reset does; with covered (an Init
// whose Covered holds: the program sets every value and presence before
// reading any), dense levels and values keep what they hold.
func (rt *tensor) resize(sizes []int, covered bool) {
	parents := 1
	for i, l := range rt.levels {
		n := max(sizes[i], 0)
		switch l.kind {
		case lower.Dense:
			l.size = n
			if need := parents * n; cap(rt.vals) < need || !l.full && cap(l.present) < need {
				rt.reserve(9 * float64(need))
			}
			if l.full || l.unmarked {
				l.present = nil
			} else {
				l.present = resize(l.present, parents*n)
				if !covered {
					clear(l.present)
				}
			}
			parents *= n
		case lower.Diagonal:
			// a child per parent, at the parent's position
			l.all = covered && !l.full
			if l.full || l.all {
				l.present = l.present[:0]
			} else {
				l.present = resize(l.present, parents)
				clear(l.present)
			}
		case lower.Sparse:
			if len(l.present) < n {
				l.present = make([]bool, n)
			} else {
				for _, k := range l.list {
					l.present[k] = false
				}
			}
			l.size = max(n, len(l.present))
			l.list = l.list[:0]
			parents = l.size
		case lower.Positions:
			if cap(rt.vals) < len(l.idx) || !l.full && cap(l.present) < len(l.idx) {
				rt.reserve(9 * float64(len(l.idx)))
			}
			if l.full {
				// present with its parent (lower.FullPositions): no
				// marks; the values start at zero (below)
				l.present = nil
			} else {
				l.present = resize(l.present, len(l.idx))
				clear(l.present)
			}
			parents = len(l.idx)
		case lower.Appended:
			l.endBurst()
			l.keys = l.keys[:0]
			clear(l.head)
			clear(l.tail)
			l.head, l.tail = l.head[:0], l.tail[:0]
			parents = 0
		case lower.Hash:
			l.keys, l.parent, l.next = l.keys[:0], l.parent[:0], l.next[:0]
			clear(l.head)
			l.head, l.tail = l.head[:0], l.tail[:0]
			if len(l.table) > 0 {
				clear(l.table)
			}
			if l.ix != nil {
				l.ix.clear()
			}
			parents = 0
		}
	}
	last := rt.levels[len(rt.levels)-1]
	switch last.kind {
	case lower.Dense, lower.Diagonal:
		rt.vals = resize(rt.vals, parents)
		if !covered {
			clear(rt.vals)
		}
	case lower.Sparse:
		if len(rt.vals) < last.size {
			rt.vals = make([]float64, last.size)
		}
		// the sparse level cleared its marks; values are zeroed on insert
	case lower.Positions:
		rt.vals = resize(rt.vals, parents) // zeroed on insert (insertAt)
		if last.full && !rt.setFirst {
			clear(rt.vals) // no marks to zero them on insert by
		}
	default:
		rt.vals = rt.vals[:0]
	}
}

// doubled returns s with room for len(s) more entries (at least 64):
// an appended level's keys and values grow by doubling, where append
// grows a large slice by a quarter. A result of n entries built from
// nothing then copies about n entries in all and touches about 2n of
// fresh memory, not 4n and 5n: BATAx's first run on a matrix of 2.6M
// entries (10M in its result) spent more of its time growing its result
// than computing it.
func doubled[T any](s []T) []T {
	// make and copy, not append or slices.Grow: those clear the new
	// capacity past the length, touching all of it, where make leaves
	// memory fresh from the operating system untouched (already zero)
	// until it is written
	t := make([]T, len(s), max(2*len(s), 64))
	copy(t, s)
	return t
}

func resize[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// positions is the number of positions of level i (the parents of level
// i+1).
func (rt *tensor) positions(i int) int {
	l := rt.levels[i]
	switch l.kind {
	case lower.Dense:
		if i == 0 {
			return l.size
		}
		return rt.positions(i-1) * l.size
	case lower.Sparse:
		return l.size
	case lower.Positions:
		return len(l.idx)
	case lower.Diagonal:
		return rt.positions(i - 1)
	}
	return len(l.keys)
}

// bindPositions gives the Positions levels the arrays of the input levels
// they reuse (ia: the frame's int arrays), before reset.
func (rt *tensor) bindPositions(ia [][]int) {
	for i, l := range rt.levels {
		if l.kind != lower.Positions {
			continue
		}
		of := rt.t.Levels[i].Of
		l.pos = nil
		if of.Pos != nil {
			l.pos = ia[of.Pos.ID]
		}
		l.idx = ia[of.Idx.ID]
	}
}

// insertAt marks position c of Positions level i present (the child of
// its parent at key idx[c]), zeroing its value the first time.
func (rt *tensor) insertAt(i, c int) int {
	l := rt.levels[i]
	if c < 0 || c >= len(l.idx) {
		panic(rtErrorf("position %d out of range 0..%d of a positions level", c, len(l.idx)-1))
	}
	if l.present == nil {
		return c // full: present with its parent, zero since resize
	}
	if !l.present[c] {
		l.present[c] = true
		if i == len(rt.levels)-1 {
			rt.vals[c] = 0
		}
	}
	return c
}

// segment is the range of positions of parent q in a Positions level.
func (l *level) segment(q int) (lo, hi int) {
	if l.pos == nil {
		if q == 0 {
			return 0, len(l.idx)
		}
		return 0, 0
	}
	if q < 0 || q+1 >= len(l.pos) {
		return 0, 0
	}
	return l.pos[q], l.pos[q+1]
}

// insert returns the child of parent at key in level i, creating it.
func (rt *tensor) insert(i, parent, key int) int {
	l := rt.levels[i]
	last := i == len(rt.levels)-1
	switch l.kind {
	case lower.Dense:
		if key < 0 || key >= l.size {
			if l.full || i > 0 || key < 0 {
				panic(rtErrorf("key %d out of range 0..%d of a dense result", key, l.size-1))
			}
			rt.growDense(i, key+1)
		}
		c := parent*l.size + key
		if l.present != nil {
			l.present[c] = true
		}
		return c
	case lower.Diagonal:
		if key != parent {
			panic(rtErrorf("internal error: key %d under row %d of a diagonal level", key, parent))
		}
		if !l.full && !l.all {
			l.present[parent] = true
		}
		return parent
	case lower.Sparse:
		if key < 0 {
			panic(rtErrorf("key %d of a dense workspace is negative", key))
		}
		if key >= len(l.present) {
			n := max(2*len(l.present), key+1, 8)
			rt.reserve(9 * float64(n-len(l.present)))
			l.present = append(l.present, make([]bool, n-len(l.present))...)
			l.size = n
			if last {
				rt.vals = append(rt.vals, make([]float64, n-len(rt.vals))...)
			}
		}
		if !l.present[key] {
			l.present[key] = true
			l.list = append(l.list, key)
			if last {
				rt.vals[key] = 0
			}
		}
		return key
	case lower.Appended:
		c, found := l.burst(parent, key)
		if found {
			return c
		}
		if len(l.keys) == cap(l.keys) {
			if len(l.keys) >= 1<<16 {
				rt.reserve(16 * float64(len(l.keys)))
			}
			l.keys = doubled(l.keys)
		}
		c = len(l.keys)
		l.keys = append(l.keys, key)
		l.mark[key] = int32(c + 1)
		if l.head[parent] == 0 {
			l.head[parent] = int32(c + 1)
		}
		l.tail[parent] = int32(c + 1)
		if last {
			if len(rt.vals) == cap(rt.vals) {
				rt.vals = doubled(rt.vals)
			}
			rt.vals = append(rt.vals, 0)
		}
		return c
	case lower.Hash:
		c, found := l.find(parent, key)
		if found {
			return c
		}
		if len(l.keys) == cap(l.keys) && len(l.keys) >= 1<<16 {
			rt.reserve(40 * float64(len(l.keys)))
		}
		c = l.add(parent, key)
		if last {
			rt.vals = append(rt.vals, 0)
		}
		return c
	}
	// a positions level: the key's position in the parent's segment (the
	// lowering gives it as Insert.At; merging workers and loading inputs
	// find it)
	if c, _ := rt.locate(i, parent, key); c >= 0 {
		return rt.insertAt(i, c)
	}
	panic(rtErrorf("key %d is not a stored coordinate of the positions level's parent %d", key, parent))
}

// locate finds the child of parent at key in level i.
func (rt *tensor) locate(i, parent, key int) (int, bool) {
	l := rt.levels[i]
	switch l.kind {
	case lower.Dense:
		if key < 0 || key >= l.size {
			return 0, false
		}
		c := parent*l.size + key
		return c, l.present == nil || l.present[c]
	case lower.Sparse:
		return key, key >= 0 && key < len(l.present) && l.present[key]
	case lower.Diagonal:
		return parent, key == parent && (l.full || l.all || l.present[parent])
	case lower.Hash:
		return l.find(parent, key)
	case lower.Appended:
		if parent == l.cur {
			if key >= 0 && key < len(l.mark) && l.mark[key] != 0 {
				return int(l.mark[key] - 1), true
			}
			return 0, false
		}
		if parent >= 0 && parent < len(l.head) && l.head[parent] != 0 {
			for c := l.head[parent] - 1; c < l.tail[parent]; c++ {
				if l.keys[c] == key {
					return int(c), true
				}
			}
		}
		return 0, false
	case lower.Positions:
		lo, hi := l.segment(parent)
		p := lo + sort.SearchInts(l.idx[lo:hi], key)
		if p < hi && l.idx[p] == key {
			return p, l.present == nil || l.present[p]
		}
		return -1, false
	}
	return 0, false
}

// growDense grows dense level 0 to at least n keys.
func (rt *tensor) growDense(i, n int) {
	l := rt.levels[i]
	n = max(n, 2*l.size, 8)
	rt.reserve(9 * float64(n-l.size))
	if !l.unmarked {
		l.present = append(l.present, make([]bool, n-l.size)...)
	}
	l.size = n
	if len(rt.levels) == 2 && rt.levels[1].kind == lower.Diagonal {
		if d := rt.levels[1]; !d.full && !d.all {
			d.present = append(d.present, make([]bool, n-len(d.present))...)
		}
	}
	if len(rt.levels) == 1 || len(rt.levels) == 2 && rt.levels[1].kind == lower.Diagonal {
		rt.vals = append(rt.vals, make([]float64, n-len(rt.vals))...)
	}
}

// children calls f for every child of parent at level i, in the level's
// order, until f returns false.
func (rt *tensor) children(i, parent int, f func(key, c int) bool) {
	l := rt.levels[i]
	switch l.kind {
	case lower.Dense:
		base := parent * l.size
		for k := 0; k < l.size; k++ {
			if l.present == nil || l.present[base+k] {
				if !f(k, base+k) {
					return
				}
			}
		}
	case lower.Sparse:
		for _, k := range l.list {
			if !f(k, k) {
				return
			}
		}
	case lower.Diagonal:
		if l.full || l.all || l.present[parent] {
			f(parent, parent)
		}
	case lower.Positions:
		lo, hi := l.segment(parent)
		for p := lo; p < hi; p++ {
			if (l.present == nil || l.present[p]) && !f(l.idx[p], p) {
				return
			}
		}
	case lower.Appended:
		if parent < 0 || parent >= len(l.head) || l.head[parent] == 0 {
			return
		}
		for c := int(l.head[parent] - 1); c < int(l.tail[parent]); c++ {
			if !f(l.keys[c], c) {
				return
			}
		}
	case lower.Hash:
		if parent >= len(l.head) {
			return
		}
		for c := l.head[parent]; c != 0; c = l.next[c-1] {
			if !f(l.keys[c-1], int(c-1)) {
				return
			}
		}
	}
}

// sortedKeys lists the children of parent at level i as (key, child)
// pairs, keys ascending.
func (rt *tensor) sortedKeys(i, parent int) []kc {
	var out []kc
	rt.children(i, parent, func(k, c int) bool {
		out = append(out, kc{k, c})
		return true
	})
	if !rt.ordered(i) {
		sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
	}
	return out
}

// ordered reports whether level i gives its children in ascending key
// order (children): dense and positions levels, and a diagonal's one.
func (rt *tensor) ordered(i int) bool {
	switch rt.levels[i].kind {
	case lower.Dense, lower.Positions, lower.Diagonal:
		return true
	}
	return false
}

// sortedChildren calls f for the children of parent at level i, keys
// ascending, until f returns false: in place where the level keeps them
// in order, else sorted first (holding that parent's children: a hashed
// level's keys).
func (rt *tensor) sortedChildren(i, parent int, f func(key, c int) bool) {
	if rt.ordered(i) {
		rt.children(i, parent, f)
		return
	}
	for _, e := range rt.sortedKeys(i, parent) {
		if !f(e.key, e.c) {
			return
		}
	}
}

type kc struct{ key, c int }

// ---- appended levels

// burst finds key among the children of parent, the parent being filled:
// when parent is another, the previous parent's burst ends (its marks are
// cleared) and parent's begins; a parent that had its burst already is an
// internal error (the lowering proves it cannot happen).
func (l *level) burst(parent, key int) (int, bool) {
	if parent != l.cur {
		l.endBurst()
		if parent < 0 {
			panic(rtErrorf("internal error: appended level: negative parent %d", parent))
		}
		for parent >= len(l.head) {
			l.head = append(l.head, 0)
			l.tail = append(l.tail, 0)
		}
		if l.head[parent] != 0 {
			panic(rtErrorf("internal error: appended level: parent %d filled twice", parent))
		}
		l.cur = parent
	}
	if key < 0 {
		panic(rtErrorf("key %d of an appended level is negative", key))
	}
	if key >= len(l.mark) {
		l.mark = append(l.mark, make([]int32, max(key+1, 2*len(l.mark), 64)-len(l.mark))...)
	}
	if m := l.mark[key]; m != 0 {
		return int(m - 1), true
	}
	return 0, false
}

// endBurst clears the marks of the parent being filled.
func (l *level) endBurst() {
	if l.cur >= 0 && l.cur < len(l.head) && l.head[l.cur] != 0 {
		for _, k := range l.keys[l.head[l.cur]-1 : l.tail[l.cur]] {
			l.mark[k] = 0
		}
	}
	l.cur = -1
}

// ---- hash levels

func (l *level) hash(parent, key int) int {
	h := uint64(key)*0x9E3779B97F4A7C15 ^ uint64(parent)*0xC2B2AE3D27D4EB4F
	return int(h >> l.shift)
}

func (l *level) find(parent, key int) (int, bool) {
	if l.ix != nil {
		return l.ix.get(parent, key)
	}
	if len(l.table) == 0 {
		return 0, false
	}
	mask := len(l.table) - 1
	for h := l.hash(parent, key); ; h = (h + 1) & mask {
		e := l.table[h]
		if e == 0 {
			return 0, false
		}
		if l.keys[e-1] == key && l.parent[e-1] == parent {
			return int(e - 1), true
		}
	}
}

func (l *level) add(parent, key int) int {
	c := len(l.keys)
	l.keys = append(l.keys, key)
	l.parent = append(l.parent, parent)
	l.next = append(l.next, 0)
	for parent >= len(l.head) {
		l.head = append(l.head, 0)
		l.tail = append(l.tail, 0)
	}
	if l.tail[parent] == 0 {
		l.head[parent] = int32(c + 1)
	} else {
		l.next[l.tail[parent]-1] = int32(c + 1)
	}
	l.tail[parent] = int32(c + 1)
	if l.ix != nil {
		l.ix.put(parent, key, c)
		return c
	}
	if 2*len(l.keys) > len(l.table) {
		l.rehash()
	} else {
		l.place(c)
	}
	return c
}

func (l *level) place(c int) {
	mask := len(l.table) - 1
	h := l.hash(l.parent[c], l.keys[c])
	for l.table[h] != 0 {
		h = (h + 1) & mask
	}
	l.table[h] = int32(c + 1)
}

func (l *level) rehash() {
	n := 16
	for n < 4*len(l.keys) {
		n *= 2
	}
	l.table = make([]int32, n)
	l.shift = uint(64)
	for s := n; s > 1; s >>= 1 {
		l.shift--
	}
	for c := range l.keys {
		l.place(c)
	}
}
