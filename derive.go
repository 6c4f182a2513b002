package nablasd

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// Derivative says what a kernel computes from the program besides, or
// instead of, its value (Query.PlanDerivative, Query.CompileDerivative).
// Without Cotangent, Tangents or Direction it is the gradients (whole
// Jacobians for a tensor result) with respect to Wrt.
type Derivative struct {
	// Wrt lists the inputs to differentiate with respect to. In reverse
	// mode their gradients come from one sweep.
	Wrt []string
	// Value asks for the program's value too, from the same run.
	Value bool
	// Cotangent, when set, makes the derivative the vector–Jacobian
	// product: the cotangent (a value of the result's kind and shape, as
	// Inputs takes) times the Jacobian, one result of each Wrt input's
	// type. Reverse mode.
	Cotangent any
	// Tangents, when set, makes the derivative the Jacobian–vector
	// product: the derivative in the direction of the tangents given for
	// some inputs (each of the input's kind and shape; the others' are
	// zero), of the result's type. A tangent is taken on its input's
	// stored positions, as a gradient is given on them: its entries
	// elsewhere are ignored (doc/spec.md, "Derivatives"). Forward mode;
	// Wrt is then empty.
	Tangents Inputs
	// Direction, when set with one Wrt input, makes the derivative the
	// Hessian–vector product of a program with a real result: the
	// derivative of its gradient with respect to Wrt in that direction (of
	// the input's kind and shape, taken on its stored positions as a
	// tangent is), forward over reverse (forward over forward with
	// Options.Mode "forward").
	//
	// The shapes of a Cotangent, Tangents and a Direction stored as
	// tensors are checked as the inputs' are (Options.NoShapeCheck).
	Direction any
}

// request is a checked Derivative (or the value alone, kind "value"),
// with the products' values bound as inputs of the program.
type request struct {
	kind  string // "value", "grad", "vjp", "jvp" or "hvp"
	wrt   []string
	value bool
	// extra binds the products' values: the cotangent, a tangent of x as
	// x_dot, a direction for x as x_dir; cot, tangents and dir name them
	extra    map[string]*input
	cot      string
	tangents map[string]string
	dir      string
}

// key identifies a request in the query's caches; products, which carry
// values, are not cached.
func (r *request) key() (string, bool) {
	switch r.kind {
	case "value":
		return "", true
	case "grad":
		k := strings.Join(r.wrt, ",")
		if r.value {
			k += "+value"
		}
		if len(r.wrt) > 1 || r.value {
			k = "grad:" + k // a single gradient keeps its input's name as key
		}
		return k, true
	}
	return "", false
}

// gradRequest is the request of Plan(wrt...) and Compile(wrt...): the
// value, or the gradients with respect to the inputs named.
func (q *Query) gradRequest(wrt []string) (*request, error) {
	if len(wrt) == 0 {
		return &request{kind: "value"}, nil
	}
	return q.request(&Derivative{Wrt: wrt})
}

// request checks d and binds its values.
func (q *Query) request(d *Derivative) (*request, error) {
	if d == nil {
		return nil, errors.New("nablasd: a nil Derivative")
	}
	products := 0
	for _, set := range []bool{d.Cotangent != nil, len(d.Tangents) > 0, d.Direction != nil} {
		if set {
			products++
		}
	}
	if products > 1 {
		return nil, errors.New("nablasd: a Derivative has one of Cotangent, Tangents and Direction")
	}
	seen := map[string]bool{}
	for _, w := range d.Wrt {
		if seen[w] {
			return nil, fmt.Errorf("wrt %s: given twice", w)
		}
		seen[w] = true
		if _, ok := q.types[w]; !ok {
			return nil, fmt.Errorf("wrt %s: %s is not an input of the program (its inputs: %s)", w, w, q.inputList())
		}
	}
	r := &request{kind: "grad", wrt: append([]string(nil), d.Wrt...), value: d.Value, extra: map[string]*input{}}
	switch {
	case len(d.Tangents) > 0:
		if len(d.Wrt) > 0 {
			return nil, errors.New("nablasd: a Jacobian–vector product names its inputs in Tangents: leave Wrt empty")
		}
		r.kind, r.tangents = "jvp", map[string]string{}
		names := make([]string, 0, len(d.Tangents))
		for n := range d.Tangents {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			if _, ok := q.types[n]; !ok {
				return nil, fmt.Errorf("tangent of %s: %s is not an input of the program (its inputs: %s)", n, n, q.inputList())
			}
			b, err := q.bindExtra(r, n+"_dot", d.Tangents[n], q.types[n])
			if err != nil {
				return nil, fmt.Errorf("tangent of %s: %v", n, err)
			}
			r.tangents[n] = b
			r.wrt = append(r.wrt, n)
		}
		return r, q.checkProducts(r, r.dims(q.dims()))
	case len(d.Wrt) == 0:
		return nil, errors.New("nablasd: a Derivative needs the inputs to differentiate with respect to (Wrt)")
	case d.Cotangent != nil:
		r.kind = "vjp"
		b, err := q.bindExtra(r, "ybar", d.Cotangent, q.info.Result)
		if err != nil {
			return nil, fmt.Errorf("cotangent: %v", err)
		}
		r.cot = b
	case d.Direction != nil:
		if len(d.Wrt) != 1 || d.Value {
			return nil, errors.New("nablasd: a Hessian–vector product is with respect to one input, without the value")
		}
		r.kind = "hvp"
		b, err := q.bindExtra(r, d.Wrt[0]+"_dir", d.Direction, q.types[d.Wrt[0]])
		if err != nil {
			return nil, fmt.Errorf("direction: %v", err)
		}
		r.dir = b
	}
	return r, q.checkProducts(r, r.dims(q.dims()))
}

// dims returns the extents of the tensor inputs with the request's
// products' added.
func (r *request) dims(inputs map[string][]int) map[string][]int {
	d := make(map[string][]int, len(inputs)+len(r.extra))
	for n, s := range inputs {
		d[n] = s
	}
	for n, in := range r.extra {
		if in.tensor != nil {
			d[n] = in.tensor.Shape
		}
	}
	return d
}

// bindExtra converts a product's value and binds it under base, or a
// variant of it that no name of the program or input takes.
func (q *Query) bindExtra(r *request, base string, v any, t sdql.Type) (string, error) {
	name := base
	for i := 2; q.nameTaken(name) || r.extra[name] != nil; i++ {
		name = fmt.Sprintf("%s%d", base, i)
	}
	in, err := convertInput(name, v, !q.opts.NoValidate)
	if err != nil {
		return "", err
	}
	if err := in.resolve(t); err != nil {
		return "", err
	}
	if got := in.typeOf(); got != nil && sdql.Order(got) != sdql.Order(t) {
		return "", fmt.Errorf("a value of type %s, where %s is needed", got, t)
	}
	r.extra[name] = in
	return name, nil
}

// nameTaken reports whether the program (as written or as structured)
// or an input uses name.
func (q *Query) nameTaken(name string) bool {
	if _, ok := q.types[name]; ok {
		return true
	}
	found := false
	for _, prog := range []sdql.Expr{q.prog, q.structured} {
		sdql.Inspect(prog, func(e sdql.Expr) bool {
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
	}
	return found
}

// with returns the query with the request's values bound as inputs too
// (the query itself when there are none): the query a product's plan and
// kernel belong to, with caches of its own.
func (q *Query) with(r *request) *Query {
	if len(r.extra) == 0 {
		return q
	}
	c := &Query{name: q.name, prog: q.prog, structured: q.structured, structureTime: q.structureTime, opts: q.opts, ceiling: q.ceiling,
		inputs: map[string]*input{}, types: map[string]sdql.Type{},
		info: q.info, planOnly: q.planOnly, warnings: q.warnings, shapes: q.shapes,
		plans: map[string]*Plan{}, kernels: map[string]*Kernel{}, parent: q}
	for n, in := range q.inputs {
		c.inputs[n] = in
	}
	for n, t := range q.types {
		c.types[n] = t
	}
	for n, in := range r.extra {
		c.inputs[n] = in
		c.types[n] = in.typeOf()
		if c.types[n] == nil {
			c.types[n] = sdql.TypeOfValue(in.logical)
		}
	}
	return c
}

// derived is the derivative program of a request, with what it computes.
type derived struct {
	prog    sdql.Expr
	stages  []Stage // ad's stages of reverse mode: anf, linearized, unzipped, transposed
	outputs *ad.Outputs
	mode    ad.Mode
	choice  string
	// optimized is fuse's result for prog when choosing the mode needed it
	optimized *fuse.Result
	// optimizing is the time choosing the mode spent in fuse
	optimizing StageTime
}

// derive builds the derivative program of a request: the one place that
// differentiates (package ad) and that chooses the mode (chooseMode).
func (q *Query) derive(r *request) (*derived, error) {
	mode, err := ad.ParseMode(q.opts.Mode)
	if err != nil {
		return nil, err
	}
	d := &derived{mode: mode}
	switch r.kind {
	case "jvp":
		d.mode = ad.ModeForward
		j, err := ad.JVP(q.structured, r.tangents, q.types)
		if err != nil {
			return nil, q.withFile(err)
		}
		d.prog = j
		d.outputs = &ad.Outputs{Names: []string{"jvp"}, Types: []sdql.Type{q.info.Result}}
		if r.value {
			d.outputs = &ad.Outputs{Names: []string{"value", "jvp"}, Types: []sdql.Type{q.info.Result, q.info.Result}}
			d.prog = ad.Bundle([]sdql.Expr{q.structured, j}, d.outputs)
		}
		return d, nil
	case "hvp":
		w := r.wrt[0]
		if mode == ad.ModeForward {
			g, err := ad.Grad(q.structured, w, q.types)
			if err != nil {
				return nil, q.withFile(err)
			}
			d.prog, err = ad.JVP(g, map[string]string{w: r.dir}, q.types)
			if err != nil {
				return nil, q.withFile(err)
			}
		} else {
			d.mode = ad.ModeReverse
			if d.prog, err = ad.HVP(q.structured, w, r.dir, q.types); err != nil {
				return nil, q.withFile(err)
			}
		}
		d.outputs = &ad.Outputs{Names: []string{w}, Types: []sdql.Type{q.types[w]}}
		return d, nil
	}
	req := &ad.Request{Wrt: r.wrt, Value: r.value, Cotangent: r.cot, Dense: map[string]bool{}, Dims: q.dims()}
	for n, in := range q.inputs {
		if in.dense() {
			req.Dense[n] = true
		}
	}
	types := q.types
	if r.cot != "" {
		if mode == ad.ModeForward {
			return nil, errors.New("nablasd: a vector–Jacobian product needs reverse mode (Options.Mode reverse or auto)")
		}
		types = map[string]sdql.Type{}
		for n, t := range q.types {
			if n != r.cot {
				types[n] = t
			}
		}
		mode = ad.ModeReverse
	}
	if mode != ad.ModeAuto {
		return q.deriveIn(d, req, types, mode)
	}
	return q.chooseMode(d, req, types)
}

// deriveIn builds the derivative of req in a mode.
func (q *Query) deriveIn(d *derived, req *ad.Request, types map[string]sdql.Type, mode ad.Mode) (*derived, error) {
	d.mode = mode
	if mode == ad.ModeReverse {
		st, err := ad.Reverse(q.structured, req, types)
		if err != nil {
			return nil, q.withFile(err)
		}
		d.prog, d.outputs = st.Result, &st.Outputs
		d.stages = []Stage{{Name: "anf", Program: st.ANF}, {Name: "linearized", Program: st.Linearized},
			{Name: "unzipped", Program: st.Unzipped}, {Name: "transposed", Program: st.Transposed}}
		return d, nil
	}
	prog, outs, _, err := ad.Derive(q.structured, req, ad.ModeForward, types)
	if err != nil {
		return nil, q.withFile(err)
	}
	d.prog, d.outputs = prog, outs
	return d, nil
}

// reverseMargin is how much cheaper the cost model must estimate reverse
// mode's program than forward mode's for auto to choose reverse mode
// (chooseMode). The model underestimates reverse mode's nested scatters
// in today's executor: BATAx's reverse-mode Jacobian is estimated 1.09×
// forward mode's and runs 45× slower, SMMM's gradient with respect to B
// 1.16× and 70× slower.
const reverseMargin = 1.3

// chooseMode resolves Options.Mode "auto". ad.ChooseMode's static
// estimate proposes a mode: reverse when the result's order is below the
// wrt inputs' (a loss and its parameters), forward otherwise. When the
// program is optimized, both modes' programs are optimized and costed by
// fuse's cost model over the bound inputs' sizes (fuse.Cost of the
// program that runs): forward mode is kept whenever it is estimated
// cheaper, reverse mode only when it is estimated cheaper by more than
// reverseMargin, the proposal on a tie. The orders do not see the
// optimizer: the gradient of
// sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b with
// respect to B is a scalar program's, but forward mode's optimized program
// computes A's column sums once where the reverse sweep builds a
// dictionary over B's positions and restricts it to them; the graph
// Laplacian's forward gradient is one loop. Depth is what the margin does
// not hide: mlp2's forward program is estimated 2.6× reverse mode's (and
// runs 6× slower).
func (q *Query) chooseMode(d *derived, req *ad.Request, types map[string]sdql.Type) (*derived, error) {
	proposed, err := ad.ChooseMode(q.structured, req.Wrt, types)
	if err != nil {
		return nil, q.withFile(err)
	}
	if q.opts.Opt == "none" || q.planOnly && len(q.inputs) == 0 {
		return q.deriveIn(d, req, types, proposed)
	}
	// the inputs' storage, types and sizes, the same for both modes
	cfg, phys, err := q.fuseConfig()
	if err != nil {
		return nil, err
	}
	cfg.InputStage = fuse.StageDifferentiated
	ptypes := map[string]sdql.Type{}
	for n, v := range phys {
		ptypes[n] = sdql.TypeOfValue(v)
	}
	stats := fuse.StatsOf(phys)
	var best *derived
	bestCost := 0.0
	var costs []string
	for _, m := range []ad.Mode{proposed, ad.ModeForward + ad.ModeReverse - proposed} {
		c, err := q.deriveIn(&derived{}, req, types, m)
		if err != nil {
			if m == proposed {
				return nil, err
			}
			continue // the other mode cannot compute it: keep the proposal
		}
		start, cpu := time.Now(), processCPU()
		res, err := fuse.Optimize(c.prog, cfg)
		if err != nil {
			return nil, q.withFile(err)
		}
		d.optimizing.Elapsed += time.Since(start)
		d.optimizing.CPU += processCPU() - cpu
		c.optimized = res
		cost := fuse.Cost(res.Program, ptypes, stats)
		costs = append(costs, fmt.Sprintf("%s %.4g", m, cost))
		margin := 1.0
		if m == ad.ModeReverse {
			margin = reverseMargin
		}
		if best == nil || cost*margin < bestCost {
			best, bestCost = c, cost
		}
	}
	best.choice = "estimated cost " + strings.Join(costs, ", ")
	best.optimizing = d.optimizing
	return best, nil
}
