package crosscheck

import (
	"fmt"
	"sort"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// binding is one storage of a case's inputs, described the way the
// pipeline needs it (as cmd/nablasd binds --in files).
type binding struct {
	tensors map[string]*formats.Tensor
	logical map[string]sdql.Value // the inputs as stored (formats.ToValue), and s
	phys    map[string]sdql.Value // the formats' arrays, bound without copying, and s
	cfg     fuse.Config           // inputs, dense, dims, stats, definitions
	desc    string
}

func bind(ts map[string]*formats.Tensor, scalars map[string]sdql.Value) (*binding, error) {
	b := &binding{tensors: ts, logical: map[string]sdql.Value{}, phys: map[string]sdql.Value{}, desc: describe(ts)}
	b.cfg = fuse.Config{Inputs: map[string]sdql.Type{}, Dense: map[string]bool{}, Dims: map[string][]int{}, Stats: fuse.Stats{}}
	for n, v := range scalars {
		b.logical[n], b.phys[n] = v, v
		b.cfg.Inputs[n] = sdql.TypeOfValue(v)
	}
	storage := map[string]fuse.Storage{}
	for n, t := range ts {
		b.logical[n] = formats.ToValue(t)
		b.cfg.Inputs[n] = sdql.Tensor(t.Order())
		b.cfg.Dims[n] = t.Shape
		b.cfg.Stats[n] = t.Fanout()
		if t.Format == formats.Dense || t.Format == formats.DenseCol {
			b.cfg.Dense[n] = true
		}
		storage[n] = fuse.Storage{Format: t.Format, Order: t.Order()}
		arrays, err := formats.Bind(t, n)
		if err != nil {
			return nil, err
		}
		for k, v := range arrays {
			b.phys[k] = v
		}
	}
	defs, types, err := fuse.Definitions(storage)
	if err != nil {
		return nil, err
	}
	b.cfg.Defs, b.cfg.PhysInputs, b.cfg.PhysStats = defs, types, fuse.StatsOf(b.phys)
	return b, nil
}

// outcome is what one variant gave.
type outcome struct {
	variant string
	value   sdql.Value
	err     error
}

// job is a program, or its gradient with respect to wrt, or another
// derivative of it (derive), over a binding.
type job struct {
	prog  sdql.Expr
	wrt   string
	b     *binding
	rules []*fuse.Rule // nil: the built-in rules
	// derive, when set, makes the logical program the job computes from
	// the inputs' types (a product's, whose values the binding holds)
	derive func(types map[string]sdql.Type) (sdql.Expr, error)

	logical sdql.Expr // the logical program --opt none runs, once derived
}

// program returns the program a variant runs and the values it runs over:
// --opt none the logical program (differentiated by ad.Grad) over the
// inputs as stored, otherwise fuse's optimized physical program over the
// arrays.
func (j *job) program(opt string) (sdql.Expr, map[string]sdql.Value, error) {
	if opt == "none" {
		if j.logical == nil {
			g, err := j.derivative(j.b.cfg.Inputs)
			if err != nil {
				return nil, nil, err
			}
			j.logical = g
		}
		return j.logical, j.b.logical, nil
	}
	cfg := j.b.cfg
	cfg.Rules = j.rules
	if opt == "rules" {
		cfg.Opt = "rules"
	}
	// fuse optimizes a derivative; ad differentiates (as the root
	// package's Plan does)
	prog, err := j.derivative(cfg.Inputs)
	if err != nil {
		return nil, nil, err
	}
	if j.wrt != "" || j.derive != nil {
		cfg.InputStage = fuse.StageDifferentiated
	}
	res, err := fuse.Optimize(prog, &cfg)
	if err != nil {
		return nil, nil, err
	}
	return res.Program, j.b.phys, nil
}

// derivative is the logical program the job computes: the program, its
// gradient with respect to wrt (ad.Grad), or what derive makes.
func (j *job) derivative(types map[string]sdql.Type) (sdql.Expr, error) {
	switch {
	case j.derive != nil:
		return j.derive(types)
	case j.wrt != "":
		return ad.Grad(j.prog, j.wrt, types)
	}
	return j.prog, nil
}

// scalarGrad reports whether the job is the gradient of a scalar program
// with respect to a tensor, given on the tensor's stored positions.
func (j *job) scalarGrad() bool {
	if j.wrt == "" || j.derive != nil || j.b.tensors[j.wrt] == nil {
		return false
	}
	info, err := sdql.Check(j.prog, &sdql.CheckConfig{Inputs: j.b.cfg.Inputs})
	return err == nil && info.Result == sdql.RealType
}

// denseShape is the destination shape the CLI gives a compiled gradient:
// the wrt input's shape when it is dense and the program scalar.
func (j *job) denseShape() []int {
	if !j.scalarGrad() {
		return nil
	}
	t := j.b.tensors[j.wrt]
	if t.Format != formats.Dense && t.Format != formats.DenseCol {
		return nil
	}
	return t.Shape
}

// finish completes a scalar program's gradient to the wrt input's stored
// positions, as the gradient API does (ad.OnStoredPositions).
func (j *job) finish(v sdql.Value) sdql.Value {
	if j.scalarGrad() {
		return ad.OnStoredPositions(v, j.b.logical[j.wrt])
	}
	return v
}

// types are the types of values as bound: a tensor's is its order's
// (an empty matrix's dictionary does not show its order), an array's or
// a scalar's its value's.
func (j *job) types(vals map[string]sdql.Value) map[string]sdql.Type {
	types := map[string]sdql.Type{}
	for n, v := range vals {
		types[n] = sdql.TypeOfValue(v)
		if t, ok := j.b.tensors[n]; ok {
			types[n] = sdql.Tensor(t.Order())
		}
	}
	return types
}

// interp runs the reference interpreter on e over vals.
func (j *job) interp(e sdql.Expr, vals map[string]sdql.Value) (sdql.Value, error) {
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: j.types(vals), Strict: true})
	if err != nil {
		return nil, err
	}
	return (&sdql.Interp{}).Run(e, info, vals)
}

// oracle is the reference: the interpreter on the logical program.
func (j *job) oracle() (sdql.Value, error) {
	e, vals, err := j.program("none")
	if err != nil {
		return nil, err
	}
	v, err := j.interp(e, vals)
	if err != nil {
		return nil, err
	}
	return j.finish(v), nil
}

// run runs the job through every optimization level and executor but the
// oracle's, and returns the generated Go kernel case of the fully
// optimized program (nil when it could not be generated; the error is an
// outcome then).
func (j *job) run(goName string) ([]outcome, *gorun.Case) {
	var outs []outcome
	var goCase *gorun.Case
	for _, opt := range []string{"none", "rules", "full"} {
		e, vals, err := j.program(opt)
		if err != nil {
			outs = append(outs, outcome{"--opt " + opt, nil, fmt.Errorf("optimizing: %v", err)})
			continue
		}
		if opt != "none" {
			v, err := j.interp(e, vals)
			outs = append(outs, outcome{"--opt " + opt + " --exec interp", j.finish(v), err})
		}
		v, err := compiled(e, j.types(vals), vals, j.lowering(opt))
		if err == nil {
			v = j.finish(v)
		}
		outs = append(outs, outcome{"--opt " + opt + " --exec compiled", v, err})
		if opt == "full" && goName != "" {
			fs := map[string]lower.Format{}
			for n, t := range j.b.tensors {
				fs[n] = lower.Format{Format: t.Format, Order: t.Order()}
			}
			k, _, err := gorun.Generate(e, j.types(vals), lower.Options{Formats: fs, ResultShape: j.denseShape(), CompletedOn: j.completedOn()},
				gogen.Options{Func: goName, Package: "main"})
			if err != nil {
				outs = append(outs, outcome{"generated Go", nil, fmt.Errorf("generating: %v", err)})
			} else {
				goCase = &gorun.Case{Name: goName, Kernel: k, Inputs: vals}
			}
		}
	}
	return outs, goCase
}

// completedOn is the input whose stored positions the job's result is
// completed to (finish), for lowering: the wrt input of a scalar
// program's gradient.
func (j *job) completedOn() string {
	if j.scalarGrad() {
		return j.wrt
	}
	return ""
}

// lowering is what the compiled kernel of the program optimized at opt
// is told: the dense shape, and for a physical program (not "none", which
// reads the logical values) its inputs' formats and the completion.
func (j *job) lowering(opt string) exec.Options {
	o := exec.Options{ResultShape: j.denseShape()}
	if opt != "none" {
		o.Formats = map[string]lower.Format{}
		for n, t := range j.b.tensors {
			o.Formats[n] = lower.Format{Format: t.Format, Order: t.Order()}
		}
		o.CompletedOn = j.completedOn()
	}
	return o
}

func compiled(e sdql.Expr, types map[string]sdql.Type, vals map[string]sdql.Value, opts exec.Options) (v sdql.Value, err error) {
	k, err := exec.Compile(e, types, opts)
	if err != nil {
		return nil, fmt.Errorf("compiling: %v", err)
	}
	res, err := k.Run(vals)
	if err != nil {
		return nil, fmt.Errorf("running: %v", err)
	}
	return res.Value(), nil
}

// disagreements compares outcomes with the oracle's value as
// dictionaries.
func disagreements(want sdql.Value, outs []outcome) []string {
	var bad []string
	for _, o := range outs {
		switch {
		case o.err != nil:
			bad = append(bad, fmt.Sprintf("%s: %v", o.variant, o.err))
		default:
			if d := sdql.DiffDicts(o.value, want, 1e-9); d != "" {
				bad = append(bad, fmt.Sprintf("%s: %s, the interpreter on the logical program %s (%s)",
					o.variant, sdql.FormatValue(o.value), sdql.FormatValue(want), d))
			}
		}
	}
	sort.Strings(bad)
	return bad
}
