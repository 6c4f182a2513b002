package lower

// DensifyLevels stores a hashed level under a sized dense level as a
// dense level where lowering found every key inserted there non-negative,
// bounded by parameters and computed from range loops' variables
// (Level.denseSize): a matrix a dense iteration builds at shifted keys,
// the gradient of a stencil, Ū(i ± 1)(j ± 1), whose keys are as many as
// the loops' iterations. It runs after ChooseDiagonal and ChooseAppended,
// which keep the levels they store their way (a diagonal or a
// Gustavson row is cheaper than a dense block); keys read from a sparse
// input's coordinates are never densified (their extents multiply to
// far more than the entries).
func DensifyLevels(p *Program) {
	for _, t := range p.Tensors {
		if t.Input {
			continue
		}
		for lv := 1; lv < len(t.Levels); lv++ {
			l, up := t.Levels[lv], t.Levels[lv-1]
			if l.Storage == Hash && l.denseSize != nil && up.Storage == Dense && up.Size != nil {
				l.Storage, l.Size = Dense, Canon(l.denseSize)
			}
		}
	}
}
