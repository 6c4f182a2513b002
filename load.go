package nablasd

import (
	"io"
	"strings"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// LoadOptions configure Load.
type LoadOptions struct {
	// Progress, when set, receives the progress of a SuiteSparse download.
	Progress io.Writer
	// Offline forbids downloading a SuiteSparse matrix not found locally.
	Offline bool
}

// Load loads tensor data described by spec, with an optional storage
// format after a colon (dense, dense_col, coo, csr, csc, dcsr, csf), as
// `nablasd eval --in NAME=SPEC` does:
//
//	matrix.mtx[.gz][:FORMAT]                a Matrix Market file
//	suitesparse:NAME[:FORMAT]               a SuiteSparse matrix by name
//	synthetic:rows=1000,cols=1000,density=0.01,seed=1[:FORMAT]
//
// A Matrix Market file of one column is a vector (datasets.LoadMatrixMarket
// gives it as an n×1 matrix). The default format is dense for array files,
// coo for sparse vectors, csr for sparse matrices and csf above. A
// SuiteSparse matrix is looked for in the cache (datasets.DataDir), then
// in datasets.SharedDirs, else downloaded; a name outside the paper's
// Table 1 found locally needs no group.
func Load(spec string, opts *LoadOptions) (*formats.Tensor, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	src, fmtName := splitFormat(spec)
	var coords *datasets.Coords
	dense := false
	switch {
	case strings.HasPrefix(src, "suitesparse:"):
		lo := []datasets.LoadOption{datasets.WithExtraDirs(datasets.SharedDirs()...)}
		if opts.Progress != nil {
			lo = append(lo, datasets.WithProgress(opts.Progress))
		}
		if opts.Offline {
			lo = append(lo, datasets.Offline())
		}
		c, _, err := datasets.LoadSuiteSparse(strings.TrimPrefix(src, "suitesparse:"), lo...)
		if err != nil {
			return nil, err
		}
		coords = c
	case strings.HasPrefix(src, "synthetic:"):
		c, err := datasets.ParseSynthetic(strings.TrimPrefix(src, "synthetic:"))
		if err != nil {
			return nil, err
		}
		coords = c
	default:
		c, h, err := datasets.LoadMatrixMarket(src)
		if err != nil {
			return nil, err
		}
		coords, dense = c, h.Format == "array"
	}
	coords = oneColumnVector(coords)
	if fmtName == "" {
		switch {
		case dense:
			fmtName = "dense"
		case len(coords.Shape) == 1:
			fmtName = "coo"
		case len(coords.Shape) == 2:
			fmtName = "csr"
		default:
			fmtName = "csf"
		}
	}
	f, err := formats.ByName(fmtName)
	if err != nil {
		return nil, err
	}
	return formats.FromCoords(coords.Shape, coords.Idx, coords.Val, f)
}

// oneColumnVector makes the coordinates of an n×1 matrix a vector's.
func oneColumnVector(c *datasets.Coords) *datasets.Coords {
	if len(c.Shape) == 2 && c.Shape[1] == 1 {
		return &datasets.Coords{Shape: c.Shape[:1], Idx: c.Idx[:1], Val: c.Val}
	}
	return c
}

// splitFormat splits SPEC[:FORMAT] when the part after the last colon is a
// format's name.
func splitFormat(v string) (string, string) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return v, ""
	}
	if _, err := formats.ByName(v[i+1:]); err == nil {
		return v[:i], v[i+1:]
	}
	return v, ""
}

// FormatNames lists the storage formats Load and the CLI accept.
func FormatNames() []string {
	var names []string
	for _, f := range formats.All() {
		names = append(names, f.Name())
	}
	return names
}
