package nablasd

import (
	"fmt"
	"io"
	"strconv"
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
//	table.parquet[:FORMAT][?OPTIONS]        a Parquet, Arrow IPC (.arrow) or
//	table.arrow[:FORMAT][?OPTIONS]          Arrow stream (.arrows) table: one
//	table.arrows[:FORMAT][?OPTIONS]         row per entry (doc/batch.md)
//
// OPTIONS name a table's columns and shape, e.g.
// ?row=src,col=dst,val=weight,shape=100x100 (datasets.ParseTableOptions).
// A Matrix Market file of one column is a vector (datasets.LoadMatrixMarket
// gives it as an n×1 matrix). The default format is dense for array files,
// coo for sparse vectors, csr for sparse matrices and csf above (a table's
// is recorded in it, else the same). A SuiteSparse matrix is looked for in
// the cache (datasets.DataDir), then in datasets.SharedDirs, else
// downloaded; a name outside the paper's Table 1 found locally needs no
// group. A table holding a single number is not a tensor: LoadValue
// reads it.
func Load(spec string, opts *LoadOptions) (*formats.Tensor, error) {
	v, err := loadSpec(spec, opts)
	if err != nil {
		return nil, err
	}
	t, ok := v.(*formats.Tensor)
	if !ok {
		return nil, fmt.Errorf("%s holds a number, not a tensor (LoadValue reads it)", spec)
	}
	return t, nil
}

// LoadValue reads an input's value as `--in NAME=VALUE` gives it: a number
// ("0.7"), or anything Load reads, a table of one number included. The
// value binds an input of Prepare (Inputs).
func LoadValue(spec string, opts *LoadOptions) (any, error) {
	if x, err := strconv.ParseFloat(spec, 64); err == nil {
		return x, nil
	}
	return loadSpec(spec, opts)
}

// loadSpec reads a spec of Load: a *formats.Tensor, or a float64 for a
// table of one number.
func loadSpec(spec string, opts *LoadOptions) (any, error) {
	if opts == nil {
		opts = &LoadOptions{}
	}
	if v, ok, err := loadTable(spec); ok {
		return v, err
	}
	src, fmtName := SplitFormat(spec)
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

// TableSpec is a table binding's value, FILE[:FORMAT][?OPTIONS] with FILE
// a .parquet, .arrow or .arrows file (ParseTableSpec).
type TableSpec struct {
	Path   string
	Format formats.Format // zero: the table's default
	Opts   datasets.TableOptions
}

// ParseTableSpec parses spec as a table's; ok is false when it does not
// name a table file.
func ParseTableSpec(spec string) (ts TableSpec, ok bool, err error) {
	left, opts := spec, ""
	if i := strings.LastIndexByte(spec, '?'); i >= 0 {
		left, opts = spec[:i], spec[i+1:]
	}
	src, fmtName := SplitFormat(left)
	if _, isTable := datasets.TableKindOf(src); !isTable {
		if i := strings.LastIndexByte(left, ':'); i >= 0 {
			if _, isTable := datasets.TableKindOf(left[:i]); isTable {
				_, err := formats.ByName(left[i+1:])
				return ts, true, err
			}
		}
		return ts, false, nil
	}
	ts.Path = src
	if fmtName != "" {
		if ts.Format, err = formats.ByName(fmtName); err != nil {
			return ts, true, err
		}
	}
	if ts.Opts, err = datasets.ParseTableOptions(opts); err != nil {
		return ts, true, err
	}
	return ts, true, nil
}

// loadTable reads a table spec whole: a tensor, or a number for a table of
// one number; ok is false when spec names no table file.
func loadTable(spec string) (v any, ok bool, err error) {
	ts, ok, err := ParseTableSpec(spec)
	if !ok || err != nil {
		return nil, ok, err
	}
	tt, err := datasets.ReadTable(ts.Path, ts.Opts, ts.Format)
	if err != nil {
		return nil, true, err
	}
	if tt.Tensor == nil {
		return tt.Scalar, true, nil
	}
	return tt.Tensor, true, nil
}

// SplitFormat splits SPEC[:FORMAT] when the part after the last colon is a
// format's name.
func SplitFormat(v string) (string, string) {
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
