package paper

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Settings size a run: which figures and systems, the inputs of each
// figure, and the budget. FullSettings is `make paper`, QuickSettings
// `make paper QUICK=1`; tests use smaller ones still.
type Settings struct {
	// Name says which preset the settings came from ("full", "quick",
	// "test"); a resumed CSV must have been written with the same.
	Name string
	// Figures and Systems select what runs (nil: all).
	Figures []string
	Systems []string
	// Table1Scale shrinks Table 1's surrogates (1: the paper's sizes);
	// Download lets Table 1's matrices be downloaded.
	Table1Scale float64
	Download    bool
	// Table1Surrogates uses surrogates even for the matrices found
	// locally (test-sized runs).
	Table1Surrogates bool
	// Fig. 12: the matrix kernels at MatrixSizes (two) by MatrixDensities.
	MatrixSizes     []int
	MatrixDensities []float64
	// Fig. 13: the matrix kernels at MatrixDimDensities (two) by MatrixDims.
	MatrixDims         []int
	MatrixDimDensities []float64
	// Fig. 14: the vector kernels at VectorSizes (two) by VectorDensities.
	VectorSizes     []int
	VectorDensities []float64
	// Fig. 15: the vector kernels at VectorDimDensities (two) by VectorDims.
	VectorDims         []int
	VectorDimDensities []float64
	// Fig. 16: BATAx at AblationSize by AblationDensities.
	AblationSize      int
	AblationDensities []float64
	// WorkloadInputs are the workloads' matrices (bench.LoadInput names).
	WorkloadInputs []string
	// Reps is the most timed runs of a cell after its first run;
	// MaxSeconds stops them once they took that long. A first run of
	// OnlySeconds or more is the cell's only run (0: MaxSeconds); one of
	// MaxSeconds or more, but under OnlySeconds, is followed by one timed
	// run, so that a cell's time is a warm run whenever the budget allows.
	Reps        int
	MaxSeconds  float64
	OnlySeconds float64
	// Budget is the most a cell may be estimated to take (setup and runs);
	// a running cell is killed at twice that. MemLimit is the most memory
	// a cell may be estimated to need, or hold.
	Budget   time.Duration
	MemLimit int64
	// Table1Budget is the budget of Fig. 11's cells, when larger (PyTorch's
	// dense Jacobian takes minutes on the smallest Table 1 matrix).
	Table1Budget time.Duration
	// Seed seeds the synthetic inputs.
	Seed uint64
}

// powers returns 2^from, 2^(from-1), ... 2^to as densities (from > to) or
// sizes.
func densities(from, to int) []float64 {
	var out []float64
	for e := from; e >= to; e-- {
		out = append(out, math.Ldexp(1, e))
	}
	return out
}

func sizes(from, to, step int) []int {
	var out []int
	for e := from; e <= to; e += step {
		out = append(out, 1<<e)
	}
	return out
}

// FullSettings are `make paper`'s: the paper's grid (densities 2⁻¹…2⁻¹⁰,
// sizes by powers of two), fit to 45 minutes on a 2-core machine by the
// budget.
func FullSettings() Settings {
	return Settings{Name: "full", Table1Scale: 1,
		MatrixSizes: []int{256, 2048}, MatrixDensities: densities(-1, -10),
		MatrixDims: sizes(8, 12, 1), MatrixDimDensities: []float64{1.0 / 4, 1.0 / 256},
		VectorSizes: []int{1 << 12, 1 << 18}, VectorDensities: densities(-1, -10),
		VectorDims: sizes(10, 20, 2), VectorDimDensities: []float64{1.0 / 4, 1.0 / 256},
		AblationSize: 1024, AblationDensities: densities(-1, -10),
		WorkloadInputs: []string{"e40r0000", "synthetic4M"},
		Reps:           5, MaxSeconds: 1, OnlySeconds: 10, Budget: 10 * time.Second, Table1Budget: 2 * time.Minute, MemLimit: 8 << 30, Seed: 1}
}

// QuickSettings are `make paper QUICK=1`'s: every figure on fewer and
// smaller inputs (Table 1's surrogates at a tenth of their size), a few
// seconds per cell.
func QuickSettings() Settings {
	return Settings{Name: "quick", Table1Scale: 0.1,
		MatrixSizes: []int{128, 512}, MatrixDensities: []float64{1.0 / 2, 1.0 / 16, 1.0 / 256},
		MatrixDims: []int{128, 512}, MatrixDimDensities: []float64{1.0 / 4, 1.0 / 256},
		VectorSizes: []int{1 << 10, 1 << 16}, VectorDensities: []float64{1.0 / 2, 1.0 / 16, 1.0 / 256},
		VectorDims: []int{1 << 10, 1 << 16}, VectorDimDensities: []float64{1.0 / 4, 1.0 / 256},
		AblationSize: 256, AblationDensities: []float64{1.0 / 2, 1.0 / 16, 1.0 / 256},
		WorkloadInputs: []string{"e40r0000"},
		Reps:           2, MaxSeconds: 0.5, OnlySeconds: 2, Budget: 2 * time.Second, MemLimit: 4 << 30, Seed: 1}
}

// TestSettings are a run of every figure and system on tiny inputs, in
// seconds: what the tests run.
func TestSettings() Settings {
	return Settings{Name: "test", Table1Scale: 0.004, Table1Surrogates: true,
		MatrixSizes: []int{16}, MatrixDensities: []float64{1.0 / 2},
		MatrixDims: []int{16}, MatrixDimDensities: []float64{1.0 / 4},
		VectorSizes: []int{64}, VectorDensities: []float64{1.0 / 2},
		VectorDims: []int{64}, VectorDimDensities: []float64{1.0 / 4},
		AblationSize: 32, AblationDensities: []float64{1.0 / 2},
		WorkloadInputs: []string{"synthetic-test"},
		Reps:           1, MaxSeconds: 0.05, Budget: 3 * time.Second, MemLimit: 1 << 30, Seed: 1}
}

// Figure IDs, in order. "ours" is not in the paper: SMMM with respect to a
// sparse B, and BATAx with pdb1HYS's banded surrogate (BandedPdb1HYS), over
// the Table 1 matrices. "memory" has no cells of its own: it draws the
// peak memory of fig11's.
var Figures = []string{"fig11", "fig12", "fig13", "fig14", "fig15", "fig16", "ours", "workloads", "memory"}

// A Cell is one measurement: a system computing one kernel's gradient over
// one input, drawn in one panel of one figure at one x position.
type Cell struct {
	Figure, Panel string
	// X labels the cell's group on the x axis; XOrder orders the groups.
	X      string
	XOrder float64
	Kernel string
	Input  *Input
	System string
	// Monotone: the cells of the cell's series (Series) come in
	// increasing work, so one that is over the budget makes every later
	// one so.
	Monotone bool
}

// Key identifies the cell in the CSV.
func (c *Cell) Key() string {
	return c.Figure + "|" + c.Panel + "|" + c.Kernel + "|" + c.X + "|" + c.System
}

// Series identifies the cell's line: its figure, panel, kernel and system.
func (c *Cell) Series() string { return c.Figure + "|" + c.Panel + "|" + c.Kernel + "|" + c.System }

// systemsOf lists the systems of a figure, less those not selected, in
// the order they run: the hand-written Go first, the reference of every
// other's checksum.
func (s *Settings) systemsOf(fig string) []string {
	var all []string
	switch fig {
	case "fig16":
		all = []string{"hand-reuse", "arr-none", "arr-norm", "arr-dps", "dict-none", "dict-norm", "dict-dps"}
	case "workloads":
		all = []string{"hand-reuse", "hand", "arr", "torch-sparse", "scipy"}
	case "ours":
		all = []string{"hand-reuse", "hand", "arr", "gen", "scipy"}
	default:
		all = []string{"hand-reuse", "hand", "arr", "dict", "gen", "torch-dense", "torch-sparse", "scipy"}
	}
	if len(s.Systems) == 0 {
		return all
	}
	var out []string
	for _, id := range all {
		if contains(s.Systems, id) {
			out = append(out, id)
		}
	}
	return out
}

func (s *Settings) wants(fig string) bool { return len(s.Figures) == 0 || contains(s.Figures, fig) }

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Grid lays out every cell of the selected figures, in the order they
// run: figure, panel, x (increasing work), kernel, system. table1 are
// Table 1's inputs (Table1).
func (s *Settings) Grid(table1 []*Input) []*Cell {
	var cells []*Cell
	add := func(fig, panel, x string, order float64, kernels []string, in *Input, monotone bool) {
		for _, k := range kernels {
			for _, sys := range s.systemsOf(fig) {
				cells = append(cells, &Cell{Figure: fig, Panel: panel, X: x, XOrder: order, Kernel: k, Input: in, System: sys, Monotone: monotone})
			}
		}
	}
	if s.wants("fig11") || s.wants("memory") {
		for i, in := range table1 {
			for _, k := range MatrixKernels {
				add("fig11", KernelLabel(k), in.Name, float64(i), []string{k}, in, false)
			}
		}
	}
	inputs := map[string]*Input{}
	matrix := func(n int, d float64) *Input {
		in := SyntheticMatrix(n, d, s.Seed)
		if old, ok := inputs[in.file]; ok {
			return old
		}
		inputs[in.file] = in
		return in
	}
	vector := func(n int, d float64) *Input {
		in := SyntheticVector(n, d, s.Seed)
		if old, ok := inputs[in.file]; ok {
			return old
		}
		inputs[in.file] = in
		return in
	}
	// sweeps by density run from the sparsest up, so work increases
	sparseFirst := func(ds []float64) []float64 {
		out := append([]float64(nil), ds...)
		sort.Float64s(out)
		return out
	}
	if s.wants("fig12") {
		for _, n := range s.MatrixSizes {
			for _, d := range sparseFirst(s.MatrixDensities) {
				for _, k := range MatrixKernels {
					add("fig12", fmt.Sprintf("%s n=%d", KernelLabel(k), n), densityLabel(d), math.Log2(d), []string{k}, matrix(n, d), true)
				}
			}
		}
	}
	if s.wants("fig13") {
		for _, d := range s.MatrixDimDensities {
			for _, n := range s.MatrixDims {
				for _, k := range MatrixKernels {
					add("fig13", fmt.Sprintf("%s d=%s", KernelLabel(k), densityLabel(d)), sizeLabel(n), float64(n), []string{k}, matrix(n, d), true)
				}
			}
		}
	}
	if s.wants("fig14") {
		for _, n := range s.VectorSizes {
			for _, d := range sparseFirst(s.VectorDensities) {
				for _, k := range VectorKernels {
					add("fig14", fmt.Sprintf("%s n=%s", KernelLabel(k), sizeLabel(n)), densityLabel(d), math.Log2(d), []string{k}, vector(n, d), true)
				}
			}
		}
	}
	if s.wants("fig15") {
		for _, d := range s.VectorDimDensities {
			for _, n := range s.VectorDims {
				for _, k := range VectorKernels {
					add("fig15", fmt.Sprintf("%s d=%s", KernelLabel(k), densityLabel(d)), sizeLabel(n), float64(n), []string{k}, vector(n, d), true)
				}
			}
		}
	}
	if s.wants("fig16") {
		for _, d := range sparseFirst(s.AblationDensities) {
			add("fig16", fmt.Sprintf("BATAx n=%d", s.AblationSize), densityLabel(d), math.Log2(d), []string{"batax"}, matrix(s.AblationSize, d), true)
		}
	}
	if s.wants("ours") {
		for i, in := range table1 {
			add("ours", KernelLabel("smmm-sparse"), in.Name, float64(i), []string{"smmm-sparse"}, in, false)
		}
		for i, in := range table1 {
			if in.Name == "pdb1HYS" {
				in = BandedPdb1HYS(s.Table1Scale, s.Seed)
			}
			add("ours", "BATAx (pdb1HYS banded)", in.Name, float64(i), []string{"batax"}, in, false)
		}
	}
	if s.wants("workloads") {
		for i, name := range s.WorkloadInputs {
			in := workloadInput(name)
			for _, w := range workloadNames() {
				add("workloads", name, w, float64(i), []string{w}, in, false)
			}
		}
	}
	return cells
}

// budgetOf is the cell's time budget.
func (s *Settings) budgetOf(c *Cell) time.Duration {
	if c.Figure == "fig11" && s.Table1Budget > s.Budget {
		return s.Table1Budget
	}
	return s.Budget
}
