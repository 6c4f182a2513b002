package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// optModes are the values of --opt.
var optModes = map[string]string{
	"full":  "", // sparsity propagation, rewrite strategies, equality saturation, storage fusion, normalization
	"rules": "rules",
	"none":  "none", // no optimizer: the logical program over logical values
}

// plan is a program ready to run: the program and its inputs' values.
type plan struct {
	prog   sdql.Expr
	info   *sdql.Info
	values map[string]sdql.Value
	result *fuse.Result // nil with --opt none
}

// prepare turns the loaded program (its derivative d when d is not nil)
// into the program that runs: with --opt none the logical program over
// the logical values, otherwise fuse's optimized physical program over the
// storage formats' arrays, bound without copying.
func prepare(p *program, d *derivation, opt string) (*plan, error) {
	mode, ok := optModes[opt]
	if !ok {
		return nil, usagef("--opt %q: want full, rules or none", opt)
	}
	if mode == "none" {
		e := p.expr
		if d != nil {
			e = d.expr
		}
		return p.checked(e, p.logicalValues())
	}
	var res *fuse.Result
	var phys map[string]sdql.Value
	var err error
	if d != nil && d.optimized != nil && d.opt == mode {
		res = d.optimized // choosing the mode optimized it
		_, phys, err = p.fuseConfig(nil, mode)
	} else {
		res, phys, err = p.optimize(d, mode)
	}
	if err != nil {
		return nil, err
	}
	pl, err := p.checked(res.Program, phys)
	if err != nil {
		return nil, err
	}
	pl.result = res
	return pl, nil
}

// optimize runs fuse's pipeline over the program and its bound inputs; it
// returns the physical bindings the optimized program runs over.
func (p *program) optimize(d *derivation, mode string) (*fuse.Result, map[string]sdql.Value, error) {
	cfg, phys, err := p.fuseConfig(d, mode)
	if err != nil {
		return nil, nil, err
	}
	res, err := fuse.Optimize(p.expr, cfg)
	if err != nil {
		return nil, nil, p.withFile(err)
	}
	return res, phys, nil
}

// checked type-checks a program that is about to run over values.
func (p *program) checked(e sdql.Expr, values map[string]sdql.Value) (*plan, error) {
	types := map[string]sdql.Type{}
	for n, v := range values {
		types[n] = sdql.TypeOfValue(v)
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{File: p.name, Inputs: types, Strict: true})
	if err != nil {
		return nil, fmt.Errorf("internal error: the program to run does not type-check: %v\n%s", err, sdql.Print(e))
	}
	return &plan{prog: e, info: info, values: values}, nil
}

// fuseConfig describes the bound inputs to the optimizer: their logical
// types and sizes, which are dense, and each tensor's storage definition;
// it also returns the physical bindings the optimized program runs over.
// A derivation's program is what fuse optimizes, as its differentiation
// step (fuse does not differentiate itself).
func (p *program) fuseConfig(d *derivation, mode string) (*fuse.Config, map[string]sdql.Value, error) {
	cfg := &fuse.Config{Inputs: p.types(), Opt: mode, Dense: map[string]bool{},
		Dims: map[string][]int{}, Stats: p.stats()}
	if d != nil {
		cfg.Wrt = strings.Join(d.wrt, ",")
		cfg.Grad = func(sdql.Expr, string, map[string]sdql.Type) (sdql.Expr, error) { return d.expr, nil }
	}
	storage := map[string]fuse.Storage{}
	phys := map[string]sdql.Value{}
	names := make([]string, 0, len(p.inputs))
	for n := range p.inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		in := p.inputs[n]
		if in.tensor == nil {
			phys[n] = p.values[n]
			continue
		}
		storage[n] = fuse.Storage{Format: in.tensor.Format, Order: in.tensor.Order()}
		cfg.Dims[n] = in.tensor.Shape
		if in.tensor.Format == formats.Dense || in.tensor.Format == formats.DenseCol {
			cfg.Dense[n] = true
		}
		b, err := formats.Bind(in.tensor, n)
		if err != nil {
			return nil, nil, fmt.Errorf("--in %s: %v", n, err)
		}
		for k, v := range b {
			if _, clash := p.inputs[k]; clash {
				return nil, nil, fmt.Errorf("--in %s: its storage array %s has the name of another input; rename one of them", n, k)
			}
			phys[k] = v
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

// stats measures the inputs for the optimizer's cost model (fuse.StatsOf
// of their logical values), tensors from their storage.
func (p *program) stats() fuse.Stats {
	st := fuse.StatsOf(p.values)
	for n, in := range p.inputs {
		if in.tensor != nil {
			st[n] = in.tensor.Fanout()
		}
	}
	return st
}
