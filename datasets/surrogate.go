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

// BandedSurrogate is a banded stand-in for the Table 1 matrix called name
// whatever its kind, in the narrowest band that holds its entries: the
// same shape, entry counts and symmetry as Surrogate's, row i's entries
// within half-bandwidth columns of the diagonal, the half-bandwidth the
// smallest whose band has room for them (so the band is nearly full). It
// returns the half-bandwidth too. For pdb1HYS, whose Surrogate has
// Zipf-like rows with random columns (AᵀA of which is nearly dense),
// where the real matrix, a protein's, is banded. A scale in (0, 1)
// shrinks the rows and the entries alike (at least 16 rows), so the mean
// row length and the bandwidth stay (quick and test runs).
func BandedSurrogate(name string, scale float64, seed uint64) (*Coords, int, error) {
	m, err := LookupMatrix(name)
	if err != nil {
		return nil, 0, err
	}
	if m.Rows == 0 || m.Rows != m.Cols {
		return nil, 0, fmt.Errorf("banded surrogate: no counts known for a square %s", m.Path())
	}
	n, nnz, d := m.Rows, m.NNZ, m.Diagonal()
	if scale > 0 && scale < 1 {
		n = max(int(float64(n)*scale), 16)
		nnz = max(int(float64(nnz)*scale), n)
		d = min(n, int(float64(d)*scale))
	}
	rng := rand.New(rand.NewPCG(seed, pcgStream))
	rs := rowSpec{kind: Banded, rows: n, cols: n}
	if m.Symmetry == "symmetric" {
		if (nnz-d)%2 != 0 {
			nnz--
		}
		off := (nnz - d) / 2
		// the strict lower triangle within bw of the diagonal holds
		// bw*n - bw*(bw+1)/2 entries
		rs.bandwidth = smallest(n, func(bw int) bool { return bw*n-bw*(bw+1)/2 >= off })
		c, err := symmetricRows(rng, rs, off, d)
		return c, rs.bandwidth, err
	}
	// row i's window is the 2*bw+1 columns around i, cut at the edges
	rs.bandwidth = smallest(n, func(bw int) bool { return n*(2*bw+1)-bw*(bw+1) >= nnz })
	c, err := generalRows(rng, rs, nnz)
	return c, rs.bandwidth, err
}

// smallest returns the smallest bw in 1..n for which fits holds (fits
// is monotone), or n.
func smallest(n int, fits func(bw int) bool) int {
	lo, hi := 1, max(n, 1)
	for lo < hi {
		if mid := (lo + hi) / 2; fits(mid) {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
