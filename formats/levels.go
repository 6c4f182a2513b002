package formats

import "fmt"

// LevelInfo is what a format says of one of its levels, for a tensor bound
// under a name: which definition inputs the level reads and what it can
// do, in the manner of TACO's level capabilities. The lowering (package
// lower) asks these questions instead of reading the definition's text.
type LevelInfo struct {
	// Tensor is the name the tensor is bound under; Format its format.
	Tensor string
	Format Format
	// Level is the level's index, outermost first; Mode the logical mode
	// it stores. Which kind of level it is stays inside this package:
	// callers ask what it can do (the fields below), as TACO's lowerer
	// asks a level's capabilities and never its format.
	Level, Mode int
	kind        string
	// Unique: coordinates are unique within a parent position; Ordered:
	// ascending within a parent (every built-in level is).
	Unique, Ordered bool
	// The definition inputs the level reads, "" where it has none: Pos
	// and Idx, the pos and coordinate arrays of a compressed level (Idx
	// alone for a singleton level and the top compressed level, whose
	// coordinates are its positions' keys); Extent, a dense level's
	// extent or a top compressed level's number of entries (NAME_len).
	Pos, Idx, Extent string
	// Val is the tensor's values array.
	Val string
	// What the level can do: iterate its coordinates 0..extent-1 (dense),
	// iterate its positions (compressed, singleton), locate a coordinate
	// in constant time (dense), find one by binary search (a unique
	// ordered compressed level below the top).
	CoordIter, PosIter, Locate, Search bool
	// OnePerParent: each parent position has exactly one position here,
	// the same number (a singleton level: COO's coordinates below the
	// first). Positions of a level with Pos are segments instead,
	// Pos[p]..Pos[p+1] for parent p.
	OnePerParent bool
}

// String describes the level for messages and tests, e.g. "A level 1
// (mode 1): compressed".
func (l LevelInfo) String() string {
	return fmt.Sprintf("%s level %d (mode %d): %s", l.Tensor, l.Level, l.Mode, l.kind)
}

// Levels describes the levels of format f for tensors of the given order
// bound under name, outermost first, naming the inputs of
// Definition(f, name, order) each reads.
func Levels(f Format, name string, order int) ([]LevelInfo, error) {
	g, err := newDefGen(f, name, order)
	if err != nil {
		return nil, err
	}
	out := make([]LevelInfo, order)
	for k, l := range g.lay.Levels {
		m := g.lay.ModeOrder[k]
		li := LevelInfo{Tensor: name, Format: f, Level: k, Mode: m, kind: l.Kind(),
			Unique: l.IsUnique(), Ordered: true, Val: name + "_val"}
		switch l.(type) {
		case DenseLevel:
			li.CoordIter, li.Locate = true, true
			if g.denseLogical() {
				li.Extent = g.modeExtent(m)
			} else {
				li.Extent = g.denseExtent(k)
			}
		case CompressedLevel:
			li.PosIter = true
			for _, in := range l.inputs(g, k) {
				switch in.kind {
				case inPos:
					li.Pos = in.name
				case inIdx:
					li.Idx = in.name
				case inLen:
					li.Extent = in.name
				}
			}
			li.Search = k > 0 && li.Unique
		case SingletonLevel:
			li.PosIter, li.OnePerParent = true, true
			li.Idx = g.coordArray(m)
		}
		out[k] = li
	}
	return out, nil
}
