package gogen

import (
	"sort"
	"strings"
)

// The fixed code a generated file may need, written once per file with
// its names prefixed (PFX is replaced by the kernel's prefix), so that
// several kernels can share a package.
//
// The hashed level is the one algorithm written twice: here as source and
// in exec/tensor.go as compiled Go. A generated file imports only the
// standard library (it must build without nablasd), so it cannot call
// exec's; the cross-check compares the two back ends on every program.

var helperSources = map[string]string{
	"hash": `// PFXHash is a hashed level of a tensor: it maps (parent position, key)
// pairs to child positions, numbered in insertion order, by open
// addressing; each parent's children are chained in insertion order.
type PFXHash struct {
	Keys, Parents []int // the key and the parent of each child
	table         []int32 // child+1 at the slot of its (parent, key); 0 when free
	shift         uint
	head, tail    []int32 // per parent: its first and last child + 1
	next          []int32 // per child: its next sibling + 1
}

// reset empties l, keeping its memory.
func (l *PFXHash) reset() {
	if 8*len(l.Keys) < len(l.table) {
		mask := len(l.table) - 1
		for c := range l.Keys {
			h := l.slot(l.Parents[c], l.Keys[c])
			for l.table[h] != int32(c+1) {
				h = (h + 1) & mask
			}
			l.table[h] = 0
		}
	} else {
		clear(l.table)
	}
	clear(l.head)
	l.Keys, l.Parents, l.next = l.Keys[:0], l.Parents[:0], l.next[:0]
	l.head, l.tail = l.head[:0], l.tail[:0]
}

func (l *PFXHash) slot(parent, key int) int {
	h := uint64(key)*0x9E3779B97F4A7C15 ^ uint64(parent)*0xC2B2AE3D27D4EB4F
	return int(h >> l.shift)
}

// find returns the child of parent at key.
func (l *PFXHash) find(parent, key int) (int, bool) {
	if len(l.table) == 0 {
		return 0, false
	}
	mask := len(l.table) - 1
	for h := l.slot(parent, key); ; h = (h + 1) & mask {
		e := l.table[h]
		if e == 0 {
			return 0, false
		}
		if l.Keys[e-1] == key && l.Parents[e-1] == parent {
			return int(e - 1), true
		}
	}
}

// insert returns the child of parent at key, added (with the next
// number) when it is not there.
func (l *PFXHash) insert(parent, key int) (int, bool) {
	if c, ok := l.find(parent, key); ok {
		return c, false
	}
	c := len(l.Keys)
	l.Keys = append(l.Keys, key)
	l.Parents = append(l.Parents, parent)
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
	if 2*len(l.Keys) > len(l.table) {
		l.rehash()
	} else {
		l.place(c)
	}
	return c, true
}

func (l *PFXHash) place(c int) {
	mask := len(l.table) - 1
	h := l.slot(l.Parents[c], l.Keys[c])
	for l.table[h] != 0 {
		h = (h + 1) & mask
	}
	l.table[h] = int32(c + 1)
}

func (l *PFXHash) rehash() {
	n := 16
	for n < 4*len(l.Keys) {
		n *= 2
	}
	l.table = make([]int32, n)
	l.shift = 64
	for s := n; s > 1; s >>= 1 {
		l.shift--
	}
	for c := range l.Keys {
		l.place(c)
	}
}

// first returns the first child of parent, or -1.
func (l *PFXHash) first(parent int) int {
	if parent < len(l.head) {
		return int(l.head[parent]) - 1
	}
	return -1
}

// after returns the child after c of the same parent, or -1.
func (l *PFXHash) after(c int) int { return int(l.next[c]) - 1 }

// sorted returns the children of parent in ascending key order.
func (l *PFXHash) sorted(parent int) []int {
	var cs []int
	for c := l.first(parent); c >= 0; c = l.after(c) {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b int) int { return cmp.Compare(l.Keys[a], l.Keys[b]) })
	return cs
}
`,
	"b2f": `func PFXB2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
`,
	"b2i": `func PFXB2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
`,
	"floorDiv": `// PFXFloorDiv is ⌊a / b⌋ (Go's / rounds toward zero).
func PFXFloorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}
`,
	"formatReal": `// PFXFormatReal prints a real as SDQL does: Go's shortest round-trip
// form, nan, inf and -inf.
func PFXFormatReal(x float64) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}
`,
	"sigmoid": `func PFXSigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
`,
	"softplus": `func PFXSoftplus(x float64) float64 { return math.Max(x, 0) + math.Log1p(math.Exp(-math.Abs(x))) }
`,
	"sign": `func PFXSign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
`,
	"appended": `// PFXAppended is an appended level of a tensor: children numbered in
// insertion order, each parent's inserted in one burst (no other
// parent's in between), so that a parent's children are consecutive.
// Mark[k] is c+1 for the last child c inserted at key k, which is the
// current parent's (Cur-1; Cur is 0 when there is none) when c >= First,
// the first child of its burst: marks need no clearing between bursts.
type PFXAppended struct {
	Keys       []int   // the key of each child
	Start, End []int   // per parent: its first child + 1 (0: none), one past its last (once its burst ended)
	Mark       []int32 // per key: the last child at it + 1, or 0
	Cur        int     // the parent being filled + 1, or 0
	First      int     // the first child of the parent being filled
	// W, for a level that adds into a workspace (Mark[k] then is Cur
	// while key k is a child of the parent being filled), holds the
	// value at key k until the burst ends and its values are appended
	W []float64
}

// reset empties l, keeping its memory: the marks of its keys are
// cleared one by one, or all at once when there are more keys than marks
// (a scattered write each costs more than a cleared mark).
func (l *PFXAppended) reset() {
	if len(l.Keys) > len(l.Mark) {
		clear(l.Mark)
	} else {
		for _, k := range l.Keys {
			l.Mark[k] = 0
		}
	}
	l.Keys = l.Keys[:0]
	clear(l.Start)
	clear(l.End)
	l.Cur, l.First = 0, 0
}

// parents makes Start and End hold the parent q >= 0 (not inlined: it
// is the cold path of inserts in loops).
//
//go:noinline
func (l *PFXAppended) parents(q int) {
	n := max(q+1, 2*len(l.Start), 64)
	l.Start = append(l.Start, make([]int, n-len(l.Start))...)
	l.End = append(l.End, make([]int, n-len(l.End))...)
}

// grown returns the marks m (l.Mark, or the function's copy of it)
// grown to hold the key k >= 0 (not inlined: it is the cold path of
// inserts in loops).
//
//go:noinline
func (l *PFXAppended) grown(m []int32, k int) []int32 {
	return append(m, make([]int32, max(k+1, 2*len(m), 64)-len(m))...)
}

// grownW returns the workspace w (l.W, or the function's copy of it)
// grown to n entries (not inlined: the cold path of inserts).
//
//go:noinline
func (l *PFXAppended) grownW(w []float64, n int) []float64 {
	return append(w, make([]float64, n-len(w))...)
}

// PFXRoom returns s with room for n more entries, growing it to at
// least twice its length (not inlined: the cold path of appends in
// loops). An appended level's keys and values grow by doubling, where
// append grows a large slice by a quarter: a result built from nothing
// then copies about its size in all and touches about twice it in fresh
// memory, not four and five times.
//
//go:noinline
func PFXRoom[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	// make and copy, not append or slices.Grow: those clear the new
	// capacity past the length, touching all of it, where make leaves
	// memory fresh from the operating system untouched until written
	t := make([]T, len(s), len(s)+max(n, len(s), 64))
	copy(t, s)
	return t
}

// span returns the children of parent: lo..hi-1.
func (l *PFXAppended) span(parent int) (lo, hi int) {
	if parent < 0 || parent >= len(l.Start) || l.Start[parent] == 0 {
		return 0, 0
	}
	if parent+1 == l.Cur {
		return l.Start[parent] - 1, len(l.Keys)
	}
	return l.Start[parent] - 1, l.End[parent]
}

// find returns the child of parent at key.
func (l *PFXAppended) find(parent, key int) (int, bool) {
	if parent+1 == l.Cur {
		if key >= 0 && key < len(l.Mark) {
			if c := int(l.Mark[key]) - 1; c >= l.First {
				return c, true
			}
		}
		return 0, false
	}
	lo, hi := l.span(parent)
	for c := lo; c < hi; c++ {
		if l.Keys[c] == key {
			return c, true
		}
	}
	return 0, false
}

// sorted returns the children of parent in ascending key order.
func (l *PFXAppended) sorted(parent int) []int {
	lo, hi := l.span(parent)
	cs := make([]int, 0, hi-lo)
	for c := lo; c < hi; c++ {
		cs = append(cs, c)
	}
	slices.SortFunc(cs, func(a, b int) int { return cmp.Compare(l.Keys[a], l.Keys[b]) })
	return cs
}
`,
	"transpose": `// PFXTranspose lists, for every coordinate j of the compressed level
// (pos, idx) under the parents lo..hi-1, where it occurs: for t in
// tpos[j]..tpos[j+1]-1, par[t] is a parent q and at[t] a position p of
// q's segment with idx[p] = j, ascending in q; n is one past the largest
// coordinate. It reuses the memory of tpos, par and at. Parents out of
// range and negative coordinates are run-time errors (bounds checks).
func PFXTranspose(pos, idx []int, lo, hi int, tpos, par, at []int) (_, _, _ []int, n int) {
	count := 0
	for q := lo; q < hi; q++ {
		seg := idx[pos[q]:pos[q+1]]
		for _, j := range seg {
			n = max(n, j+1)
		}
		count += len(seg)
	}
	if cap(tpos) < n+1 {
		tpos = make([]int, n+1)
	}
	tpos = tpos[:n+1]
	clear(tpos)
	if cap(par) < count || cap(at) < count {
		par, at = make([]int, count), make([]int, count)
	}
	par, at = par[:count], at[:count]
	for q := lo; q < hi; q++ {
		for _, j := range idx[pos[q]:pos[q+1]] {
			tpos[j+1]++
		}
	}
	for j := 1; j <= n; j++ {
		tpos[j] += tpos[j-1]
	}
	for q := lo; q < hi; q++ {
		p0 := pos[q]
		for p, j := range idx[p0:pos[q+1]] {
			t := tpos[j]
			par[t], at[t] = q, p0+p
			tpos[j] = t + 1
		}
	}
	copy(tpos[1:], tpos[:n])
	tpos[0] = 0
	return tpos, par, at, n
}
`,
	"transposeMemo": `// PFXTransposed is the structure a transposition last sorted
// (PFXTransposeMemo): the parents lo..hi-1, copies of pos[lo:hi+1] and of
// the coordinates under them, and the number of keys.
type PFXTransposed struct {
	ok        bool
	lo, hi, n int
	pos, idx  PFXInts
}

// PFXTransposeMemo is PFXTranspose reusing the sort it made last (tpos,
// par and at as it returned them then) while pos and idx under the
// parents lo..hi-1 equal, entry by entry, what it sorted: a structure
// changed in place, in the same slices, is sorted again. A program run
// again and again over one sparse input usually changes only its values
// (the inspector–executor pattern).
func PFXTransposeMemo(m *PFXTransposed, pos, idx []int, lo, hi int, tpos, par, at []int) (_, _, _ []int, n int) {
	if m.ok && m.lo == lo && m.hi == hi && len(tpos) == m.n+1 &&
		(lo >= hi || m.pos.equal(pos[lo:hi+1]) && m.idx.equal(idx[pos[lo]:pos[hi]])) {
		return tpos, par, at, m.n
	}
	m.ok = false // until the sort completes (it may fail)
	tpos, par, at, n = PFXTranspose(pos, idx, lo, hi, tpos, par, at)
	m.ok, m.lo, m.hi, m.n = true, lo, hi, n
	if lo < hi {
		m.pos.keep(pos[lo : hi+1])
		m.idx.keep(idx[pos[lo]:pos[hi]])
	} else {
		m.pos.keep(nil)
		m.idx.keep(nil)
	}
	return tpos, par, at, n
}

// PFXInts is a copy of an int array kept to compare with it later, in
// int32 when every entry fits (half the memory), else in int.
type PFXInts struct {
	narrow []int32
	wide   []int
	isWide bool
}

// keep makes c a copy of a, reusing c's memory.
func (c *PFXInts) keep(a []int) {
	if cap(c.narrow) < len(a) {
		c.narrow = make([]int32, len(a))
	}
	c.narrow = c.narrow[:len(a)]
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
func (c *PFXInts) equal(a []int) bool {
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
`,
	"gallop": `// PFXGallop finds key in the ascending a[lo:hi] where it is likely at
// lo or near it (a finger past the last key found): lo is tested inline,
// the rest galloped (PFXGallopFar).
func PFXGallop(a []int, lo, hi, key int) (int, bool) {
	if lo < hi && a[lo] >= key {
		return lo, a[lo] == key
	}
	return PFXGallopFar(a, lo, hi, key)
}

// PFXGallopFar finds key in the ascending a[lo:hi], a[lo] < key: it
// probes at steps doubling from lo, then bisects the last step
// (PFXSearch, whose position is key's place when key is not below end).
func PFXGallopFar(a []int, lo, hi, key int) (int, bool) {
	end := lo + 1
	for step := 1; end < hi && a[end] < key; step <<= 1 {
		lo = end + 1
		end = lo + step
	}
	p, _ := PFXSearch(a, lo, min(end, hi), key)
	return p, p < hi && a[p] == key
}
`,
	"search": `// PFXSearch finds key in the ascending a[lo:hi] (binary search).
func PFXSearch(a []int, lo, hi, key int) (int, bool) {
	h := hi
	for lo < h {
		m := int(uint(lo+h) >> 1)
		if a[m] < key {
			lo = m + 1
		} else {
			h = m
		}
	}
	return lo, lo < hi && a[lo] == key
}
`,
}

// helperImports are the packages each helper uses.
var helperImports = map[string][]string{
	"hash":          {"cmp", "slices"},
	"appended":      {"cmp", "slices"},
	"formatReal":    {"math", "strconv"},
	"transposeMemo": {"slices"},
	"sigmoid":       {"math"},
	"softplus":      {"math"},
}

// helperSource returns the helpers the file uses, in a fixed order.
func (g *gen) helperSource() string {
	var names []string
	for n := range g.helpers {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		for _, imp := range helperImports[n] {
			g.imports[imp] = true
		}
		b.WriteString(strings.ReplaceAll(helperSources[n], "PFX", g.pfx))
		b.WriteString("\n")
	}
	return b.String()
}
