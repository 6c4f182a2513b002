package main

import (
	"flag"
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// diffFlags are the flags that say what grad, plan and gen differentiate,
// beside --wrt.
type diffFlags struct {
	mode  string
	value bool
	vjp   inputFlags
	jvp   inputFlags
	hvp   inputFlags
}

func (f *diffFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.mode, "mode", "auto", "differentiation mode: auto, forward or reverse")
	fs.BoolVar(&f.value, "value", false, "also compute the program's value, in the same run")
	fs.Var(&f.vjp, "vjp", "vector–Jacobian product: bind the cotangent, of the result's type, to `NAME=VALUE` (NAME a new variable)")
	fs.Var(&f.jvp, "jvp", "Jacobian–vector product: the tangent of the input NAME is `NAME=VALUE` (repeatable; other inputs' are zero)")
	fs.Var(&f.hvp, "hvp", "Hessian–vector product of a program with a real result: with respect to the input NAME, in the direction `NAME=VALUE`")
}

// derivation is what a command differentiates: the logical derivative
// program and its results.
type derivation struct {
	kind    string   // "grad", "vjp", "jvp" or "hvp"
	wrt     []string // the inputs it is taken with respect to (grad, vjp, hvp)
	mode    ad.Mode  // the mode that built it (resolved from auto)
	expr    sdql.Expr
	outputs *ad.Outputs
	// stages are ad's stages of reverse mode, for plan.
	stages []fuse.Stage
	// optimized is fuse's result for the program under optimizations opt,
	// when choosing the mode already optimized it.
	optimized *fuse.Result
	opt       string
	// why says how auto chose the mode, for plan.
	why string
}

// label names result i in the output: "value", or the kind and the input.
func (d *derivation) label(i int) string {
	n := d.outputs.Names[i]
	if n == "value" {
		return n
	}
	if d.kind == "jvp" {
		return "jvp"
	}
	return d.kind + " " + n
}

// differentiate builds the derivative the flags ask for, or returns nil
// when there is none (no --wrt, --vjp, --jvp or --hvp). It is the one place
// where the mode is chosen (chooseMode), which for --mode auto may
// optimize both candidates as --opt says. The values of --vjp, --jvp and --hvp become inputs of the
// program: the cotangent under its NAME, a tangent of x as x_dot, a
// direction for x as x_dir.
func (p *program) differentiate(c *common, f *diffFlags) (*derivation, error) {
	opt, ok := optModes[c.opt]
	if !ok {
		return nil, usagef("--opt %q: want full, rules or none", c.opt)
	}
	mode, err := ad.ParseMode(f.mode)
	if err != nil {
		return nil, usagef("--mode: %v", err)
	}
	var wrt []string
	if c.wrt != "" {
		for _, w := range strings.Split(c.wrt, ",") {
			w = strings.TrimSpace(w)
			if !p.isInput(w) {
				return nil, fmt.Errorf("--wrt %s: %s is not an input of the program (its inputs: %s)", w, w, inputList(p))
			}
			wrt = append(wrt, w)
		}
	}
	kinds := 0
	for _, n := range []int{len(f.vjp), len(f.jvp), len(f.hvp)} {
		if n > 0 {
			kinds++
		}
	}
	switch {
	case kinds > 1:
		return nil, usagef("give one of --vjp, --jvp and --hvp")
	case len(f.jvp) > 0 || len(f.hvp) > 0:
		if len(wrt) > 0 {
			return nil, usagef("--jvp and --hvp name their inputs themselves: leave out --wrt")
		}
	case len(wrt) == 0:
		if len(f.vjp) > 0 {
			return nil, usagef("--vjp needs --wrt NAME[,NAME...]: the inputs whose cotangents to compute")
		}
		if f.value {
			return nil, usagef("--value goes with a derivative: give --wrt, --vjp or --jvp")
		}
		return nil, nil
	}
	d := &derivation{wrt: wrt, mode: mode}
	types := p.types()
	switch {
	case len(f.jvp) > 0:
		return p.jvp(d, f, types)
	case len(f.hvp) > 0:
		return p.hvp(d, f, types)
	}
	req := &ad.Request{Wrt: wrt, Value: f.value, Dense: map[string]bool{}, Dims: p.dims()}
	for n, ds := range p.denseInputs() {
		req.Dense[n] = ds
	}
	d.kind = "grad"
	if len(f.vjp) > 0 {
		if len(f.vjp) > 1 {
			return nil, usagef("--vjp is given once: the cotangent of the program's result")
		}
		name, err := p.bindExtra("--vjp", f.vjp[0], "")
		if err != nil {
			return nil, err
		}
		req.Cotangent, d.kind = name, "vjp"
		types = p.types()
		types[name] = p.info.Result
		if d.mode == ad.ModeForward {
			return nil, usagef("--vjp needs reverse mode (--mode reverse or auto)")
		}
	}
	if d.mode != ad.ModeAuto {
		return p.derive(d, req, types)
	}
	return p.chooseMode(d, req, types, opt)
}

// derive builds d's program for req in d's mode.
func (p *program) derive(d *derivation, req *ad.Request, types map[string]sdql.Type) (*derivation, error) {
	if d.mode == ad.ModeReverse {
		st, err := ad.Reverse(p.expr, req, types)
		if err != nil {
			return nil, p.withFile(err)
		}
		d.expr, d.outputs = st.Result, &st.Outputs
		d.stages = []fuse.Stage{{Name: "anf", Program: st.ANF}, {Name: "linearized", Program: st.Linearized},
			{Name: "unzipped", Program: st.Unzipped}, {Name: "transposed", Program: st.Transposed}}
		return d, nil
	}
	var err error
	if d.expr, d.outputs, _, err = ad.Derive(p.expr, req, ad.ModeForward, types); err != nil {
		return nil, p.withFile(err)
	}
	return d, nil
}

// chooseMode resolves --mode auto for a gradient or a VJP. A VJP needs
// reverse mode. Otherwise ad.ChooseMode's static estimate proposes a mode
// (reverse when the result's order is below the wrt inputs'); when the
// program is optimized, both modes' programs are optimized and the one
// with the lower cost in fuse's cost model (fuse.Cost of the program that
// runs, over the bound inputs' sizes) is kept, the proposal on a tie. The
// static estimate knows orders, not the optimizer: the gradient of
// sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b with respect
// to B is a scalar program's, but forward mode's optimized program
// computes A's column sums once where the reverse sweep iterates B(k)
// for every entry of A.
func (p *program) chooseMode(d *derivation, req *ad.Request, types map[string]sdql.Type, opt string) (*derivation, error) {
	if req.Cotangent != "" {
		d.mode = ad.ModeReverse
		return p.derive(d, req, types)
	}
	proposed, err := ad.ChooseMode(p.expr, req.Wrt, types)
	if err != nil {
		return nil, p.withFile(err)
	}
	d.mode = proposed
	if opt == "none" {
		return p.derive(d, req, types)
	}
	other := *d
	other.mode = ad.ModeForward + ad.ModeReverse - proposed
	best, bestCost := (*derivation)(nil), 0.0
	var costs []string
	for _, cand := range []*derivation{d, &other} {
		c, err := p.derive(cand, req, types)
		if err != nil {
			if cand == d {
				return nil, err
			}
			continue // the other mode cannot do it: keep the proposal
		}
		cost, err := p.optimizedCost(c, opt)
		if err != nil {
			return nil, err
		}
		costs = append(costs, fmt.Sprintf("%s %.4g", c.mode, cost))
		if best == nil || cost < bestCost {
			best, bestCost = c, cost
		}
	}
	best.why = "estimated cost " + strings.Join(costs, ", ")
	return best, nil
}

// optimizedCost optimizes d's program under opt, keeps fuse's result in d,
// and returns the result's cost in fuse's cost model over the bound
// inputs.
func (p *program) optimizedCost(d *derivation, opt string) (float64, error) {
	res, phys, err := p.optimize(d, opt)
	if err != nil {
		return 0, err
	}
	d.optimized, d.opt = res, opt
	types := map[string]sdql.Type{}
	for n, v := range phys {
		types[n] = sdql.TypeOfValue(v)
	}
	return fuse.Cost(res.Program, types, fuse.StatsOf(phys)), nil
}

// jvp builds the Jacobian–vector product of --jvp (forward mode).
func (p *program) jvp(d *derivation, f *diffFlags, types map[string]sdql.Type) (*derivation, error) {
	if d.mode == ad.ModeReverse {
		return nil, usagef("--jvp is forward mode (--mode forward or auto)")
	}
	d.kind, d.mode = "jvp", ad.ModeForward
	tangents := map[string]string{}
	for _, s := range f.jvp {
		name, _, _ := strings.Cut(s, "=")
		if !p.isInput(name) {
			return nil, fmt.Errorf("--jvp %s: %s is not an input of the program (its inputs: %s)", s, name, inputList(p))
		}
		if _, dup := tangents[name]; dup {
			return nil, usagef("--jvp %s is given twice", name)
		}
		bound, err := p.bindExtra("--jvp", s, "_dot")
		if err != nil {
			return nil, err
		}
		tangents[name] = bound
		d.wrt = append(d.wrt, name)
	}
	sort.Strings(d.wrt)
	j, err := ad.JVP(p.expr, tangents, types)
	if err != nil {
		return nil, p.withFile(err)
	}
	d.expr = j
	d.outputs = &ad.Outputs{Names: []string{"jvp"}, Types: []sdql.Type{p.info.Result}}
	if f.value {
		d.outputs = &ad.Outputs{Names: []string{"value", "jvp"}, Types: []sdql.Type{p.info.Result, p.info.Result}}
		d.expr = ad.Bundle([]sdql.Expr{p.expr, j}, d.outputs)
	}
	return d, nil
}

// hvp builds the Hessian–vector product of --hvp: forward over reverse
// (--mode reverse or auto) or forward over forward (--mode forward).
func (p *program) hvp(d *derivation, f *diffFlags, types map[string]sdql.Type) (*derivation, error) {
	if len(f.hvp) > 1 {
		return nil, usagef("--hvp is given once: the input and the direction")
	}
	if f.value {
		return nil, usagef("--value goes with a gradient, a VJP or a JVP, not with --hvp")
	}
	s := f.hvp[0]
	name, _, _ := strings.Cut(s, "=")
	if !p.isInput(name) {
		return nil, fmt.Errorf("--hvp %s: %s is not an input of the program (its inputs: %s)", s, name, inputList(p))
	}
	dir, err := p.bindExtra("--hvp", s, "_dir")
	if err != nil {
		return nil, err
	}
	d.kind, d.wrt = "hvp", []string{name}
	var h sdql.Expr
	if d.mode == ad.ModeForward {
		g, err := ad.Grad(p.expr, name, types)
		if err != nil {
			return nil, p.withFile(err)
		}
		h, err = ad.JVP(g, map[string]string{name: dir}, types)
		if err != nil {
			return nil, p.withFile(err)
		}
	} else {
		d.mode = ad.ModeReverse
		if h, err = ad.HVP(p.expr, name, dir, types); err != nil {
			return nil, p.withFile(err)
		}
	}
	d.expr = h
	d.outputs = &ad.Outputs{Names: []string{name}, Types: []sdql.Type{types[name]}}
	return d, nil
}

// bindExtra loads the value of --vjp, --jvp or --hvp NAME=VALUE and binds
// it as an input of the program: under NAME itself when suffix is "" (a
// new variable), else under NAME+suffix (or a variant not taken). It
// returns the name bound.
func (p *program) bindExtra(flagName, s, suffix string) (string, error) {
	name, val, ok := strings.Cut(s, "=")
	if !ok || name == "" || val == "" {
		return "", usagef("%s %q: want NAME=VALUE", flagName, s)
	}
	bound := name
	if suffix != "" {
		bound = name + suffix
		for i := 2; p.inputs[bound] != nil || p.taken(bound); i++ {
			bound = fmt.Sprintf("%s%s%d", name, suffix, i)
		}
	} else if p.inputs[bound] != nil || p.taken(bound) {
		return "", usagef("%s %s: %s is already a name of the program; give the cotangent a new name", flagName, s, name)
	}
	in, err := parseInput(bound + "=" + val)
	if err != nil {
		return "", fmt.Errorf("%s %s: %v", flagName, s, err)
	}
	p.inputs[bound] = in
	if in.tensor == nil {
		p.values[bound] = sdql.Real(in.number)
	}
	return bound, nil
}

// isInput reports whether name is a bound input or, when none is bound
// (plan of a program alone), a free variable of the program.
func (p *program) isInput(name string) bool {
	if _, ok := p.inputs[name]; ok {
		return true
	}
	if len(p.inputs) > 0 {
		return false
	}
	_, ok := p.info.Free[name]
	return ok
}

// taken reports whether the program uses name, bound or free.
func (p *program) taken(name string) bool {
	found := false
	sdql.Inspect(p.expr, func(e sdql.Expr) bool {
		switch x := e.(type) {
		case *sdql.Ident:
			found = found || x.Name == name
		case *sdql.SumExpr:
			found = found || x.Key.Name == name || x.Val.Name == name
		case *sdql.LetExpr:
			for _, b := range x.Names {
				found = found || b.Name == name
			}
		}
		return !found
	})
	return found
}
