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
	limit  int64 // Options.MemoryLimit (memory.go)
	dict   string // Options.Dict: the index of hashed levels
}

// level is one level of a tensor, in the storage lowering chose.
//
//   - dense: child = parent*size + key; present marks the positions that
//     exist (nil when full: every key exists). Level 0 grows when a key
//     beyond size arrives; deeper dense levels are full with a fixed size.
//   - sparse: one parent; child = key; mark and list are the keys present,
//     in insertion order; reset clears only those.
//   - hash: children numbered in insertion order; keys[c] and parent[c]
//     describe child c; table maps (parent, key) to c + 1; head and next
//     chain each parent's children for iteration.
type level struct {
	kind    lower.Storage
	size    int
	full    bool
	present []bool
	list    []int // sparse: keys in insertion order
	// hash
	keys, parent []int
	table        []int32
	shift        uint
	head, tail   []int32 // per parent: first and last child + 1
	next         []int32 // per child: the next sibling + 1
	ix           hashIndex // Options.Dict other than intmap: replaces table
	// positions: the input level's arrays
	pos, idx []int
}

func newTensor(t *lower.Tensor, dict string) *tensor {
	rt := &tensor{t: t, levels: make([]*level, len(t.Levels)), dict: dict}
	for i, l := range t.Levels {
		rt.levels[i] = &level{kind: l.Storage, full: l.Full}
		if l.Storage == lower.Hash {
			rt.levels[i].ix = newHashIndex(dict)
		}
	}
	return rt
}

// reset empties the tensor and sizes its levels (sizes[i] <= 0: unknown),
// reusing its memory.
func (rt *tensor) reset(sizes []int) {
	parents := 1
	for i, l := range rt.levels {
		n := max(sizes[i], 0)
		switch l.kind {
		case lower.Dense:
			l.size = n
			if need := parents * n; cap(rt.vals) < need || !l.full && cap(l.present) < need {
				rt.reserve(9 * float64(need))
			}
			if l.full {
				l.present = nil
			} else {
				l.present = resize(l.present, parents*n)
				clear(l.present)
			}
			parents *= n
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
	case lower.Dense:
		rt.vals = resize(rt.vals, parents)
		clear(rt.vals)
	case lower.Sparse:
		if len(rt.vals) < last.size {
			rt.vals = make([]float64, last.size)
		}
		// the sparse level cleared its marks; values are zeroed on insert
	default:
		rt.vals = rt.vals[:0]
	}
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
	}
	return len(l.keys)
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
	panic("internal error: insert into a positions level")
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
	case lower.Hash:
		return l.find(parent, key)
	}
	return 0, false
}

// growDense grows dense level 0 to at least n keys.
func (rt *tensor) growDense(i, n int) {
	l := rt.levels[i]
	n = max(n, 2*l.size, 8)
	rt.reserve(9 * float64(n-l.size))
	l.present = append(l.present, make([]bool, n-l.size)...)
	l.size = n
	if len(rt.levels) == 1 {
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
	if rt.levels[i].kind != lower.Dense {
		sort.Slice(out, func(a, b int) bool { return out[a].key < out[b].key })
	}
	return out
}

type kc struct{ key, c int }

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
