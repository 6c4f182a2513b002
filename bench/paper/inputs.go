package paper

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/nablasd/nablasd/datasets"
)

// An Input is the sparse matrix or vector of a cell, as a Matrix Market
// file every runner reads: a real SuiteSparse file, or one this package
// writes into the work folder (a surrogate of a Table 1 matrix, a
// synthetic matrix or vector).
type Input struct {
	// Name identifies it in the CSV ("bcspwr10", "n=1024,d=2^-3").
	Name string
	// Source is "real", "surrogate", "surrogate (scaled 1/10)" or
	// "synthetic".
	Source string
	// Vector is true for a sparse vector (Rows is its length, Cols 1).
	Vector     bool
	Rows, Cols int
	// NNZ is the number of stored entries (symmetric files expanded);
	// RowSq the sum over rows of the squared row lengths (the work of
	// βAᵀA by rows). Both are known once Prepare has run.
	NNZ   int
	RowSq float64
	// ATA bounds the entries of AᵀA (BATAx's result): over A's columns
	// j, the least of n, the entries of the rows A has in column j and
	// the span of their columns (a banded matrix's AᵀA is banded too);
	// 0 when unknown (a stats file of an older run).
	ATA float64
	// Path is the Matrix Market file (set by Prepare for generated ones).
	Path string
	// gen generates the input (nil for a real file); file is its name in
	// the work folder.
	gen  func() (*datasets.Coords, error)
	file string
	// real is the name the real file was found by
	real string
	// missing says why an input that must be real was not found
	missing string
	// Extra are further files of the input (the workloads' dense
	// inputs), written by extra when Prepare makes the input
	Extra map[string]string
	extra func(in *Input, c *datasets.Coords, dir string) (map[string]string, error)
}

// Density is the fraction of positions stored.
func (in *Input) Density() float64 {
	return float64(in.NNZ) / (float64(in.Rows) * float64(in.Cols))
}

// N is the length of the dense inputs over it: the matrix's columns or the
// vector's length.
func (in *Input) N() int {
	if in.Vector {
		return in.Rows
	}
	return in.Cols
}

// inputStats is what Prepare records beside a generated file, so that a
// resumed run need not generate it again.
type inputStats struct {
	Rows, Cols, NNZ int
	RowSq           float64
	ATA             float64
}

// Prepare makes the input's file (in dir for generated ones) and its
// counts. A generated file already there with its counts beside it is
// kept.
func (in *Input) Prepare(dir string) error {
	if in.missing != "" {
		return fmt.Errorf("input %s: %s", in.Name, in.missing)
	}
	if in.gen == nil {
		if in.NNZ > 0 && (in.extra == nil || in.Extra != nil) {
			return nil
		}
		c, _, err := datasets.LoadMatrixMarket(in.Path)
		if err != nil {
			return err
		}
		in.setStats(c)
		return in.writeExtra(c, dir)
	}
	if in.Path != "" {
		return nil
	}
	path := filepath.Join(dir, in.file)
	side := path + ".json"
	if b, err := os.ReadFile(side); err == nil {
		var st inputStats
		if json.Unmarshal(b, &st) == nil && st.NNZ > 0 {
			if _, err := os.Stat(path); err == nil {
				in.Path, in.Rows, in.Cols, in.NNZ, in.RowSq, in.ATA = path, st.Rows, st.Cols, st.NNZ, st.RowSq, st.ATA
				if in.extra == nil {
					return nil
				}
				c, _, err := datasets.LoadMatrixMarket(path)
				if err != nil {
					return err
				}
				return in.writeExtra(c, dir)
			}
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	c, err := in.gen()
	if err != nil {
		return fmt.Errorf("input %s: %v", in.Name, err)
	}
	if err := datasets.SaveMatrixMarket(path, c, nil); err != nil {
		return err
	}
	in.setStats(c)
	in.Path = path
	if err := in.writeExtra(c, dir); err != nil {
		return err
	}
	b, _ := json.Marshal(inputStats{in.Rows, in.Cols, in.NNZ, in.RowSq, in.ATA})
	return os.WriteFile(side, b, 0o644)
}

func (in *Input) writeExtra(c *datasets.Coords, dir string) error {
	if in.extra == nil {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	files, err := in.extra(in, c, dir)
	if err != nil {
		return fmt.Errorf("input %s: %v", in.Name, err)
	}
	in.Extra = files
	return nil
}

// Release removes a generated input's file (its cells are done).
func (in *Input) Release() {
	if in.gen == nil || in.Path == "" {
		return
	}
	os.Remove(in.Path)
	os.Remove(in.Path + ".json")
	for _, p := range in.Extra {
		os.Remove(p)
	}
	in.Path, in.Extra = "", nil
}

func (in *Input) setStats(c *datasets.Coords) {
	in.Rows, in.Cols, in.NNZ = c.Shape[0], 1, c.NNZ()
	in.RowSq = float64(c.NNZ())
	if c.Order() == 2 {
		in.Cols = c.Shape[1]
		counts := make([]int, c.Shape[0])
		for _, i := range c.Idx[0] {
			counts[i]++
		}
		in.RowSq = 0
		for _, k := range counts {
			in.RowSq += float64(k) * float64(k)
		}
		in.ATA = ataBound(c, counts)
	}
}

// ataBound is Input.ATA of the matrix c whose rows have counts entries.
func ataBound(c *datasets.Coords, counts []int) float64 {
	rows, cols := c.Shape[0], c.Shape[1]
	rlo, rhi := make([]int, rows), make([]int, rows)
	for i := range rlo {
		rlo[i], rhi[i] = cols, -1
	}
	for e, i := range c.Idx[0] {
		j := c.Idx[1][e]
		rlo[i], rhi[i] = min(rlo[i], j), max(rhi[i], j)
	}
	clo, chi, sum := make([]int, cols), make([]int, cols), make([]float64, cols)
	for j := range clo {
		clo[j], chi[j] = cols, -1
	}
	for e, i := range c.Idx[0] {
		j := c.Idx[1][e]
		clo[j], chi[j] = min(clo[j], rlo[i]), max(chi[j], rhi[i])
		sum[j] += float64(counts[i])
	}
	bound := 0.0
	for j := range cols {
		if chi[j] >= clo[j] {
			bound += math.Min(math.Min(float64(cols), sum[j]), float64(chi[j]-clo[j]+1))
		}
	}
	return bound
}

// ataEntries is Input.ATA, or where it is unknown the weaker bound of
// RowSq and n².
func (in *Input) ataEntries() float64 {
	if in.ATA > 0 {
		return in.ATA
	}
	n := float64(in.N())
	return math.Min(in.RowSq, n*n)
}

// SyntheticMatrix is an n × n matrix with uniformly placed entries of the
// given density (datasets.Generate, kind uniform).
func SyntheticMatrix(n int, density float64, seed uint64) *Input {
	name := fmt.Sprintf("n=%d,d=%s", n, densityLabel(density))
	spec := datasets.SynthSpec{Dims: []int{n, n}, Density: density, Seed: seed}
	return &Input{Name: name, Source: "synthetic", Rows: n, Cols: n,
		gen:  func() (*datasets.Coords, error) { return datasets.Generate(spec) },
		file: fmt.Sprintf("matrix_n%d_d%g_s%d.mtx", n, density, seed)}
}

// SyntheticVector is a sparse vector of length n with uniformly placed
// entries of the given density.
func SyntheticVector(n int, density float64, seed uint64) *Input {
	name := fmt.Sprintf("n=%d,d=%s", n, densityLabel(density))
	spec := datasets.SynthSpec{Dims: []int{n}, Density: density, Seed: seed}
	return &Input{Name: name, Source: "synthetic", Vector: true, Rows: n, Cols: 1,
		gen:  func() (*datasets.Coords, error) { return datasets.Generate(spec) },
		file: fmt.Sprintf("vector_n%d_d%g_s%d.mtx", n, density, seed)}
}

// densityLabel prints a density as a power of two when it is one (2^-3).
func densityLabel(d float64) string {
	e := math.Log2(d)
	if e == math.Round(e) {
		return fmt.Sprintf("2^%d", int(e))
	}
	return fmt.Sprintf("%.3g", d)
}

// sizeLabel prints a dimension as a power of two when it is one.
func sizeLabel(n int) string {
	e := math.Log2(float64(n))
	if e == math.Round(e) && n >= 1024 {
		return fmt.Sprintf("2^%d", int(e))
	}
	return fmt.Sprint(n)
}
