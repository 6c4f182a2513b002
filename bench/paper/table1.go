package paper

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/datasets"
)

// Table1 returns the inputs of the paper's Table 1 (datasets.TableOne):
// each the real matrix where a local copy is found ($NABLASD_DATA, the
// cache, the shared datasets folder; downloaded first when download is
// set), otherwise a surrogate of the same shape, entry count, symmetry and
// kind of row-length distribution (datasets.Surrogate, whose counts are
// the paper's Table 1 and the collection's published statistics, with
// their source in datasets.Matrix.Source). A scale below 1 shrinks the
// surrogates (rows and entries scaled, so the mean row length stays) for
// quick and test runs; it is part of their Source ("surrogate (scaled
// 1/10)"). surrogatesOnly uses surrogates even where the real matrix is
// found (test-sized runs). notes says, per matrix, where it came from.
func Table1(scale float64, download, surrogatesOnly bool, seed uint64) (inputs []*Input, notes []string) {
	for _, m := range datasets.TableOne() {
		if surrogatesOnly {
			in := surrogate(m, scale, seed)
			inputs = append(inputs, in)
			notes = append(notes, fmt.Sprintf("%s: %s", m.Name, in.Source))
			continue
		}
		opts := []datasets.LoadOption{datasets.WithExtraDirs(datasets.SharedDirs()...)}
		if !download {
			opts = append(opts, datasets.Offline())
		}
		path, err := datasets.FetchSuiteSparse(m.Name, opts...)
		if err == nil {
			inputs = append(inputs, &Input{Name: m.Name, Source: "real", Rows: m.Rows, Cols: m.Cols, Path: path, real: m.Name})
			notes = append(notes, fmt.Sprintf("%s: %s", m.Name, path))
			continue
		}
		in := surrogate(m, scale, seed)
		inputs = append(inputs, in)
		why := err.Error()
		if i := strings.Index(why, ": no "); i >= 0 {
			why = why[i+2:]
		}
		notes = append(notes, fmt.Sprintf("%s: %s (%s)", m.Name, in.Source, why))
	}
	return inputs, notes
}

// BandedPdb1HYS is the Input of pdb1HYS's banded surrogate
// (datasets.BandedSurrogate: the real matrix's entries in the narrowest
// band that holds them; its Surrogate's random columns make AᵀA nearly
// dense where the real, banded matrix does not), for the "ours" figure's
// BATAx. A scale below 1 shrinks it as Table1 shrinks the surrogates.
func BandedPdb1HYS(scale float64, seed uint64) *Input {
	const name = "pdb1HYS"
	m, _ := datasets.LookupMatrix(name)
	if scale <= 0 || scale >= 1 {
		scale = 1
	}
	rows := max(int(float64(m.Rows)*scale), 16)
	source := "surrogate (banded)"
	if scale < 1 {
		source = fmt.Sprintf("surrogate (banded, scaled 1/%.3g)", 1/scale)
	}
	return &Input{Name: name, Source: source, Rows: rows, Cols: rows,
		gen: func() (*datasets.Coords, error) {
			c, _, err := datasets.BandedSurrogate(name, scale, seed)
			return c, err
		},
		file: fmt.Sprintf("banded_%s_x%g_s%d.mtx", name, scale, seed)}
}

// surrogate is the Input of a Table 1 matrix's surrogate.
func surrogate(m datasets.Matrix, scale float64, seed uint64) *Input {
	if scale <= 0 || scale >= 1 {
		return &Input{Name: m.Name, Source: "surrogate", Rows: m.Rows, Cols: m.Cols,
			gen:  func() (*datasets.Coords, error) { return datasets.Surrogate(m.Name, seed) },
			file: fmt.Sprintf("surrogate_%s_s%d.mtx", m.Name, seed)}
	}
	rows := max(int(float64(m.Rows)*scale), 16)
	nnz := max(int(float64(m.NNZ)*scale), rows)
	// the kinds of datasets.Surrogate: Zipf-like rows for the graphs,
	// banded for the finite-element and fluid-dynamics matrices
	spec := datasets.SynthSpec{Dims: []int{rows, rows}, NNZ: nnz, Kind: datasets.Banded,
		Symmetric: m.Symmetry == "symmetric", Seed: seed}
	switch m.Name {
	case "bcspwr10", "nopoly", "pdb1HYS":
		spec.Kind, spec.Alpha = datasets.PowerLaw, 0.8
	}
	return &Input{Name: m.Name, Source: fmt.Sprintf("surrogate (scaled 1/%.3g)", 1/scale), Rows: rows, Cols: rows,
		gen:  func() (*datasets.Coords, error) { return datasets.Generate(spec) },
		file: fmt.Sprintf("surrogate_%s_x%g_s%d.mtx", m.Name, scale, seed)}
}
