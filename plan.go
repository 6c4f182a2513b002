package nablasd

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// Stage is one program of the pipeline, named as `nablasd plan` prints it:
// logical, differentiated, sparsity, saturated (or simplified), composed,
// normalized.
type Stage = fuse.Stage

// Plan is the pipeline of one program (the value, a gradient, or what a
// Derivative asks for) up to the program that runs.
type Plan struct {
	// Wrt is the input a single gradient is taken with respect to ("" for
	// the value, and for a plan with several results or a product).
	Wrt string
	// Mode is the mode that differentiated (ad.ModeAuto for the value
	// alone); ModeChoice says how Options.Mode "auto" chose it, with the
	// estimated costs when it compared both ("" otherwise).
	Mode       ad.Mode
	ModeChoice string
	// Outputs describes the results of a derivative's program (nil for
	// the value): several (a value and gradients from one run) make a
	// bundle that Kernel.Split takes apart.
	Outputs *ad.Outputs
	// Stages are every program of the pipeline, in order: the logical
	// program, its derivative, and the optimizer's stages.
	Stages []Stage
	// Program is the last stage: the program that runs, over Bindings
	// (the formats' arrays, bound without copying, and the scalars; the
	// inputs' logical values with Options.Opt "none"). Info is its check.
	Program  sdql.Expr
	Info     *sdql.Info
	Bindings map[string]sdql.Value
	// Fuse is the optimizer's result (its reports and rule firings); nil
	// with Options.Opt "none".
	Fuse *fuse.Result
	// Loops is Program lowered to the loop IR, what the compiled kernel
	// runs (lower.Print prints it); nil with Options.Exec "interp".
	Loops *lower.Program
	// EqualModes are the modes of the tensor inputs the shape check
	// found of equal extents (lower.Options.EqualModes, as the kernels
	// are lowered with; nil with Options.NoShapeCheck): for a caller
	// that lowers Program itself (bench) to get the kernel users get.
	EqualModes [][]lower.Mode
	// Times are the steps of making the plan, in order: structure
	// (Prepare's hoisting and sharing), differentiate, optimize, check,
	// lower (Kernel.Times adds compiling's).
	Times []StageTime
	// derivative is the differentiated (or the logical) program: the one
	// whose result the run computes, before optimization
	derivative sdql.Expr
	// req is what the plan computes
	req *request
	// loopsShape is the dense result shape Loops was lowered with
	loopsShape []int
	// Passes is the loop IR as lowering built it and after each pass
	// that ran, with Options.TracePasses (nil otherwise).
	Passes []PassStep
}

// A PassStep is the loop IR after one lowering pass (Options.TracePasses).
type PassStep struct {
	// Pass names the pass (lower.Passes), or lower.BuildStep for the
	// program as lowering built it, before the first pass.
	Pass string
	// Loops is the IR after the pass, as lower.Print prints it.
	Loops string
}

// A StageTime is the time a step of the pipeline took: wall clock, and
// the process's CPU time meanwhile (all its goroutines'; 0 where the
// system does not tell), which other work on a busy machine does not
// inflate.
type StageTime struct {
	Stage        string
	Elapsed, CPU time.Duration
}

// stageClock times consecutive steps.
type stageClock struct {
	wall    time.Time
	cpu     time.Duration
	elapsed []StageTime
}

func startClock() *stageClock { return &stageClock{wall: time.Now(), cpu: processCPU()} }

// lap records the step since the last lap (or the start), less the
// time of except (a part of it another step accounts for).
func (c *stageClock) lap(stage string, except StageTime) StageTime {
	now, cpu := time.Now(), processCPU()
	st := StageTime{stage, now.Sub(c.wall) - except.Elapsed, cpu - c.cpu - except.CPU}
	c.elapsed = append(c.elapsed, st)
	c.wall, c.cpu = now.Add(-except.Elapsed), cpu-except.CPU
	return st
}

// String prints every stage, each after a line "-- stage: NAME", then the
// optimizer's reports and warnings as "--" lines, and for a derivative the
// mode that computed it ("-- mode: reverse (auto; estimated cost ...)"):
// what `nablasd plan` prints.
func (p *Plan) String() string {
	var b strings.Builder
	for _, s := range p.Stages {
		fmt.Fprintf(&b, "-- stage: %s\n%s\n", s.Name, sdql.Print(s.Program))
	}
	if p.Loops != nil {
		fmt.Fprintf(&b, "-- stage: loops\n%s", lower.Print(p.Loops))
	}
	if p.Fuse != nil {
		b.WriteString(p.Fuse.Notes())
	}
	if p.Outputs != nil {
		fmt.Fprintf(&b, "-- mode: %s", p.Mode)
		if p.ModeChoice != "" {
			fmt.Fprintf(&b, " (auto; %s)", p.ModeChoice)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// Plan returns the pipeline of the program's value, or of its gradients
// with respect to the inputs named: parse, check, differentiate (ad, in
// Options.Mode), optimize (fuse, over the inputs' storage formats).
// Several inputs make one program with several results (Plan.Outputs).
func (q *Query) Plan(wrt ...string) (*Plan, error) {
	r, err := q.gradRequest(wrt)
	if err != nil {
		return nil, err
	}
	return q.planFor(r)
}

// PlanDerivative returns the pipeline of what d asks for (see Derivative).
func (q *Query) PlanDerivative(d *Derivative) (*Plan, error) {
	r, err := q.request(d)
	if err != nil {
		return nil, err
	}
	return q.planFor(r)
}

// planFor is the plan of a checked request, cached unless it carries
// values (a product's).
func (q *Query) planFor(r *request) (*Plan, error) {
	key, cached := r.key()
	if !cached {
		return q.with(r).plan(r)
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	if p := q.plans[key]; p != nil {
		return p, nil
	}
	p, err := q.plan(r)
	if err != nil {
		return nil, err
	}
	q.plans[key] = p
	return p, nil
}

func (q *Query) inputList() string {
	names := q.InputNames()
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// plan runs the pipeline: the one place that assembles it (the
// derivative: derive).
func (q *Query) plan(r *request) (*Plan, error) {
	p := &Plan{Stages: []Stage{{Name: fuse.StageLogical, Program: q.prog}}, req: r,
		Times: []StageTime{q.structureTime}, EqualModes: q.equalModes()}
	clock := startClock()
	defer func() { p.Times = append(p.Times, clock.elapsed...) }()
	if q.structured != q.prog {
		p.Stages = append(p.Stages, Stage{Name: StageStructured, Program: q.structured})
	}
	prog := q.structured
	var optimized *fuse.Result
	if r.kind != "value" {
		d, err := q.derive(r)
		if err != nil {
			return nil, err
		}
		prog, optimized = d.prog, d.optimized
		p.Mode, p.ModeChoice, p.Outputs = d.mode, d.choice, d.outputs
		if r.kind == "grad" && !d.outputs.Bundled() {
			p.Wrt = r.wrt[0]
		}
		p.Stages = append(p.Stages, d.stages...)
		p.Stages = append(p.Stages, Stage{Name: fuse.StageDifferentiated, Program: prog})
		// choosing the mode optimized both modes' programs: that is
		// optimizing's time
		clock.lap("differentiate", d.optimizing)
	}
	p.derivative = prog
	if q.opts.Opt == "none" {
		p.Program = prog
		if !q.planOnly {
			p.Bindings = q.logicalValues()
		}
	} else {
		cfg, phys, err := q.fuseConfig()
		if err != nil {
			return nil, err
		}
		res := optimized
		if res == nil {
			if r.kind != "value" {
				cfg.InputStage = fuse.StageDifferentiated
			}
			if res, err = fuse.Optimize(prog, cfg); err != nil {
				return nil, q.withFile(err)
			}
		}
		p.Fuse = res
		p.Stages = append(p.Stages, res.Stages[1:]...)
		p.Program, p.Bindings = res.Program, phys
	}
	clock.lap("optimize", StageTime{})
	if q.planOnly {
		return p, nil
	}
	types := make(map[string]sdql.Type, len(p.Bindings))
	for n, v := range p.Bindings {
		types[n] = sdql.TypeOfValue(v)
		if in := q.inputs[n]; in != nil && in.tensor != nil {
			// a tensor's type is its order's, whatever its value shows (an
			// empty matrix's dictionary looks like any dictionary)
			types[n] = sdql.Tensor(in.tensor.Order())
		}
	}
	info, err := sdql.Check(p.Program, &sdql.CheckConfig{File: q.name, Inputs: types, Strict: true})
	if err != nil {
		return nil, fmt.Errorf("internal error: the program to run does not type-check: %v\n%s", err, sdql.Print(p.Program))
	}
	p.Info = info
	clock.lap("check", StageTime{})
	if q.opts.Exec != "interp" {
		p.loopsShape = q.denseResultShape(p)
		var trace func(string, *lower.Program)
		if q.opts.TracePasses {
			trace = func(pass string, lp *lower.Program) {
				p.Passes = append(p.Passes, PassStep{Pass: pass, Loops: lower.Print(lp)})
			}
		}
		loops, err := q.lowerPlan(p, p.loopsShape, trace)
		if err != nil {
			return nil, err
		}
		p.Loops = loops
		clock.lap("lower", StageTime{})
	}
	return p, nil
}

// logicalValues returns the inputs' logical values: the scalars, the
// logical dictionaries, and each tensor as its dictionary (formats.ToValue,
// several times the memory of its storage: built only for Opt "none").
func (q *Query) logicalValues() map[string]sdql.Value {
	out := map[string]sdql.Value{}
	for n, in := range q.inputs {
		if in.tensor != nil {
			out[n] = formats.ToValue(in.tensor)
		} else {
			out[n] = in.logical
		}
	}
	return out
}

// fuseConfig describes the bound inputs to the optimizer: their logical
// types and sizes, which are dense, and each tensor's storage definition;
// it also returns the physical bindings the optimized program runs over.
func (q *Query) fuseConfig() (*fuse.Config, map[string]sdql.Value, error) {
	cfg := &fuse.Config{Inputs: q.types, Opt: q.opts.Opt, Dense: map[string]bool{}, Dims: q.dims(),
		NoHoist: q.opts.NoHoist, NoShare: q.opts.NoShare}
	if cfg.Opt == "full" {
		cfg.Opt = ""
	}
	storage := map[string]fuse.Storage{}
	scalars := map[string]sdql.Value{}
	phys := map[string]sdql.Value{}
	names := make([]string, 0, len(q.inputs))
	for n := range q.inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		in := q.inputs[n]
		if in.tensor == nil {
			scalars[n], phys[n] = in.logical, in.logical
			continue
		}
		storage[n] = fuse.Storage{Format: in.tensor.Format, Order: in.tensor.Order()}
		if in.dense() {
			cfg.Dense[n] = true
		}
		// validated by convertInput, unless Options.NoValidate trusts it
		b, err := formats.BindTrusted(in.tensor, n)
		if err != nil {
			return nil, nil, fmt.Errorf("input %s: %v", n, err)
		}
		for k, v := range b {
			if _, clash := q.inputs[k]; clash {
				return nil, nil, fmt.Errorf("input %s: its storage array %s has the name of another input; rename one of them", n, k)
			}
			phys[k] = v
		}
	}
	cfg.Stats = fuse.StatsOf(scalars)
	for n, in := range q.inputs {
		if in.tensor != nil {
			cfg.Stats[n] = in.tensor.Fanout()
		}
	}
	if len(storage) > 0 {
		defs, types, err := fuse.Definitions(storage)
		if err != nil {
			return nil, nil, err
		}
		cfg.Defs, cfg.PhysInputs = defs, types
		cfg.PhysStats = fuse.StatsOf(phys)
	}
	return cfg, phys, nil
}
