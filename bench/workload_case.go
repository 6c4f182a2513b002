package bench

import (
	"fmt"
	"strings"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// A WorkloadCase is one workload's value (mode eval) or gradient (mode
// grad) over one input, in one spelling: the hand-written closed form over
// the input's arrays, and the program nablasd compiles (Compile) for it,
// run through the root package as Go users and cmd/nablasd run it
// (Prepare, Compile, Run into a reused Result).
type WorkloadCase struct {
	Program, Mode, Input string
	// Variant is the spelled variant (nil: the workload's own file).
	Variant *Variant
	// Src is the program's text and File its name in messages; Wrt the
	// input of the gradient ("" for eval).
	Src, File, Wrt string
	Data           *WorkloadData
	// Names are the program's inputs.
	Names []string
	// Hand runs the hand-written closed form into buffers it reuses;
	// HandValue returns its last result as an sdql value (a scalar, or
	// the gradient on every position of the wrt input, as nablasd gives
	// it for a dense input).
	Hand      func()
	HandValue func() sdql.Value
	// NewHand allocates a fresh set of the closed form's buffers
	// (destination and workspace) and returns a run over them and the
	// value of its last run.
	NewHand func() (run func(), value func() sdql.Value)
	// HandThreads, when the closed form has a form on several goroutines
	// (hand_threads.go), returns a run of it on t goroutines into buffers
	// of its own and the value of its last run; nil otherwise.
	HandThreads func(t int) (run func(), value func() sdql.Value)
	// InputBytes sizes the program's inputs, HandOutBytes the closed
	// form's result.
	InputBytes, HandOutBytes int64
}

// NewWorkloadCase reads the workload's value or gradient (mode "eval" or
// "grad") over the data, in the spelling v (nil: the workload's file),
// and binds the hand-written closed form; Compile compiles it. why is
// non-empty, and the case nil, when the workloads folder is absent.
func NewWorkloadCase(w Workload, mode string, d *WorkloadData, v *Variant) (cs *WorkloadCase, why string, err error) {
	cs = &WorkloadCase{Program: w.Name, Mode: mode, Input: d.Input, Variant: v, Data: d}
	switch mode {
	case "eval":
	case "grad":
		cs.Wrt = w.Wrt
	default:
		return nil, "", fmt.Errorf("bench: unknown mode %q (want eval or grad)", mode)
	}
	cs.File = w.Name + ".sdql"
	if v == nil {
		if cs.Src, _, why, err = WorkloadSource(w.Name); why != "" || err != nil {
			return nil, why, err
		}
	} else {
		if v.Kind != OfWorkload || v.Original != w.Name {
			return nil, "", fmt.Errorf("bench: %s is not a variant of the workload %s", v.File, w.Name)
		}
		cs.Src, cs.File = v.Src, v.File
	}
	prog, err := sdql.Parse(cs.File, cs.Src)
	if err != nil {
		return nil, "", err
	}
	cs.Names = sdql.FreeVars(prog)
	cs.InputBytes = d.Bytes(cs.Names)
	if err := cs.bindHand(); err != nil {
		return nil, "", err
	}
	return cs, "", nil
}

// Compiled is nablasd's kernel of a workload case on up to Threads
// goroutines, with its destination.
type Compiled struct {
	Threads int
	Query   *nablasd.Query
	Kernel  *nablasd.Kernel
	// Result is the kernel's destination, reused by Run.
	Result *nablasd.Result
	// Time is how long Prepare, Compile and the first run took.
	Time time.Duration
}

// Compile prepares the case's program over its inputs with
// Options.Threads threads, compiles its value or gradient into the
// closures of the kernel compiler (Options.Exec "compiled", what the
// benchmarks and the report call compiled), and runs it once (sizing the
// destination).
func (cs *WorkloadCase) Compile(threads int) (*Compiled, error) {
	return cs.CompileWith(nablasd.Options{Exec: "compiled", Threads: threads})
}

// CompileWith is Compile with the root package's options as given (Exec
// "jit": the native kernel; "" the default, "auto": see Settle); File is
// the case's.
func (cs *WorkloadCase) CompileWith(o nablasd.Options) (*Compiled, error) {
	t0 := time.Now()
	inputs, err := cs.Data.Inputs(cs.Names)
	if err != nil {
		return nil, err
	}
	c := &Compiled{Threads: o.Threads}
	o.File = cs.File
	if c.Query, err = nablasd.Prepare(cs.Src, inputs, &o); err != nil {
		return nil, err
	}
	if cs.Wrt == "" {
		c.Kernel, err = c.Query.Compile()
	} else {
		c.Kernel, err = c.Query.Compile(cs.Wrt)
	}
	if err != nil {
		return nil, err
	}
	c.Result = c.Kernel.NewResult()
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("bench: %s: %v", cs.Name(), err)
	}
	c.Time = time.Since(t0)
	return c, nil
}

// Run runs the compiled kernel into its Result.
func (c *Compiled) Run() error { return c.Kernel.Run(c.Result, nil) }

// Settle runs the kernel until its executor is settled, as a program
// that keeps running it would see it (Options.Exec "auto": the closures
// until Options.JITAfter, the background build awaited, the runs that
// measure both executors), for at most limit, and returns where it
// settled (Kernel.Tier). A kernel of another executor is settled at once.
func (c *Compiled) Settle(limit time.Duration) (nablasd.Tier, error) {
	deadline := time.Now().Add(limit)
	for {
		tr := c.Kernel.Tier()
		switch tr.State {
		case "fixed", "off", "decided", "failed":
			return tr, nil
		case "building":
			c.Kernel.WaitBuild()
			continue
		}
		if time.Now().After(deadline) {
			return tr, fmt.Errorf("bench: the executor did not settle within %v: %v", limit, tr)
		}
		if err := c.Run(); err != nil {
			return tr, err
		}
	}
}

// bindHand binds the hand-written closed form of the case, and its form
// on several goroutines where it has one (HandThreads).
func (cs *WorkloadCase) bindHand() error {
	hf, err := handFormOf(cs.Program, cs.Data)
	if err != nil {
		return err
	}
	cs.Hand, cs.HandValue = hf.bindFor(cs.Wrt)
	cs.NewHand = func() (func(), func() sdql.Value) {
		h, err := handFormOf(cs.Program, cs.Data)
		if err != nil {
			panic("internal error: " + err.Error())
		}
		return h.bindFor(cs.Wrt)
	}
	if handThreadsOf(cs.Program, cs.Data, 1) != nil {
		cs.HandThreads = func(t int) (func(), func() sdql.Value) {
			return handThreadsOf(cs.Program, cs.Data, t).bindFor(cs.Wrt)
		}
	}
	cs.HandOutBytes = 8
	if cs.Wrt != "" {
		cs.HandOutBytes = int64(8 * hf.gradSize())
	}
	return nil
}

// gradSize is the number of entries of the gradient's destination.
func (hf *handForm) gradSize() int {
	size := 1
	for _, n := range hf.gradShape {
		size *= n
	}
	return size
}

// bindFor returns a run of the closed form into buffers of its own and the
// value of its last run: the value's when wrt is "" (handForm.value),
// else the gradient's.
func (hf *handForm) bindFor(wrt string) (run func(), value func() sdql.Value) {
	if wrt == "" {
		var f float64
		return func() { f = hf.value() }, func() sdql.Value { return sdql.Real(f) }
	}
	g, grad := make([]float64, hf.gradSize()), hf.newGrad()
	return func() { grad(g) }, func() sdql.Value {
		if len(hf.gradShape) == 2 {
			return matrixValue(g, hf.gradShape[0], hf.gradShape[1])
		}
		return vecValue(g)
	}
}

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
// benchmark binary) and returns its run, or nil when there is none. The
// package's tests and bench/cmd/report set it to the checked-in kernels
// of bench/gen (gen.WorkloadRun; this package cannot import them: gengo,
// which writes them, imports it); while it is nil or returns nil, the
// benchmarks and the report leave system=generated out.
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
