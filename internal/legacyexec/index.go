package legacyexec

import "github.com/dolthub/swiss"

// index maps the keys of a hashed dictionary to their positions in its
// parallel key and value slices. The implementations are selected by
// Options.Dict: "intmap" (open addressing on int keys, the default),
// "map" (Go's built-in map, a Swiss table since Go 1.24) and "swiss"
// (github.com/dolthub/swiss).
type index interface {
	get(k int) int // position, or -1
	put(k, pos int)
	clear()
}

// newIndex returns an empty index of the named kind with room for n keys.
func newIndex(kind string, n int) index {
	switch kind {
	case "map":
		return &goMap{m: make(map[int]int32, n)}
	case "swiss":
		return &swissMap{m: swiss.NewMap[int, int32](uint32(n))}
	}
	return newIntMap(n)
}

// goMap is the index over Go's built-in map.
type goMap struct{ m map[int]int32 }

func (g *goMap) get(k int) int {
	if p, ok := g.m[k]; ok {
		return int(p)
	}
	return -1
}
func (g *goMap) put(k, pos int) { g.m[k] = int32(pos) }
func (g *goMap) clear()         { clear(g.m) }

// swissMap is the index over github.com/dolthub/swiss.
type swissMap struct{ m *swiss.Map[int, int32] }

func (s *swissMap) get(k int) int {
	if p, ok := s.m.Get(k); ok {
		return int(p)
	}
	return -1
}
func (s *swissMap) put(k, pos int) { s.m.Put(k, int32(pos)) }
func (s *swissMap) clear()         { s.m.Clear() }

// intMap is open addressing with linear probing on int keys: one slot of
// key and position+1 (0 marks an empty slot), Fibonacci hashing.
type intMap struct {
	slots []imSlot
	mask  int
	shift uint
	n     int
}

type imSlot struct {
	k int
	p int // position + 1; 0 = empty
}

func newIntMap(n int) *intMap {
	size := 16
	for size*3 < n*4 {
		size *= 2
	}
	m := &intMap{}
	m.alloc(size)
	return m
}

func (m *intMap) alloc(size int) {
	m.slots = make([]imSlot, size)
	m.mask = size - 1
	bits := uint(0)
	for 1<<bits < size {
		bits++
	}
	m.shift = 64 - bits
	m.n = 0
}

func (m *intMap) hash(k int) int { return int((uint64(k) * 0x9E3779B97F4A7C15) >> m.shift) }

func (m *intMap) get(k int) int {
	h := m.hash(k)
	for {
		s := &m.slots[h]
		if s.p == 0 {
			return -1
		}
		if s.k == k {
			return s.p - 1
		}
		h = (h + 1) & m.mask
	}
}

func (m *intMap) put(k, pos int) {
	if (m.n+1)*4 > len(m.slots)*3 {
		old := m.slots
		m.alloc(2 * len(old))
		for _, s := range old {
			if s.p != 0 {
				m.insert(s.k, s.p)
			}
		}
	}
	m.insert(k, pos+1)
}

func (m *intMap) insert(k, p int) {
	h := m.hash(k)
	for {
		s := &m.slots[h]
		if s.p == 0 {
			s.k, s.p = k, p
			m.n++
			return
		}
		if s.k == k {
			s.p = p
			return
		}
		h = (h + 1) & m.mask
	}
}

func (m *intMap) clear() {
	if m.n > 0 {
		clear(m.slots)
		m.n = 0
	}
}
