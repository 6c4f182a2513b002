package exec

import "github.com/dolthub/swiss"

// hashIndex maps a (parent, key) pair of a hashed level to its child. The
// default index, "intmap", is the level's own open addressing (tensor.go)
// and needs no hashIndex; Options.Dict "map" selects Go's built-in map (a
// Swiss table since Go 1.24) and "swiss" github.com/dolthub/swiss, kept
// so the measurement comparing the three (bench/results/report.md) can
// be rerun.
type hashIndex interface {
	get(parent, key int) (int, bool)
	put(parent, key, c int)
	clear()
	bytes() int64 // an estimate of the memory held
}

type pkey struct{ parent, key int }

func newHashIndex(kind string) hashIndex {
	switch kind {
	case "map":
		return &goIndex{m: map[pkey]int32{}}
	case "swiss":
		return &swissIndex{m: swiss.NewMap[pkey, int32](16)}
	}
	return nil
}

// goIndex is the index over Go's built-in map.
type goIndex struct{ m map[pkey]int32 }

func (g *goIndex) get(parent, key int) (int, bool) {
	c, ok := g.m[pkey{parent, key}]
	return int(c), ok
}
func (g *goIndex) put(parent, key, c int) { g.m[pkey{parent, key}] = int32(c) }
func (g *goIndex) clear()                 { clear(g.m) }
func (g *goIndex) bytes() int64           { return 32 * int64(len(g.m)) }

// swissIndex is the index over github.com/dolthub/swiss.
type swissIndex struct{ m *swiss.Map[pkey, int32] }

func (s *swissIndex) get(parent, key int) (int, bool) {
	c, ok := s.m.Get(pkey{parent, key})
	return int(c), ok
}
func (s *swissIndex) put(parent, key, c int) { s.m.Put(pkey{parent, key}, int32(c)) }
func (s *swissIndex) clear()                 { s.m.Clear() }
func (s *swissIndex) bytes() int64           { return 32 * int64(s.m.Capacity()) }
