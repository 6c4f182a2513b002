package datasets

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
)

// SynthSpec describes a synthetic tensor for Generate.
type SynthSpec struct {
	Dims      []int   // the shape: 1 (vector), 2 (matrix) or 3 modes
	Density   float64 // fraction of positions stored: nnz = round(Density * size)
	NNZ       int     // exact number of stored entries; used instead of Density when > 0
	Kind      string  // "uniform" (the default), "banded" or "powerlaw"
	Symmetric bool    // banded and powerlaw square matrices: mirror the lower triangle
	Bandwidth int     // banded: half-width of the band in columns; 0 chooses one
	Alpha     float64 // powerlaw: exponent of the Zipf-like row lengths; 0 means 1
	Seed      uint64  // seed of the PCG generator
}

// Kinds of synthetic tensors.
const (
	// Uniform stores positions drawn uniformly from the whole tensor.
	Uniform = "uniform"
	// Banded stores positions near the diagonal, like finite-element
	// matrices: row i's entries lie within Bandwidth columns of column
	// i*cols/rows. For order 3 the last two modes form the columns.
	Banded = "banded"
	// PowerLaw gives rows Zipf-distributed lengths (the rows ranked in a
	// random order), like graph adjacency matrices; columns are uniform.
	PowerLaw = "powerlaw"
)

// pcgStream is the PCG stream constant of every generator of the package.
const pcgStream = 0x6e61626c61736421 // "nablasd!"

// Generate returns the synthetic tensor s describes. Entries are sorted
// row-major with no coordinate twice, their count is exactly the requested
// one, and values are uniform in [-1, 1) (diagonal values of symmetric
// matrices in [1, 2)). The same spec always gives the same tensor. Memory is
// proportional to the number of entries, never to the dense size.
func Generate(s SynthSpec) (*Coords, error) {
	if len(s.Dims) < 1 || len(s.Dims) > 3 {
		return nil, fmt.Errorf("synthetic: %d modes (want 1, 2 or 3)", len(s.Dims))
	}
	size := uint64(1)
	for _, d := range s.Dims {
		if d < 0 || d > MaxDim {
			return nil, fmt.Errorf("synthetic: dimension %d out of range 0..%d", d, MaxDim)
		}
		hi, lo := bits.Mul64(size, uint64(d))
		if hi != 0 || lo > 1<<62 {
			return nil, fmt.Errorf("synthetic: shape %v has too many positions", s.Dims)
		}
		size = lo
	}
	nnz := s.NNZ
	if nnz <= 0 {
		if !(s.Density >= 0 && s.Density <= 1) {
			return nil, fmt.Errorf("synthetic: density %v out of range [0, 1]", s.Density)
		}
		nnz = int(math.Round(s.Density * float64(size)))
		nnz = int(min(uint64(nnz), size))
	}
	if uint64(nnz) > size {
		return nil, fmt.Errorf("synthetic: %d entries do not fit in shape %v", nnz, s.Dims)
	}
	if nnz > MaxArrayEntries {
		return nil, fmt.Errorf("synthetic: %d entries exceed the limit %d", nnz, MaxArrayEntries)
	}
	rng := rand.New(rand.NewPCG(s.Seed, pcgStream))
	kind := s.Kind
	if kind == "" {
		kind = Uniform
	}
	switch kind {
	case Uniform, Banded, PowerLaw:
	default:
		return nil, fmt.Errorf("synthetic: unknown kind %q (want uniform, banded or powerlaw)", kind)
	}
	if s.Symmetric && (len(s.Dims) != 2 || s.Dims[0] != s.Dims[1]) {
		return nil, fmt.Errorf("synthetic: symmetric needs a square matrix, got shape %v", s.Dims)
	}
	if kind == Uniform && !s.Symmetric {
		return uniform(rng, s.Dims, nnz, size), nil
	}
	if len(s.Dims) == 1 {
		return nil, fmt.Errorf("synthetic: kind %s needs a matrix or an order-3 tensor", kind)
	}
	rows, cols := s.Dims[0], int(size)/max(s.Dims[0], 1)
	if s.Dims[0] == 0 {
		cols = 0
	}
	rs := rowSpec{kind: kind, rows: rows, cols: cols, bandwidth: s.Bandwidth, alpha: s.Alpha}
	var c *Coords
	var err error
	if s.Symmetric {
		n := rows
		d := min(n, nnz)
		if (nnz-d)%2 != 0 {
			d--
		}
		c, err = symmetricRows(rng, rs, (nnz-d)/2, d)
	} else {
		c, err = generalRows(rng, rs, nnz)
	}
	if err != nil {
		return nil, err
	}
	if len(s.Dims) == 3 {
		unflatten(c, s.Dims)
	}
	return c, nil
}

// uniform draws nnz distinct positions of the whole tensor.
func uniform(rng *rand.Rand, dims []int, nnz int, size uint64) *Coords {
	lin := sampleSorted(rng, nnz, size)
	c := &Coords{Shape: append([]int(nil), dims...), Idx: make([][]int, len(dims)), Val: make([]float64, nnz)}
	for m := range dims {
		c.Idx[m] = make([]int, nnz)
	}
	for e, x := range lin {
		for m := len(dims) - 1; m >= 0; m-- {
			d := uint64(dims[m])
			c.Idx[m][e] = int(x % d)
			x /= d
		}
		c.Val[e] = 2*rng.Float64() - 1
	}
	return c
}

// unflatten splits the column index of c into the last two modes of dims.
func unflatten(c *Coords, dims []int) {
	cols := c.Idx[1]
	k := make([]int, len(cols))
	for e, x := range cols {
		cols[e], k[e] = x/dims[2], x%dims[2]
	}
	c.Shape = append([]int(nil), dims...)
	c.Idx = append(c.Idx, k)
}
