package datasets

import (
	"fmt"
	"math/rand/v2"
)

// Surrogate returns a synthetic stand-in for the Table 1 matrix called name,
// for when the real one cannot be had: the same shape, stored and expanded
// entry counts and symmetry (so the same number of diagonal entries), with a
// banded structure for the finite-element and fluid-dynamics matrices and
// Zipf-like row lengths for the graphs. Entries are sorted row-major and
// symmetric surrogates are exactly symmetric. Values are random, so a
// surrogate reproduces the shape of the work on a matrix, not its numbers.
func Surrogate(name string, seed uint64) (*Coords, error) {
	m, err := LookupMatrix(name)
	if err != nil {
		return nil, err
	}
	if m.Rows == 0 {
		return nil, fmt.Errorf("surrogate: no counts known for %s", m.Path())
	}
	kind, alpha := Banded, 0.0
	switch m.Name {
	case "bcspwr10", "nopoly", "pdb1HYS":
		kind, alpha = PowerLaw, 0.8
	}
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	rs := rowSpec{kind: kind, rows: m.Rows, cols: m.Cols, alpha: alpha}
	if m.Symmetry == "symmetric" {
		d := m.Diagonal()
		return symmetricRows(rng, rs, (m.NNZ-d)/2, d)
	}
	return generalRows(rng, rs, m.NNZ)
}
