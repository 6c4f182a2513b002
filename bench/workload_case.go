package bench

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// A WorkloadCase is one workload's value (mode eval) or gradient (mode
// grad) over one input, in one spelling: the kernel nablasd compiles for
// it, run through the root package as Go users and cmd/nablasd run it
// (Prepare, Compile, Run into a reused Result), next to the hand-written
// closed form over the same arrays.
type WorkloadCase struct {
	Program, Mode, Input string
	// Variant is the spelled variant (nil: the workload's own file).
	Variant *Variant
	// Src is the program's text; Wrt the input of the gradient ("" for
	// eval); Threads the kernel's Options.Threads.
	Src, Wrt string
	Threads  int
	Data     *WorkloadData
	// Names are the program's inputs.
	Names  []string
	Query  *nablasd.Query
	Kernel *nablasd.Kernel
	// Result is the kernel's destination, reused by Run.
	Result *nablasd.Result
	// Hand runs the hand-written closed form into buffers it reuses;
	// HandValue returns its last result as an sdql value (a scalar, or
	// the gradient on every position of the wrt input, as nablasd gives
	// it for a dense input).
	Hand      func()
	HandValue func() sdql.Value
	// NewHand allocates a fresh set of the closed form's buffers
	// (destination and workspace) and returns a run over them.
	NewHand func() (run func())
	// InputBytes sizes the program's inputs, HandOutBytes the closed
	// form's result.
	InputBytes, HandOutBytes int64
}

// NewWorkloadCase prepares and compiles the workload's value or gradient
// (mode "eval" or "grad") over the data, in the spelling v (nil: the
// workload's file), with up to threads goroutines, runs it once (sizing
// the destination) and binds the hand-written closed form. why is
// non-empty, and the case nil, when the workloads folder is absent.
func NewWorkloadCase(w Workload, mode string, d *WorkloadData, v *Variant, threads int) (cs *WorkloadCase, why string, err error) {
	cs = &WorkloadCase{Program: w.Name, Mode: mode, Input: d.Input, Variant: v, Threads: threads, Data: d}
	switch mode {
	case "eval":
	case "grad":
		cs.Wrt = w.Wrt
	default:
		return nil, "", fmt.Errorf("bench: unknown mode %q (want eval or grad)", mode)
	}
	file := w.Name + ".sdql"
	if v == nil {
		if cs.Src, _, why, err = WorkloadSource(w.Name); why != "" || err != nil {
			return nil, why, err
		}
	} else {
		if v.Kind != OfWorkload || v.Original != w.Name {
			return nil, "", fmt.Errorf("bench: %s is not a variant of the workload %s", v.File, w.Name)
		}
		cs.Src, file = v.Src, v.File
	}
	prog, err := sdql.Parse(file, cs.Src)
	if err != nil {
		return nil, "", err
	}
	cs.Names = sdql.FreeVars(prog)
	inputs, err := d.Inputs(cs.Names)
	if err != nil {
		return nil, "", err
	}
	cs.InputBytes = d.Bytes(cs.Names)
	if cs.Query, err = nablasd.Prepare(cs.Src, inputs, &nablasd.Options{File: file, Threads: threads}); err != nil {
		return nil, "", err
	}
	if cs.Kernel, err = cs.compile(); err != nil {
		return nil, "", err
	}
	cs.Result = cs.Kernel.NewResult()
	if err := cs.Run(); err != nil {
		return nil, "", fmt.Errorf("bench: %s: %v", cs.Name(), err)
	}
	if err := cs.bindHand(); err != nil {
		return nil, "", err
	}
	return cs, "", nil
}

func (cs *WorkloadCase) compile() (*nablasd.Kernel, error) {
	if cs.Wrt == "" {
		return cs.Query.Compile()
	}
	return cs.Query.Compile(cs.Wrt)
}

// bindHand binds the hand-written closed form of the case.
func (cs *WorkloadCase) bindHand() error {
	hf, err := handFormOf(cs.Program, cs.Data)
	if err != nil {
		return err
	}
	if cs.Wrt == "" {
		var f float64
		cs.Hand = func() { f = hf.value() }
		cs.HandValue = func() sdql.Value { return sdql.Real(f) }
		cs.NewHand = func() func() {
			h, err := handFormOf(cs.Program, cs.Data)
			if err != nil {
				panic("internal error: " + err.Error())
			}
			return func() { f = h.value() }
		}
		cs.HandOutBytes = 8
		return nil
	}
	size := 1
	for _, n := range hf.gradShape {
		size *= n
	}
	g, grad := make([]float64, size), hf.newGrad()
	cs.Hand = func() { grad(g) }
	cs.HandValue = func() sdql.Value {
		if len(hf.gradShape) == 2 {
			return matrixValue(g, hf.gradShape[0], hf.gradShape[1])
		}
		return vecValue(g)
	}
	cs.NewHand = func() func() {
		g, grad := make([]float64, size), hf.newGrad()
		return func() { grad(g) }
	}
	cs.HandOutBytes = int64(8 * size)
	return nil
}

// Run runs the compiled kernel into the case's Result.
func (cs *WorkloadCase) Run() error { return cs.Kernel.Run(cs.Result, nil) }

// VariantName is the spelling of the case's variant, or "original".
func (cs *WorkloadCase) VariantName() string {
	if cs.Variant == nil {
		return "original"
	}
	return cs.Variant.Spelling
}

// Name is the sub-benchmark name of the case, without its system:
// program=P/mode=M/input=I/variant=V.
func (cs *WorkloadCase) Name() string {
	return fmt.Sprintf("program=%s/mode=%s/input=%s/variant=%s", cs.Program, cs.Mode,
		strings.ReplaceAll(cs.Input, "/", "_"), cs.VariantName())
}

// GeneratedWorkload is the hook of system=generated: it binds the Go that
// nablasd generates ahead of time for the case (compiled into the
// benchmark binary) and returns its run, or nil when there is none. It is
// nil until Go generation from the loop IR provides workload kernels;
// the benchmarks and the report leave system=generated out while it
// returns nil.
var GeneratedWorkload func(cs *WorkloadCase) (run func(), err error)

// Generated returns the run of the case's generated Go through the
// GeneratedWorkload hook, or nil.
func (cs *WorkloadCase) Generated() (func(), error) {
	if GeneratedWorkload == nil {
		return nil, nil
	}
	return GeneratedWorkload(cs)
}

func matrixValue(g []float64, rows, cols int) sdql.Value {
	d := sdql.NewDict()
	for i := 0; i < rows; i++ {
		row := sdql.NewDict()
		for j := 0; j < cols; j++ {
			row.Set(j, sdql.Real(g[i*cols+j]))
		}
		d.Set(i, row)
	}
	return d
}
