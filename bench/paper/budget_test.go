package paper

import (
	"math"
	"testing"

	"github.com/nablasd/nablasd/datasets"
)

// A figure's own measured rate is its estimates' rate; another figure's
// (of the same system and kernel) only until it has one: a tiny input,
// whose time is all overhead, must not price a large one of another
// figure thousands of times too high.
func TestRatesPerFigure(t *testing.T) {
	s := FullSettings()
	tiny := &Input{Name: "tiny", Rows: 256, Cols: 256, NNZ: 1, RowSq: 1}
	big := &Input{Name: "big", Rows: 1 << 16, Cols: 1 << 16, NNZ: 1 << 22, RowSq: 1 << 28}
	other := &Input{Name: "other", Rows: 1 << 16, Cols: 1 << 16, NNZ: 1 << 22, RowSq: 1 << 29}
	cell := func(fig string, in *Input) *Cell {
		return &Cell{Figure: fig, Panel: "p", X: in.Name, Kernel: "batax", Input: in, System: "hand"}
	}
	r := rates{}
	r.learn(cell("fig11", big), 2)      // 2 s on the big input of fig11
	r.learn(cell("fig12", tiny), 0.001) // 1 ms of overhead on a tiny one
	run, _ := r.estimate(cell("fig11", other), &s)
	if want := 4.0; math.Abs(run-want) > 0.01 {
		t.Errorf("fig11's estimate %g s, want %g (from fig11's own rate)", run, want)
	}
	// a figure without a rate of its own takes the last one measured
	run, _ = r.estimate(cell("fig13", tiny), &s)
	if want := 0.001; math.Abs(run-want) > 1e-4 {
		t.Errorf("fig13's estimate %g s, want %g (the last rate)", run, want)
	}
}

// PyTorch's dense vector kernels make dense vectors, not n × n matrices:
// their setup is linear in n (a 2¹⁸ VVD was once estimated at 137 s).
func TestTorchDenseVectorSetup(t *testing.T) {
	in := &Input{Name: "v", Vector: true, Rows: 1 << 18, Cols: 1, NNZ: 1 << 8}
	if got := setupTime("torch-dense", "vvd", in); got > 1 {
		t.Errorf("VVD's setup estimated at %g s", got)
	}
	m := &Input{Name: "m", Rows: 1 << 14, Cols: 1 << 14, NNZ: 1 << 20}
	if got := setupTime("torch-dense", "smvm", m); got < 0.5 {
		t.Errorf("SMVM's dense A (2^28 entries) estimated at %g s to set up", got)
	}
}

// ataBound bounds the entries of AᵀA from above, closely for a banded
// matrix (whose RowSq would bound them loosely: the budget would call the
// banded pdb1HYS's BATAx out of memory), and stays a bound for a matrix
// of random columns.
func TestATABound(t *testing.T) {
	for _, c := range []struct {
		spec  datasets.SynthSpec
		tight float64 // the bound over the exact count, at most
	}{
		{datasets.SynthSpec{Dims: []int{300, 300}, NNZ: 2000, Kind: datasets.Banded, Bandwidth: 4, Symmetric: true, Seed: 1}, 1.3},
		{datasets.SynthSpec{Dims: []int{300, 300}, NNZ: 2000, Seed: 2}, 10},
		{datasets.SynthSpec{Dims: []int{200, 300}, NNZ: 900, Kind: datasets.PowerLaw, Seed: 3}, 10},
	} {
		m, err := datasets.Generate(c.spec)
		if err != nil {
			t.Fatal(err)
		}
		in := &Input{}
		in.setStats(m)
		// the exact pattern of AᵀA: (j, k) for every row with entries at j and k
		rows := map[int][]int{}
		for e, i := range m.Idx[0] {
			rows[i] = append(rows[i], m.Idx[1][e])
		}
		pattern := map[[2]int]bool{}
		for _, cols := range rows {
			for _, j := range cols {
				for _, k := range cols {
					pattern[[2]int{j, k}] = true
				}
			}
		}
		exact := float64(len(pattern))
		if in.ATA < exact || in.ATA > c.tight*exact {
			t.Errorf("%+v: bound %g for %g entries of AᵀA (RowSq %g), want within %gx", c.spec, in.ATA, exact, in.RowSq, c.tight)
		}
	}
}
