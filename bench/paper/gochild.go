package paper

import (
	"fmt"
	"strings"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// A goCell is a cell of a Go system set up to run: run computes the
// gradient once, values walks the last result's values.
type goCell struct {
	run    func() error
	values func(f func(v float64)) error
}

// RunGo answers a request for one of the Go systems (hand, hand-reuse,
// arr, dict and the ablation's arr-* and dict-*) in this process: the
// body of a child process of `paper`.
func RunGo(req Request) Answer {
	if _, ok := bench.Wrt[benchKernel(req.Kernel)]; !ok {
		if isWorkload(req.Kernel) {
			return runWorkloadGo(req)
		}
		return Answer{Status: "error", Detail: fmt.Sprintf("unknown kernel %q", req.Kernel)}
	}
	data, err := loadKernelData(req)
	if err != nil {
		return Answer{Status: "error", Detail: err.Error()}
	}
	// the sparse input in its storage format is loaded, not measured: as
	// the Python peers' matrix (SciPy's CSR) before their peak's baseline;
	// so are nablasd's other inputs (the dense B, x, V1), which the
	// hand-written closed forms do not read: a cell measures what a
	// system needs beyond the inputs it is given
	if _, err := data.sparse(); err != nil {
		return Answer{Status: "error", Detail: err.Error()}
	}
	if !strings.HasPrefix(req.System, "hand") {
		if _, err := data.tensors(req.Kernel); err != nil {
			return Answer{Status: "error", Detail: err.Error()}
		}
	}
	warmUp(req, func(d *kernelData) (*goCell, error) { return setupGo(req, d) })
	return measure(req, func() (*goCell, error) { return setupGo(req, data) })
}

// warmUp sets the cell's system up over a tiny instance of its kernel
// (tinyData) and runs it once, so that the code the cell runs (the
// compiler's, the kernel's: pages of the program not yet touched) is
// resident before its peak memory is measured, as the report's child
// processes warm up (bench/cmd/report): a cell's peak is then what its
// data needs, not the size of the code that first runs in it.
func warmUp(req Request, setup func(d *kernelData) (*goCell, error)) {
	defer func() { _ = recover() }()
	d, err := tinyData(req)
	if err != nil {
		return
	}
	if c, err := setup(d); err == nil {
		_ = c.run()
	}
}

// tinyData is a tiny instance of the kernel's inputs: a 32 × 32 matrix of
// density 0.1, or a vector of length 32 with 4 entries.
func tinyData(req Request) (*kernelData, error) {
	d := &kernelData{beta: scalar(req, "beta"), s: scalar(req, "s")}
	if isVectorKernel(req.Kernel) {
		d.n, d.vidx, d.vval, d.vector = 32, []int{1, 5, 9, 30}, []float64{0.5, -1, 2, 3}, true
		return d, nil
	}
	c, err := datasets.Generate(datasets.SynthSpec{Dims: []int{32, 32}, Density: 0.1, Seed: 1})
	if err != nil {
		return nil, err
	}
	d.A, d.n = c, 32
	return d, nil
}

// measure sets a cell up and runs it as every runner does: the setup and
// the first run under the peak-memory measurement, the checksum of the
// first result, then up to req.Reps timed runs, stopping once they took
// req.MaxSeconds; a first run that took that long is the only one.
func measure(req Request, setup func() (*goCell, error)) (ans Answer) {
	defer func() {
		if r := recover(); r != nil {
			ans = Answer{Status: "error", Detail: fmt.Sprintf("panic: %v", r)}
		}
	}()
	base := resetPeak()
	t0 := time.Now()
	c, err := setup()
	if err != nil {
		return failure(err)
	}
	ans.Setup = time.Since(t0).Seconds()
	t1 := time.Now()
	if err := c.run(); err != nil {
		return failure(err)
	}
	first := time.Since(t1).Seconds()
	ans.First = first
	ans.PeakBytes = peakSince(base)
	if err := c.values(func(v float64) { ans.Sum += v; ans.SumSq += v * v }); err != nil {
		return failure(err)
	}
	if first >= req.only() {
		// a slow cell: its first run is its time
		ans.Times, ans.Status = []float64{first}, "ok"
		return ans
	}
	spent := 0.0
	for len(ans.Times) < max(req.Reps, 1) && (len(ans.Times) == 0 || spent < req.MaxSeconds) {
		t := time.Now()
		if err := c.run(); err != nil {
			return failure(err)
		}
		dt := time.Since(t).Seconds()
		ans.Times = append(ans.Times, dt)
		spent += dt
	}
	ans.Status = "ok"
	return ans
}

// failure is the answer of a cell whose setup or run failed: "out of
// memory" when nablasd's memory budget stopped it, else "error".
func failure(err error) Answer {
	msg := err.Error()
	if strings.Contains(msg, "memory limit") {
		return Answer{Status: "out of memory", Detail: firstLine(msg)}
	}
	return Answer{Status: "error", Detail: firstLine(msg)}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// kernelData are the loaded inputs of one of the six kernels.
type kernelData struct {
	n      int
	A      *datasets.Coords // the matrix kernels' A
	vidx   []int            // the vector kernels' sparse vector
	vval   []float64
	beta   float64
	s      float64
	vector bool
	// sp is the sparse input in its storage format (sparse)
	sp *formats.Tensor
	// in are the kernel's inputs in their formats (tensors), built once
	in nablasd.Inputs
}

func loadKernelData(req Request) (*kernelData, error) {
	d := &kernelData{beta: scalar(req, "beta"), s: scalar(req, "s")}
	if isVectorKernel(req.Kernel) {
		name := "V2"
		if req.Kernel == "vsm" {
			name = "V"
		}
		c, _, err := datasets.LoadMatrixMarket(req.Files[name])
		if err != nil {
			return nil, err
		}
		if c.Order() != 2 || c.Shape[1] != 1 {
			return nil, fmt.Errorf("%s: want an n × 1 vector, have shape %v", req.Files[name], c.Shape)
		}
		c.SortRowMajor()
		d.n, d.vidx, d.vval, d.vector = c.Shape[0], c.Idx[0], c.Val, true
		return d, nil
	}
	c, _, err := datasets.LoadMatrixMarket(req.Files["A"])
	if err != nil {
		return nil, err
	}
	if c.Order() != 2 {
		return nil, fmt.Errorf("%s: want a matrix, have shape %v", req.Files["A"], c.Shape)
	}
	if benchKernel(req.Kernel) == "smmm" && c.Shape[0] != c.Shape[1] {
		return nil, fmt.Errorf("%s: SMMM multiplies A by a square B: want a square A, have %d × %d", req.Files["A"], c.Shape[0], c.Shape[1])
	}
	d.A, d.n = c, c.Shape[1]
	return d, nil
}

// memLimit is nablasd's memory budget for the cell: the cell's limit, or
// none (-1).
func memLimit(req Request) int64 {
	if req.MemLimit > 0 {
		return req.MemLimit
	}
	return -1
}

func scalar(req Request, name string) float64 {
	if v, ok := req.Scalars[name]; ok {
		return v
	}
	return defaultScalars[name]
}

// sparse returns the kernel's sparse input in its storage format, A in
// CSR or the vector in COO, built once: the loaded matrix, made before a
// cell's peak memory is measured (as the Python peers' SciPy matrix).
func (d *kernelData) sparse() (*formats.Tensor, error) {
	if d.sp != nil {
		return d.sp, nil
	}
	var err error
	if d.vector {
		d.sp, err = formats.FromCoords([]int{d.n}, [][]int{d.vidx}, d.vval, formats.COO)
	} else {
		d.sp, err = formats.FromCoords(d.A.Shape, d.A.Idx, d.A.Val, formats.CSR)
	}
	return d.sp, err
}

// tensors binds the kernel's inputs in their storage formats, once: A in
// CSR, B and x and V1 dense (all ones), V2 and V sparse in COO;
// smmm-sparse's B is A itself, in CSR. The Go systems build them before
// a cell's peak memory is measured, as the sparse input (RunGo).
func (d *kernelData) tensors(kernel string) (nablasd.Inputs, error) {
	if d.in != nil {
		return d.in, nil
	}
	in, err := d.bind(kernel)
	d.in = in
	return in, err
}

func (d *kernelData) bind(kernel string) (nablasd.Inputs, error) {
	in := nablasd.Inputs{}
	ones := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = 1
		}
		return x
	}
	sp, err := d.sparse()
	if err != nil {
		return nil, err
	}
	if !d.vector {
		in["A"] = sp
		switch kernel {
		case "batax":
			in["x"], in["beta"] = ones(d.n), d.beta
		case "smvm":
			in["x"] = ones(d.n)
		case "smmm":
			in["B"] = &formats.Tensor{Format: formats.Dense, Shape: []int{d.n, d.n},
				Pos: [][]int{nil, nil}, Idx: [][]int{nil, nil}, Val: ones(d.n * d.n)}
		case "smmm-sparse":
			in["B"] = sp
		}
		return in, nil
	}
	switch kernel {
	case "vva", "vvd":
		in["V1"], in["V2"] = ones(d.n), sp
	case "vsm":
		in["V1"], in["s"] = sp, d.s
	}
	return in, nil
}

// dictionaries are the same inputs as nested sdql dictionaries.
func dictionaries(in nablasd.Inputs) nablasd.Inputs {
	out := nablasd.Inputs{}
	for n, v := range in {
		switch t := v.(type) {
		case *formats.Tensor:
			out[n] = formats.ToValue(t)
		case []float64:
			out[n] = formats.ToValue(nablasd.DenseVector(t))
		default:
			out[n] = v
		}
	}
	return out
}

// setupGo builds the cell of a Go system over the kernel's data.
func setupGo(req Request, d *kernelData) (*goCell, error) {
	k := req.Kernel
	switch req.System {
	case "hand", "hand-reuse":
		return setupHand(req, d)
	case "arr":
		in, err := d.tensors(k)
		if err != nil {
			return nil, err
		}
		// the compiled kernel (closures), never the native code the
		// default executor may turn to
		q, err := nablasd.Prepare(bench.Logical[benchKernel(k)], in, &nablasd.Options{File: k, MemoryLimit: memLimit(req), Mode: PaperMode, Exec: "compiled"})
		if err != nil {
			return nil, err
		}
		kern, err := q.Compile(bench.Wrt[benchKernel(k)])
		if err != nil {
			return nil, err
		}
		dst := kern.NewResult()
		return &goCell{run: func() error { return kern.Run(dst, nil) }, values: func(f func(float64)) error {
			return dst.Entries(func(_ []int, v float64) bool { f(v); return true })
		}}, nil
	case "dict", "dict-none", "dict-norm", "dict-dps", "arr-none", "arr-norm", "arr-dps":
		in, err := d.tensors(k)
		if err != nil {
			return nil, err
		}
		variant, opt, _ := strings.Cut(req.System, "-")
		if variant == "dict" {
			in = dictionaries(in)
		}
		if opt == "" {
			opt = "dps"
		}
		q, err := nablasd.Prepare(bench.Logical[benchKernel(k)], in, &nablasd.Options{File: k, MemoryLimit: memLimit(req), Mode: PaperMode})
		if err != nil {
			return nil, err
		}
		p, err := q.Plan(bench.Wrt[benchKernel(k)])
		if err != nil {
			return nil, err
		}
		prog := p.Program
		if opt == "none" {
			// the program before multiplication normalization
			prog = stageBefore(p.Stages, fuse.StageNormalized, prog)
		}
		opts := exec.Options{Opt: opt, NoDense: variant == "dict"}
		if variant == "arr" {
			// as root Compile (the arr system) compiles: the dense wrt
			// input's gradient written densely
			opts.ResultShape, opts.NoValidate = denseShape(in[bench.Wrt[benchKernel(k)]]), true
			opts.Formats = map[string]lower.Format{}
			for n, v := range in {
				if t, ok := v.(*formats.Tensor); ok {
					opts.Formats[n] = lower.Format{Format: t.Format, Order: t.Order()}
				}
			}
		}
		kern, err := exec.CompileFor(prog, p.Bindings, opts)
		if err != nil {
			return nil, err
		}
		dst := kern.NewResult()
		return &goCell{run: func() error { return kern.RunInto(dst, p.Bindings) }, values: func(f func(float64)) error {
			return dst.Entries(func(_ []int, v float64) bool { f(v); return true })
		}}, nil
	}
	return nil, fmt.Errorf("unknown Go system %q", req.System)
}

// PaperMode is the differentiation mode of the six kernels' nablasd
// systems (arr, dict, gen and the ablation): the paper's tensorized
// forward mode, not Options.Mode "auto" (which picks reverse mode for
// SMMM, SMVM and VVD). The workloads figure keeps the default.
const PaperMode = "forward"

// denseShape is the shape of a dense wrt input (a dense tensor or a
// vector), whose gradient the compiled kernel writes densely; nil for
// others.
func denseShape(v any) []int {
	switch t := v.(type) {
	case []float64:
		return []int{len(t)}
	case *formats.Tensor:
		if t.AllDense() {
			return append([]int(nil), t.Shape...)
		}
	}
	return nil
}

// stageBefore returns the program of the stage before the one named, or
// def when there is none.
func stageBefore(stages []fuse.Stage, name string, def sdql.Expr) sdql.Expr {
	for i, s := range stages {
		if s.Name == name && i > 0 {
			return stages[i-1].Program
		}
	}
	return def
}

// setupHand binds the hand-written form: "hand" allocates its buffers in
// every run, "hand-reuse" once.
func setupHand(req Request, d *kernelData) (*goCell, error) {
	hi := &handInputs{n: d.n, vidx: d.vidx, vval: d.vval, beta: d.beta, s: d.s}
	if !d.vector {
		A, err := d.sparse()
		if err != nil {
			return nil, err
		}
		hi.pos, hi.idx, hi.val = A.Pos[1], A.Idx[1], A.Val
		if req.Kernel == "batax" {
			C, err := formats.Convert(A, formats.CSC)
			if err != nil {
				return nil, err
			}
			hi.cpos, hi.cidx, hi.cval = C.Pos[1], C.Idx[1], C.Val
		}
	}
	h := newHand(req.Kernel, hi)
	c := &goCell{run: func() error { h.run(); return nil }}
	if req.System == "hand" {
		c.run = func() error { h = newHand(req.Kernel, hi); h.run(); return nil }
	}
	c.values = func(f func(float64)) error {
		for _, v := range h.values() {
			f(v)
		}
		return nil
	}
	return c, nil
}
