package nablasd

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// Kernel is a compiled program, the value or one gradient: it runs over
// the query's inputs or over new inputs of the same names, kinds and
// storage formats (a batch of groups), into a destination it can reuse. A
// Kernel may be run by several goroutines at once, each into its own
// destination.
type Kernel struct {
	q    *Query
	plan *Plan
	ex   *exec.Kernel // nil with Options.Exec "interp"
	// jit is the native kernel with Options.Exec "jit" (ex is then its
	// fallback for what jit cannot serve)
	jit *jitKernel
	// jitErr is why Options.Exec "jit" fell back to the compiled kernel
	jitErr error
	// tier runs the kernel with Options.Exec "auto": ex, then the native
	// kernel once built and measured faster (tier.go)
	tier *tier
	// resultShape is what exec makes dense (Options.ResultShape); shape is
	// the result's extents as far as the program tells them (0: unknown)
	resultShape []int
	shape       []int
	// compile is Compile's time; compiling and source its last steps'
	// (Times)
	compile           time.Duration
	compiling, source StageTime
	// others are ex compiled for another dense result shape (a rerun over
	// a dense input of another length), by shape
	mu     sync.Mutex
	others map[string]*exec.Kernel
	// wrtValue caches the wrt input's logical value (onStoredPositions)
	wrtValue sdql.Value
}

// Compile compiles the program's value (no wrt) or its gradients with
// respect to the inputs named (several make one kernel with several
// results: Split): Plan, then the compiled kernel of the program that runs
// (with Options.Exec "interp", the reference interpreter). The kernel is
// cached: compiling again returns it.
func (q *Query) Compile(wrt ...string) (*Kernel, error) {
	r, err := q.gradRequest(wrt)
	if err != nil {
		return nil, err
	}
	return q.compile(r)
}

// CompileDerivative compiles what d asks for (see Derivative). A product's
// kernel is compiled for its values: it is not cached.
func (q *Query) CompileDerivative(d *Derivative) (*Kernel, error) {
	r, err := q.request(d)
	if err != nil {
		return nil, err
	}
	return q.compile(r)
}

// compile compiles a checked request's kernel.
func (q *Query) compile(r *request) (*Kernel, error) {
	if q.planOnly {
		for _, v := range sdql.FreeVars(q.prog) {
			if _, ok := q.inputs[v]; !ok {
				return nil, undefined(q.name, q.prog, v, q.boundNames())
			}
		}
	}
	key, cached := r.key()
	if cached {
		q.mu.Lock()
		k := q.kernels[key]
		q.mu.Unlock()
		if k != nil {
			return k, nil
		}
	}
	start := time.Now()
	p, err := q.planFor(r)
	if err != nil {
		return nil, err
	}
	kq := q.with(r) // a product's values are inputs of its kernel
	if r.kind != "value" {
		if err := kq.checkMemory(p.derivative, nil, strings.Join(r.wrt, ", ")); err != nil {
			return nil, err
		}
	}
	k := &Kernel{q: kq, plan: p, resultShape: kq.denseResultShape(p), shape: kq.resultShape(p)}
	if q.opts.Exec == "jit" {
		if k.jit, err = kq.compileJIT(p); err != nil {
			k.jitErr = err
			q.warn(fmt.Sprintf("the JIT cannot build the kernel (%v); the compiled kernel runs instead", err))
		}
	}
	clock := startClock()
	if q.opts.Exec == "compiled" || q.opts.Exec == "auto" || q.opts.Exec == "jit" && k.jit == nil {
		ir, err := kq.loopsFor(p, k.resultShape)
		if err != nil {
			return nil, err
		}
		if k.ex, err = exec.CompileLowered(p.Program, p.Info, ir, kq.execOptions(p, k.resultShape)); err != nil {
			return nil, kq.withFile(err)
		}
	}
	k.compiling = clock.lap("compile", StageTime{})
	if q.opts.Exec == "auto" {
		k.tier = newTier(q, k)
		k.source = clock.lap("source", StageTime{})
	}
	k.compile = time.Since(start)
	if !cached {
		return k, nil
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if old := q.kernels[key]; old != nil {
		return old, nil
	}
	q.kernels[key] = k
	return k, nil
}

// lowerPlan lowers the plan's program to the loop IR for a dense result
// of the given shape, calling trace after each pass (nil: none): the one
// place the pipeline lowers a program. The plan keeps the loops it made
// (Plan.Loops); the closures (exec) and the generated Go (gogen) consume
// them (loopsFor).
func (q *Query) lowerPlan(p *Plan, shape []int, trace func(string, *lower.Program)) (*lower.Program, error) {
	ir, err := lower.Lower(p.Program, p.Info, lower.Options{Formats: q.formats(), ResultShape: shape, NoViews: q.opts.NoDPS,
		CompletedOn: q.completedOn(p), EqualModes: q.equalModes(), Disable: q.opts.DisablePasses, Trace: trace})
	if err != nil {
		return nil, q.withFile(err)
	}
	return ir, nil
}

// loopsFor returns the loops of plan p for a dense result of the given
// shape: the plan's own when it was lowered for that shape, else the
// program lowered again for it. The back ends only read the loops, so
// the closures and a native build in the background may share them.
func (q *Query) loopsFor(p *Plan, shape []int) (*lower.Program, error) {
	if p.Loops != nil && equalInts(p.loopsShape, shape) {
		return p.Loops, nil
	}
	return q.lowerPlan(p, shape, nil)
}

// execOptions are the executor's options for plan p and a dense result
// shape.
func (q *Query) execOptions(p *Plan, shape []int) exec.Options {
	// the tensors were validated when bound (convertInput): the kernel
	// need not check them again on every run
	opts := exec.Options{Dict: q.opts.Dict, Threads: q.opts.Threads, NoValidate: true,
		ResultShape: shape, Opt: "dps", MemoryLimit: q.ceiling, Formats: q.formats(),
		CompletedOn: q.completedOn(p), EqualModes: q.equalModes(), DisablePasses: q.opts.DisablePasses}
	if q.opts.NoDPS {
		opts.Opt = "norm"
	}
	return opts
}

// formats describes the storage of the tensor inputs the program that
// runs reads as their formats' arrays (none with Options.Opt "none": it
// reads the logical values), for lowering.
func (q *Query) formats() map[string]lower.Format {
	if q.opts.Opt == "none" {
		return nil
	}
	fs := map[string]lower.Format{}
	for n, in := range q.inputs {
		if in.tensor != nil {
			fs[n] = lower.Format{Format: in.tensor.Format, Order: in.tensor.Order()}
		}
	}
	return fs
}

// denseResultShape is the result shape the compiled kernel may make dense:
// the wrt input's shape when the program's result is a scalar and the
// input is stored densely (its gradient then covers every position), and
// when that fits the memory budget.
func (q *Query) denseResultShape(p *Plan) []int { return q.denseShapeFor(p, q.dims()) }

// denseShapeFor is denseResultShape for inputs of the given extents; a
// bundle of the value and gradients with respect to dense inputs is dense
// too (bundleShape).
func (q *Query) denseShapeFor(p *Plan, dims map[string][]int) []int {
	if p.Wrt == "" {
		return q.bundleShape(p, dims)
	}
	if q.info.Result != sdql.RealType {
		return nil
	}
	if in := q.inputs[p.Wrt]; in == nil || !in.dense() {
		return nil
	}
	return dims[p.Wrt]
}

// Plan returns the kernel's pipeline: its stages and the program it runs.
func (k *Kernel) Plan() *Plan { return k.plan }

// Type returns the type of the kernel's result.
func (k *Kernel) Type() sdql.Type { return k.plan.Info.Result }

// CompileTime is how long Compile took: differentiating, optimizing and
// compiling (inputs' loading and Prepare excluded).
func (k *Kernel) CompileTime() time.Duration { return k.compile }

// Times are the steps of compiling the kernel: its plan's (Plan.Times),
// then compile (the kernel compiler's closures; with Options.Exec "jit",
// the native build too) and, with Options.Exec "auto", source (the
// kernel's Go, made to ask the JIT's cache for it).
func (k *Kernel) Times() []StageTime {
	ts := append(append([]StageTime(nil), k.plan.Times...), k.compiling)
	if k.tier != nil {
		ts = append(ts, k.source)
	}
	return ts
}

// Executor names what runs the kernel: "jit" (native code), "compiled"
// (exec's closures; also where Options.Exec "jit" fell back, with a
// warning) or "interp". With Options.Exec "auto" it is what runs now
// (Tier says why): "compiled" until the native kernel is loaded, then
// "jit" unless the closures measured faster; while the two are measured,
// in turn, the one that ran the most recent run.
func (k *Kernel) Executor() string {
	switch {
	case k.tier != nil:
		return k.tier.executor()
	case k.jit != nil:
		return "jit"
	case k.ex != nil:
		return "compiled"
	}
	return "interp"
}

// Threads is the number of goroutines the kernel's most recent run used
// (1 for the interpreter; for native code, the most a loop ran on).
func (k *Kernel) Threads() int {
	if k.jit != nil {
		return k.jit.usedThreads()
	}
	if k.tier != nil && k.tier.ranNative() {
		if j := k.tier.native.Load(); j != nil {
			return j.usedThreads()
		}
		return 1
	}
	if k.ex == nil {
		return 1
	}
	return k.ex.Threads()
}

// NewResult returns an empty destination for the kernel's result, to be
// filled (and refilled, reusing its storage) by Run.
func (k *Kernel) NewResult() *Result {
	r := &Result{t: k.Type(), shape: k.shape}
	if k.ex != nil {
		r.ex = k.ex.NewResult()
	}
	return r
}

// Run runs the kernel into dst (made by NewResult; its storage is reused,
// so repeated runs of a compiled kernel do not allocate). With inputs nil
// it runs over the query's inputs; otherwise inputs gives new values for
// some or all of them (the others keep theirs), each of the kind the
// kernel was compiled for (a number, a logical value, or a tensor of the
// same storage format and order; its extents may differ, and are checked
// again), so one kernel serves a batch of groups.
func (k *Kernel) Run(dst *Result, inputs Inputs) error {
	if dst == nil {
		return fmt.Errorf("nablasd: Run into a nil destination (make one with NewResult)")
	}
	if k.tier != nil {
		return k.tier.run(dst, inputs)
	}
	return k.run(dst, inputs, k.jit, false)
}

// runBoundAuto is Run once the inputs are bound: by the tier of an
// "auto" kernel, else by the native kernel or the compiled one.
func (k *Kernel) runBoundAuto(dst *Result, b bound) error {
	if k.tier != nil {
		return k.tier.runBound(dst, b)
	}
	return k.runBound(dst, b, k.jit, false)
}

// run is Run by the native kernel j, or without one by the compiled
// kernel (or the interpreter). park keeps dst's destination of the other
// executor aside (Result.idle) instead of dropping it, for an "auto"
// kernel that runs both in turn (tier.go).
func (k *Kernel) run(dst *Result, inputs Inputs, j *jitKernel, park bool) error {
	b, err := k.bind(inputs)
	if err != nil {
		return err
	}
	return k.runBound(dst, b, j, park)
}

// bound is a run's inputs, bound: the program's bindings, the tensors'
// extents (nil: the query's) and the result's shape.
type bound struct {
	inputs   Inputs
	bindings map[string]sdql.Value
	dims     map[string][]int
	shape    []int
	// repl are the inputs the run replaced, converted
	repl map[string]*input
}

// entries counts the stored entries of the run's tensor inputs: the
// tiering's unit of work (tier.measure).
func (b bound) entries(k *Kernel) int {
	n := 0
	for name, in := range k.q.inputs {
		if r := b.repl[name]; r != nil {
			in = r
		}
		if in.tensor != nil {
			n += len(in.tensor.Val)
		}
	}
	return n
}

// bind binds a run's new inputs (none: the query's).
func (k *Kernel) bind(inputs Inputs) (bound, error) {
	if missing := k.released(inputs); len(missing) > 0 {
		return bound{}, fmt.Errorf("input %s: released (Kernel.Release): give it to Run", missing[0])
	}
	b := bound{inputs: inputs, bindings: k.plan.Bindings, shape: k.shape}
	if len(inputs) > 0 {
		var err error
		if b.bindings, b.dims, b.repl, err = k.rebind(inputs); err != nil {
			return b, err
		}
		b.shape = k.q.resultShapeFor(k.plan, b.dims)
	}
	return b, nil
}

// runBound is run once the inputs are bound.
func (k *Kernel) runBound(dst *Result, b bound, j *jitKernel, park bool) error {
	bindings, dims, inputs := b.bindings, b.dims, b.inputs
	dst.shape = b.shape
	dst.k, dst.inputs, dst.label = k, inputs, k.label()
	if j != nil {
		if park && dst.ex != nil {
			dst.parkEx()
		}
		if dst.jr == nil || dst.jr.k != j {
			dst.jr = dst.unparkJIT(j)
		}
		dst.ex, dst.v, dst.pending, dst.onto = nil, nil, nil, nil
		if err := j.runInto(dst.jr, bindings); err != nil {
			dst.jr = nil
			return err
		}
		if k.completes(true) {
			jr, t := dst.jr, k.Type()
			dst.pending = k.completion(func() sdql.Value { return jr.value(t) }, bindings, inputs)
			dst.onto = k.wrtTensor(inputs)
		}
		return nil
	}
	if k.ex == nil {
		v, err := (&sdql.Interp{File: k.q.name, MemoryLimit: k.q.ceiling}).Run(k.plan.Program, k.plan.Info, bindings)
		if err != nil {
			return err
		}
		if k.completes(false) {
			v = k.onStoredPositions(v, bindings, inputs)
		}
		dst.v, dst.ex, dst.jr, dst.pending, dst.onto = v, nil, nil, nil, nil
		return nil
	}
	ex := k.ex
	if dims != nil {
		var err error
		if ex, err = k.execFor(k.q.denseShapeFor(k.plan, dims)); err != nil {
			return err
		}
	}
	if park && dst.jr != nil {
		dst.parkJIT()
	}
	if dst.ex == nil || dst.owner != ex {
		dst.ex, dst.owner = dst.unparkEx(ex), ex
	}
	dst.v, dst.jr, dst.pending, dst.onto = nil, nil, nil, nil
	if err := ex.RunInto(dst.ex, bindings); err != nil {
		return err
	}
	if k.completes(true) {
		xr := dst.ex
		dst.pending = k.completion(xr.Value, bindings, inputs)
		dst.onto = k.wrtTensor(inputs)
	}
	return nil
}

// Outputs names the kernel's results when it computes several in one run
// (a value and gradients): "value", or the input a gradient is taken with
// respect to; nil when it computes one, its Result.
func (k *Kernel) Outputs() []string {
	if o := k.plan.Outputs; o != nil && o.Bundled() {
		return append([]string(nil), o.Names...)
	}
	return nil
}

// Split returns the results of a run into dst, in the order of Outputs:
// dst itself for a kernel with one result. A gradient of a program with a
// real result is given on exactly its input's stored positions, as Run
// gives a single one.
func (k *Kernel) Split(dst *Result) ([]*Result, error) {
	o := k.plan.Outputs
	if o == nil || !o.Bundled() {
		return []*Result{dst}, nil
	}
	vs, err := o.Split(dst.Value())
	if err != nil {
		return nil, fmt.Errorf("internal error: %v", err)
	}
	out := make([]*Result, len(vs))
	dims := k.q.dims()
	for n, v := range dst.inputs {
		// the run's tensors, rebound: their extents
		if t, ok := v.(*formats.Tensor); ok && dims[n] != nil {
			dims[n] = t.Shape
		}
	}
	for i, v := range vs {
		name := o.Names[i]
		in := k.q.inputs[name]
		if v, rebound := dst.inputs[name]; rebound && in != nil {
			// the run's value of the input, not the query's
			if c, err := convertInput(name, v, false); err == nil {
				in = c
			}
		}
		if name != "value" && k.plan.req.kind == "grad" && in != nil && !in.isNum && !in.isBool &&
			k.q.info.Result == sdql.RealType {
			x := in.logical
			if in.tensor != nil {
				x = formats.ToValue(in.tensor)
			}
			v = ad.OnStoredPositions(v, x)
		}
		if in := k.q.inputs[name]; name != "value" && in != nil && in.dense() {
			// a dense bundle's padding past the input's extents
			// (bundleShape)
			v = trimTo(v, dims[name])
		}
		out[i] = &Result{t: o.Types[i], v: v, shape: k.q.outputShape(k.plan.req.kind, name, dims, o.Types[i]),
			k: k, inputs: dst.inputs, label: k.outputLabel(name)}
	}
	return out, nil
}

// completes reports whether the gradient a run computes must be completed
// to the wrt input's stored positions: that of a scalar program, unless a
// compiled kernel's dense destination already holds every position (a
// dense vector's; a dense matrix's when its every level is lowered dense
// and full, fullResult). native: the run was a compiled or JIT kernel's.
func (k *Kernel) completes(native bool) bool {
	w := k.plan.Wrt
	if w == "" || k.q.info.Result != sdql.RealType {
		return false
	}
	in := k.q.inputs[w]
	if in == nil || in.isNum || in.isBool {
		return false
	}
	if !native || !in.dense() {
		return true
	}
	return in.tensor.Order() != 1 && !k.plan.fullResult()
}

// completedOn names the input a run's result is completed to (completes:
// a scalar program's gradient with respect to a tensor input bound in a
// format), for lowering (lower.Options.CompletedOn); "" for any other.
func (q *Query) completedOn(p *Plan) string {
	if p.Wrt == "" || q.info.Result != sdql.RealType {
		return ""
	}
	if in := q.inputs[p.Wrt]; in == nil || in.isNum || in.isBool || in.tensor == nil {
		return ""
	}
	return p.Wrt
}

// fullResult reports whether the lowered program's result is dense and
// full in every level: a gradient with respect to a dense input that then
// holds every position of the input, as the completion would make it.
func (p *Plan) fullResult() bool {
	if p.Loops == nil || p.Loops.ResultTensor == nil {
		return false
	}
	for _, l := range p.Loops.ResultTensor.Levels {
		if l.Storage != lower.Dense || !l.Full {
			return false
		}
	}
	return true
}

// completion returns the completion of a run's gradient to the wrt
// input's stored positions (onStoredPositions), computed when the result
// is first read rather than on every run: a kernel rerun many times into
// one destination (a training loop, the tiering's measurement) reads it
// through Entries or not at all, and the completion builds the whole
// result as sdql values. The wrt input's value is the run's.
func (k *Kernel) completion(value func() sdql.Value, bindings map[string]sdql.Value, inputs Inputs) func() sdql.Value {
	var mine Inputs
	if v, ok := inputs[k.plan.Wrt]; ok {
		mine = Inputs{k.plan.Wrt: v}
	}
	return func() sdql.Value { return k.onStoredPositions(value(), bindings, mine) }
}

// wrtTensor is the wrt input's tensor of a run over inputs (the query's
// when the run did not rebind it), nil when it is not a tensor.
func (k *Kernel) wrtTensor(inputs Inputs) *formats.Tensor {
	w := k.plan.Wrt
	if v, rebound := inputs[w]; rebound {
		in, err := convertInput(w, v, false)
		if err != nil {
			return nil
		}
		return in.tensor
	}
	if in := k.q.inputs[w]; in != nil {
		return in.tensor
	}
	return nil
}

// onStoredPositions completes a scalar program's gradient g to exactly
// the wrt input's stored positions (ad.OnStoredPositions: the derivative
// program builds only the positions the program reads), so that every
// executor gives one dictionary.
func (k *Kernel) onStoredPositions(g sdql.Value, bindings map[string]sdql.Value, inputs Inputs) sdql.Value {
	w := k.plan.Wrt
	var x sdql.Value
	if v, rebound := inputs[w]; rebound {
		in, err := convertInput(w, v, !k.q.opts.NoValidate)
		if err != nil {
			return g
		}
		x = in.logical
		if in.tensor != nil {
			x = formats.ToValue(in.tensor)
		}
	} else {
		k.mu.Lock()
		if k.wrtValue == nil {
			in := k.q.inputs[w]
			k.wrtValue = in.logical
			if in.tensor != nil {
				k.wrtValue = formats.ToValue(in.tensor)
			}
		}
		x = k.wrtValue
		k.mu.Unlock()
	}
	return ad.OnStoredPositions(g, x)
}

// execFor returns the compiled kernel for a dense result shape: ex, or one
// compiled for the shape on first use.
func (k *Kernel) execFor(shape []int) (*exec.Kernel, error) {
	if equalInts(shape, k.resultShape) {
		return k.ex, nil
	}
	key := fmt.Sprint(shape)
	k.mu.Lock()
	defer k.mu.Unlock()
	if ex := k.others[key]; ex != nil {
		return ex, nil
	}
	ir, err := k.q.loopsFor(k.plan, shape)
	if err != nil {
		return nil, err
	}
	ex, err := exec.CompileLowered(k.plan.Program, k.plan.Info, ir, k.q.execOptions(k.plan, shape))
	if err != nil {
		return nil, k.q.withFile(err)
	}
	if k.others == nil {
		k.others = map[string]*exec.Kernel{}
	}
	k.others[key] = ex
	return ex, nil
}

// rebind returns the bindings of the kernel's program with new values for
// some inputs, after the checks Prepare makes.
func (k *Kernel) rebind(inputs Inputs) (map[string]sdql.Value, map[string][]int, map[string]*input, error) {
	q := k.q
	dims := q.dims()
	repl := map[string]*input{}
	for n, v := range inputs {
		old, ok := q.inputs[n]
		if !ok {
			return nil, nil, nil, fmt.Errorf("input %s: not an input of the program (its inputs: %s)", n, q.inputList())
		}
		in, err := convertInput(n, v, !q.opts.NoValidate)
		if err != nil {
			return nil, nil, nil, err
		}
		switch {
		case old.tensor != nil:
			if in.tensor == nil || in.tensor.Format != old.tensor.Format || in.tensor.Order() != old.tensor.Order() {
				return nil, nil, nil, fmt.Errorf("input %s: the kernel was compiled for a %s tensor of order %d; prepare the program again for another kind", n, old.tensor.Format, old.tensor.Order())
			}
			dims[n] = in.tensor.Shape
		case old.isNum:
			if !in.isNum {
				return nil, nil, nil, fmt.Errorf("input %s: the kernel was compiled for a number", n)
			}
			if err := in.resolve(sdql.TypeOfValue(old.logical)); err != nil {
				return nil, nil, nil, err
			}
		default:
			if in.logical == nil || in.isNum || in.isBool != old.isBool {
				return nil, nil, nil, fmt.Errorf("input %s: the kernel was compiled for a value of type %s", n, q.types[n])
			}
		}
		repl[n] = in
	}
	if !q.opts.NoShapeCheck {
		if err := q.shapes.check(q.name, dims); err != nil {
			return nil, nil, nil, err
		}
		if err := q.checkProducts(k.plan.req, dims); err != nil {
			return nil, nil, nil, err
		}
	}
	out := make(map[string]sdql.Value, len(k.plan.Bindings))
	for n, v := range k.plan.Bindings {
		out[n] = v
	}
	for n, in := range repl {
		switch {
		case in.tensor != nil && q.opts.Opt == "none":
			out[n] = formats.ToValue(in.tensor)
		case in.tensor != nil:
			// validated by convertInput, unless Options.NoValidate trusts it
			b, err := formats.BindTrusted(in.tensor, n)
			if err != nil {
				return nil, nil, nil, fmt.Errorf("input %s: %v", n, err)
			}
			for name, v := range b {
				out[name] = v
			}
		default:
			out[n] = in.logical
		}
	}
	return out, dims, repl, nil
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
