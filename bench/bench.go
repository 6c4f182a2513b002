// Package bench reproduces the gradient kernels of the ∇SD paper's
// section 7 (BATAx, SMMM, SMVM, VVA, VVD, VSM) over SuiteSparse and
// synthetic matrices, compiled by exec, next to hand-written Go loops
// computing the same closed-form gradients (the practical lower bound).
//
// The compiled programs are what the real pipeline produces (Pipeline:
// the root package's Prepare and Plan, differentiating and optimizing
// over the inputs' storage definitions, as cmd/nablasd does).
// kernels/*.sdql are hand-written physical programs, kept only as extra
// test programs for exec.
package bench

import (
	"embed"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

//go:embed kernels/*.sdql
var kernelFiles embed.FS

// Program returns the parsed program of kernels/NAME.sdql.
func Program(name string) (sdql.Expr, error) {
	src, err := kernelFiles.ReadFile("kernels/" + name + ".sdql")
	if err != nil {
		return nil, err
	}
	return sdql.Parse(name+".sdql", string(src))
}

// Kernels lists the six gradient kernels with the format their inputs are
// bound in for benchmarks (matrices csr, vectors dense).
var Kernels = []struct{ Name, Format string }{
	{"batax", "csr"}, {"smmm", "csr"}, {"smvm", "csr"},
	{"vva", "dense"}, {"vvd", "dense"}, {"vsm", "dense"},
}

// Inputs are the benchmark inputs: two SuiteSparse matrices of Table 1
// and a synthetic 100,000 x 100,000 matrix with 1,000,000 entries.
var Inputs = []string{"bcspwr10", "nopoly", "synthetic"}

// SyntheticSpecs are the synthetic inputs by name (datasets.ParseSynthetic
// specs): the kernels' 100,000 × 100,000 matrix with 1,000,000 entries and
// the workloads' 200,000 × 200,000 one with 4,000,000.
var SyntheticSpecs = map[string]string{
	"synthetic":   "rows=100000,cols=100000,nnz=1000000,seed=1",
	"synthetic4M": "rows=200000,cols=200000,density=0.0001,seed=1",
	// the 16K² matrix with 2M entries (density 2⁻⁷), whose AᵀA
	// is dense: the large input of the threads' measure
	"synthetic16K": "rows=16384,cols=16384,density=0.0078125,seed=1",
}

// LoadInput loads a named input matrix: a name of SyntheticSpecs,
// surrogate:NAME for the surrogate of a Table 1 matrix (datasets.Surrogate,
// seed 1: the large ones cannot be had here), banded:NAME for its banded
// surrogate (datasets.BandedSurrogate, full size, seed 1: pdb1HYS's), else a SuiteSparse matrix in
// datasets.SharedDirs ($NABLASD_SHARED, else shared/ beside the working
// directory, its parents, the module or the executable); c is nil (with
// the reason) when its file is absent.
func LoadInput(name string) (c *datasets.Coords, why string, err error) {
	if spec, ok := SyntheticSpecs[name]; ok {
		c, err := datasets.ParseSynthetic(spec)
		return c, "", err
	}
	if m, ok := strings.CutPrefix(name, "surrogate:"); ok {
		c, err := datasets.Surrogate(m, 1)
		return c, "", err
	}
	if m, ok := strings.CutPrefix(name, "banded:"); ok {
		c, _, err := datasets.BandedSurrogate(m, 1, 1)
		return c, "", err
	}
	var looked []string
	for _, dir := range datasets.SharedDirs() {
		path := filepath.Join(dir, name+".mtx.gz")
		if _, err := os.Stat(path); err != nil {
			looked = append(looked, path)
			continue
		}
		c, _, err = datasets.LoadMatrixMarket(path)
		return c, "", err
	}
	return nil, fmt.Sprintf("%s absent (looked at %v)", name, looked), nil
}

// Case is one kernel over one input: the compiled program's bindings and
// the hand-written loop over the same slices.
type Case struct {
	Kernel, Format, Input string
	// Variant is the spelled variant the case runs (nil: the original).
	Variant *Variant
	// Inputs are the kernel's inputs (tensors and scalars) as bound for
	// the pipeline.
	Inputs   nablasd.Inputs
	Prog     sdql.Expr
	Bindings map[string]sdql.Value
	// formats are the storage of the tensor inputs (exec.Options.Formats)
	formats map[string]lower.Format
	// Shape is the result's known extents (exec.Options.ResultShape).
	Shape []int
	// completedOn is the input the gradient is given on the stored
	// positions of (exec.Options.CompletedOn), as the root package
	// completes it; "" when that is not a tensor bound in a format.
	completedOn string
	// equalModes are the modes the shape check found of equal extents
	// (Plan.EqualModes), lowered with as the root package lowers: without
	// them the lowering would not know, say, that SMMM's column sums of A
	// have B's row count.
	equalModes [][]lower.Mode
	// Hand runs the hand-written loop (into buffers it reuses).
	Hand func()
	// HandValue returns the hand-written result as an sdql value.
	HandValue func() sdql.Value
	// Fuse is the pipeline's result (its stages, for printing).
	Fuse *fuse.Result
	// InputBytes and HandOutBytes size the inputs and the hand-written
	// output, for the peak-memory comparison.
	InputBytes, HandOutBytes int64
	// NewHand allocates a fresh set of the hand-written loop's buffers
	// (output and workspace, and what the loop derives from the inputs
	// before it runs: BATAx's CSC copy of A, as the kernels' first run
	// transposes A) and returns a run over them: Hand's buffers
	// are allocated by NewCase, so measuring the hand-written loop's
	// memory needs its allocation and first run (see PeakRSS).
	NewHand func() (run func())
	// HandThreads, for a kernel whose hand-written loop has a form on
	// several goroutines (hand_threads.go), returns a run of it on t
	// goroutines into buffers of its own and the value of its last run;
	// nil otherwise.
	HandThreads func(t int) (run func(), value func() sdql.Value)
}

// NewCase builds the case of a kernel over a matrix given as coordinates:
// the kernel's program is what the real pipeline (Pipeline) produces for
// the inputs bound in their formats. Matrices are bound in CSR; vectors in
// format (dense, or coo for V2 of vvd).
func NewCase(kernel, format, input string, m *datasets.Coords) (*Case, error) {
	return NewVariantCase(kernel, format, input, m, nil)
}

// NewVariantCase is NewCase of a spelled variant of the kernel (v nil: the
// original). A variant of the logical kernel (OfKernel) runs through the
// pipeline like the original; a variant of a hand-written physical program
// of kernels/ (OfPhysical, named KERNEL_FORMAT) is the program that runs,
// over the same bindings (its original is OriginalCase's).
func NewVariantCase(kernel, format, input string, m *datasets.Coords, v *Variant) (*Case, error) {
	cs := &Case{Kernel: kernel, Format: format, Input: input, Variant: v}
	csr, err := formats.FromCoords(m.Shape, m.Idx, m.Val, formats.CSR)
	if err != nil {
		return nil, err
	}
	tensors := map[string]*formats.Tensor{}
	scalars := map[string]float64{}
	bind := func(t *formats.Tensor, name string) {
		tensors[name] = t
		cs.InputBytes += tensorBytes(t)
	}
	vec := func(vals []float64, f formats.Format) (*formats.Tensor, error) {
		idx := make([]int, len(vals))
		for i := range idx {
			idx[i] = i
		}
		return formats.FromCoords([]int{len(vals)}, [][]int{idx}, vals, f)
	}
	vecFormat := formats.Dense
	if format != "csr" && format != "dense" {
		if vecFormat, err = formats.ByName(format); err != nil {
			return nil, err
		}
	}
	ones := func(n int) (*formats.Tensor, error) {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		return vec(x, formats.Dense)
	}
	rows, cols := m.Shape[0], m.Shape[1]
	pos, idx, val := csr.Pos[1], csr.Idx[1], csr.Val
	switch kernel {
	case "smvm":
		bind(csr, "A")
		x, err := ones(cols)
		if err != nil {
			return nil, err
		}
		bind(x, "x")
		cs.Shape = []int{cols}
		g := make([]float64, cols)
		cs.Hand = func() { handSMVM(idx, val, g) }
		cs.NewHand = func() func() {
			g := make([]float64, cols)
			return func() { handSMVM(idx, val, g) }
		}
		cs.HandValue = func() sdql.Value { return vecValue(g) }
		cs.HandThreads = func(t int) (func(), func() sdql.Value) {
			g, run := make([]float64, cols), handSMVMThreads(t, idx, val, cols)
			return func() { run(g) }, func() sdql.Value { return vecValue(g) }
		}
		cs.HandOutBytes = int64(8 * cols)
	case "batax":
		bind(csr, "A")
		x, err := ones(cols)
		if err != nil {
			return nil, err
		}
		bind(x, "x")
		scalars["beta"] = 0.7
		cs.Shape = []int{cols}
		csc, err := formats.Convert(csr, formats.CSC)
		if err != nil {
			return nil, err
		}
		h := newGustavson(cols)
		cs.Hand = func() { h.run(0.7, csc.Pos[1], csc.Idx[1], csc.Val, pos, idx, val) }
		// NewHand converts A to CSC itself, as the kernels transpose A
		// in their first run: the peak memory of a first run counts the
		// hand-written loop's copy of A's columns as it counts the
		// kernels' transposition (a reused run has either ready)
		cs.NewHand = func() func() {
			csc, err := formats.Convert(csr, formats.CSC)
			if err != nil {
				panic(err) // converted once above
			}
			h := newGustavson(cols)
			return func() { h.run(0.7, csc.Pos[1], csc.Idx[1], csc.Val, pos, idx, val) }
		}
		cs.HandValue = h.value
		cs.Hand()
		cs.HandOutBytes = int64(8*(cols+1) + 16*len(h.val))
	case "smmm":
		if rows != cols {
			return nil, fmt.Errorf("bench: smmm multiplies the matrix by itself: want a square matrix, have %dx%d", rows, cols)
		}
		bind(csr, "A")
		bind(csr, "B")
		s := make([]float64, cols)
		out := make([]float64, len(val))
		cs.Hand = func() { handSMMM(idx, val, pos, s, out) }
		cs.NewHand = func() func() {
			s, out := make([]float64, cols), make([]float64, len(val))
			return func() { handSMMM(idx, val, pos, s, out) }
		}
		cs.HandValue = func() sdql.Value { return csrValue(pos, idx, out) }
		cs.HandThreads = func(t int) (func(), func() sdql.Value) {
			s, out, run := make([]float64, cols), make([]float64, len(val)), handSMMMThreads(t, idx, val, pos, cols)
			return func() { run(s, out) }, func() sdql.Value { return csrValue(pos, idx, out) }
		}
		cs.HandOutBytes = int64(8 * len(out))
	case "vva", "vvd", "vsm":
		v1, err := vec(val, formats.Dense)
		if err != nil {
			return nil, err
		}
		rev := make([]float64, len(val))
		for i, x := range val {
			rev[len(val)-1-i] = x
		}
		v2, err := vec(rev, vecFormat)
		if err != nil {
			return nil, err
		}
		n := len(val)
		out := make([]float64, n)
		cs.HandOutBytes = int64(8 * n)
		cs.Shape = []int{n}
		switch kernel {
		case "vva":
			bind(v1, "V1")
			bind(v2, "V2")
			cs.Hand = func() { handVVA(out) }
			cs.NewHand = func() func() {
				out := make([]float64, n)
				return func() { handVVA(out) }
			}
			cs.HandValue = func() sdql.Value { return diagValue(out) }
			cs.HandThreads = func(t int) (func(), func() sdql.Value) {
				out := make([]float64, n)
				return func() { splitRange(t, n, func(lo, hi int) { handVVA(out[lo:hi]) }) }, func() sdql.Value { return diagValue(out) }
			}
		case "vvd":
			bind(v1, "V1")
			bind(v2, "V2")
			cs.Hand = func() { copy(out, v2.Val) }
			cs.NewHand = func() func() {
				out := make([]float64, n)
				return func() { copy(out, v2.Val) }
			}
			cs.HandValue = func() sdql.Value { return vecValue(out) }
			cs.HandThreads = func(t int) (func(), func() sdql.Value) {
				out := make([]float64, n)
				return func() { splitRange(t, n, func(lo, hi int) { copy(out[lo:hi], v2.Val[lo:hi]) }) }, func() sdql.Value { return vecValue(out) }
			}
		case "vsm":
			bind(v1, "V1")
			scalars["s"] = 1.5
			cs.Hand = func() { handVSM(1.5, v1.Val, out) }
			cs.NewHand = func() func() {
				out := make([]float64, n)
				return func() { handVSM(1.5, v1.Val, out) }
			}
			cs.HandValue = func() sdql.Value { return vecValue(out) }
			cs.HandThreads = func(t int) (func(), func() sdql.Value) {
				out := make([]float64, n)
				return func() { splitRange(t, n, func(lo, hi int) { handVSM(1.5, v1.Val[lo:hi], out[lo:hi]) }) }, func() sdql.Value { return vecValue(out) }
			}
		}
	default:
		return nil, fmt.Errorf("bench: unknown kernel %q", kernel)
	}
	src, name := Logical[kernel], kernel
	if v != nil && v.Kind == OfKernel {
		if v.Original != kernel {
			return nil, fmt.Errorf("bench: %s is a variant of %s, not of %s", v.File, v.Original, kernel)
		}
		src, name = v.Src, v.File
	}
	cs.Inputs = nablasd.Inputs{}
	for n, t := range tensors {
		cs.Inputs[n] = t
	}
	for n, x := range scalars {
		cs.Inputs[n] = x
	}
	p, err := PipelineOf(name, src, Wrt[kernel], tensors, scalars)
	if err != nil {
		return nil, err
	}
	cs.Prog, cs.Bindings, cs.Fuse, cs.equalModes = p.Program, p.Bindings, p.Fuse, p.EqualModes
	cs.formats = map[string]lower.Format{}
	for n, t := range tensors {
		cs.formats[n] = lower.Format{Format: t.Format, Order: t.Order()}
	}
	if _, ok := tensors[Wrt[kernel]]; ok {
		cs.completedOn = Wrt[kernel]
	}
	if v != nil && v.Kind == OfPhysical {
		if v.Original != kernel+"_"+format {
			return nil, fmt.Errorf("bench: %s is a variant of %s, not of %s_%s", v.File, v.Original, kernel, format)
		}
		if cs.Prog, err = sdql.Parse(v.File, v.Src); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

// OriginalCase is NewCase with the hand-written physical program
// kernels/KERNEL_FORMAT.sdql as the program that runs: the original of
// its OfPhysical variants.
func OriginalCase(kernel, format, input string, m *datasets.Coords) (*Case, error) {
	cs, err := NewCase(kernel, format, input, m)
	if err != nil {
		return nil, err
	}
	if cs.Prog, err = Program(kernel + "_" + format); err != nil {
		return nil, err
	}
	return cs, nil
}

// Compile compiles the case's program as the root package does: the
// inputs were validated when they were built (formats' constructors), so
// a run does not check them again (exec.Options.NoValidate).
// CompileValidating keeps the per-run checks, for BenchmarkValidation.
func (cs *Case) Compile(opts exec.Options) (*exec.Kernel, error) {
	opts.NoValidate = true
	return cs.CompileValidating(opts)
}

// CompileValidating compiles the case's program with opts as given.
func (cs *Case) CompileValidating(opts exec.Options) (*exec.Kernel, error) {
	if opts.ResultShape == nil {
		opts.ResultShape = cs.Shape
	}
	if opts.Formats == nil {
		opts.Formats = cs.formats
		opts.CompletedOn = cs.completedOn
		opts.EqualModes = cs.equalModes
	}
	return exec.CompileFor(cs.Prog, cs.Bindings, opts)
}

// Name is the sub-benchmark name of the case.
func (cs *Case) Name() string {
	return fmt.Sprintf("kernel=%s/format=%s/input=%s", cs.Kernel, cs.Format, strings.ReplaceAll(cs.Input, "/", "_"))
}

func tensorBytes(t *formats.Tensor) int64 {
	n := int64(8 * len(t.Val))
	for _, p := range t.Pos {
		n += int64(8 * len(p))
	}
	for _, x := range t.Idx {
		n += int64(8 * len(x))
	}
	return n
}

func vecValue(g []float64) sdql.Value {
	d := sdql.NewDict()
	for i, x := range g {
		d.Set(i, sdql.Real(x))
	}
	return d
}

func diagValue(g []float64) sdql.Value {
	d := sdql.NewDict()
	for i, x := range g {
		in := sdql.NewDict()
		in.Set(i, sdql.Real(x))
		d.Set(i, in)
	}
	return d
}

func csrValue(pos, idx []int, val []float64) sdql.Value {
	d := sdql.NewDict()
	for i := 0; i+1 < len(pos); i++ {
		if pos[i] == pos[i+1] {
			continue
		}
		row := sdql.NewDict()
		for p := pos[i]; p < pos[i+1]; p++ {
			row.Set(idx[p], sdql.Real(val[p]))
		}
		d.Set(i, row)
	}
	return d
}
