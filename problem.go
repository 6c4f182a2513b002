package nablasd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
	"gonum.org/v1/gonum/optimize"
)

// Problem is the minimization of a query's real-valued program (its loss)
// over some of its inputs (its parameters), as gonum's optimize package
// states one: a point x is the parameters' stored values one after the
// other (Params says where each is), and the embedded optimize.Problem's
// Func and Grad give the loss and its gradient there. Func and Grad at one
// point share one run of one kernel, compiled once, that computes the
// value and every gradient together (Query.CompileDerivative with Value);
// the parameters are copied once into storage the kernel is bound to, and
// each new point is written there in place, so a run neither binds nor
// allocates. The kernel tiers up to native code as any "auto" kernel does
// (Options.Exec, Options.JITAfter).
//
// Status (of the embedded Problem) reports a kernel run that failed, a
// loss of −∞ (unbounded below: a diverging fit), a method that asks for
// the same point over and over, and, under Minimize, a cancelled context:
// gonum then stops, and its result holds the last iterate it accepted.
// Other values that are not finite (+∞, NaN) go to the method: Minimize's
// line searches shorten a step that meets them, and an iterate that has
// them stops the fit as diverged.
//
// A Problem is used by one goroutine at a time; Problems of one kernel
// (With) may run on several at once.
type Problem struct {
	optimize.Problem

	k      *Kernel
	params []*param
	dim    int
	b      bound
	dst    *Result
	layout *bundleLayout // nil: the bundle is read through its entries

	// x0 is the start; x the point of the last run, with its loss and
	// gradient (valid when have)
	x0   []float64
	x, g []float64
	f    float64
	have bool
	runs int
	// err is a failed run or a non-finite loss or gradient, reported by
	// Status; ctx is Minimize's
	err error
	ctx context.Context
	// iteration is the current iteration (Minimize), for messages
	iteration int
	// hits counts the calls of Func and Grad at the point of the last
	// run since it ran; past stallHits the method is stalled
	hits    int
	stalled bool
	// ls is the line search of the running Minimize (nil: none)
	ls *backoff
}

// stallHits is how many calls of Func and Grad at one point (each
// evaluation asks both, and a line search may ask a point's gradient
// after its value) show a method that asks for the same point over and
// over: it can make no more progress.
const stallHits = 8

// errStalled is Status's error for a stalled method: the fit stops
// without an error, not converged.
var errStalled = errors.New("the line search asks for the same point over and over")

// param is one parameter: where its values are in a point, and its
// storage (a copy of the input's tensor, bound to the kernel) or, for a
// number, none.
type param struct {
	Param
	tensor *formats.Tensor
	// src gives, for each stored value, its offset in the dense bundle's
	// array (nil: contiguous from start); pos maps a key's row-major
	// index over Shape to its stored position (nil: the identity), for
	// reading the bundle through its entries
	start  int
	src    []int
	pos    map[int][]int
	coords [][]int // the stored values' keys, while the layout is worked out
}

// Param is one parameter of a Problem: an input of the program whose
// stored values are X[Offset : Offset+Len] of the problem's points, in
// its storage order (row-major for a dense tensor).
type Param struct {
	Name        string
	Offset, Len int
	// Shape and Format are the input's, for a tensor; nil and the zero
	// Format for a number.
	Shape  []int
	Format formats.Format
}

// Problem returns the minimization of the program over the inputs named
// in wrt, its parameters, starting from their values as bound. The
// program's result must be a real number; each parameter a tensor of
// reals in any storage format (its stored values are the parameter's:
// a sparse tensor keeps its sparsity) or a real number. The inputs are
// not changed: the problem copies the parameters.
func (q *Query) Problem(wrt ...string) (*Problem, error) {
	if err := q.checkFit(wrt); err != nil {
		return nil, err
	}
	k, err := q.CompileDerivative(&Derivative{Wrt: wrt, Value: true})
	if err != nil {
		return nil, err
	}
	start := Inputs{}
	for _, w := range wrt {
		in := q.inputs[w]
		if in.tensor != nil {
			start[w] = in.tensor
		} else {
			start[w] = in.number
		}
	}
	return newProblem(k, wrt, start)
}

// checkFit checks that the program is a loss and wrt names parameters.
func (q *Query) checkFit(wrt []string) error {
	if q.planOnly {
		return errors.New("nablasd: a fit needs the program's inputs bound (Prepare was given none)")
	}
	if t := q.info.Result; t != sdql.RealType {
		return &sdql.Error{File: q.name, Pos: q.prog.Pos(),
			Msg: fmt.Sprintf("a fit minimizes a real number, and the program's result is %s (a loss sums it: sum(<i, v> in e) v)", t)}
	}
	if len(wrt) == 0 {
		return errors.New("nablasd: a fit needs the inputs to fit (its parameters)")
	}
	seen := map[string]bool{}
	for _, w := range wrt {
		if seen[w] {
			return fmt.Errorf("wrt %s: given twice", w)
		}
		seen[w] = true
		in := q.inputs[w]
		switch {
		case in == nil:
			return fmt.Errorf("wrt %s: %s is not an input of the program (its inputs: %s)", w, w, q.inputList())
		case in.tensor != nil:
			continue
		case in.isNum:
			if t := sdql.TypeOfValue(in.logical); t != sdql.RealType {
				return fmt.Errorf("wrt %s: the program uses %s as %s; a parameter is a real", w, w, t)
			}
		default:
			return fmt.Errorf("wrt %s: a parameter is a tensor (a dense vector or matrix, a Matrix Market file) or a number, not a %s", w, q.types[w])
		}
	}
	return nil
}

// With returns the same problem over new values of some of the query's
// inputs (a group's, as Kernel.Run takes them: of the kinds and formats
// the kernel was compiled for), starting from the parameters' values
// there, or where inputs does not give them from this problem's start.
// It shares the compiled kernel.
func (p *Problem) With(inputs Inputs) (*Problem, error) {
	start := Inputs{}
	for n, v := range inputs {
		start[n] = v
	}
	for _, pr := range p.params {
		if _, ok := start[pr.Name]; ok {
			continue
		}
		if pr.tensor != nil {
			start[pr.Name] = p.Tensor(pr.Name, p.x0)
		} else {
			start[pr.Name] = p.x0[pr.Offset]
		}
	}
	var wrt []string
	for _, pr := range p.params {
		wrt = append(wrt, pr.Name)
	}
	return newProblem(p.k, wrt, start)
}

// newProblem binds a value-and-gradients kernel to inputs, the parameters
// among them copied.
func newProblem(k *Kernel, wrt []string, inputs Inputs) (*Problem, error) {
	p := &Problem{k: k}
	bind := Inputs{}
	for n, v := range inputs {
		bind[n] = v
	}
	for _, w := range wrt {
		pr := &param{Param: Param{Name: w, Offset: p.dim}}
		switch v := inputs[w].(type) {
		case *formats.Tensor:
			c := *v
			c.Val = slices.Clone(v.Val)
			pr.tensor, pr.Len, pr.Shape, pr.Format = &c, len(c.Val), slices.Clone(c.Shape), c.Format
			bind[w] = &c
		case sdql.Real:
			pr.Len = 1
			bind[w] = float64(v)
		case float64:
			pr.Len = 1
		default:
			in, err := convertInput(w, v, !k.q.opts.NoValidate)
			if err != nil {
				return nil, err
			}
			if in.tensor == nil {
				return nil, fmt.Errorf("wrt %s: a parameter is a tensor or a number, not a %T", w, v)
			}
			c := *in.tensor
			c.Val = slices.Clone(c.Val)
			pr.tensor, pr.Len, pr.Shape, pr.Format = &c, len(c.Val), slices.Clone(c.Shape), c.Format
			bind[w] = &c
		}
		p.params = append(p.params, pr)
		p.dim += pr.Len
	}
	if p.dim == 0 {
		return nil, fmt.Errorf("wrt %s: the parameters store no values: there is nothing to fit", strings.Join(wrt, ","))
	}
	b, err := k.bind(bind)
	if err != nil {
		return nil, err
	}
	p.b = b
	p.dst = k.NewResult()
	p.x, p.g = make([]float64, p.dim), make([]float64, p.dim)
	p.x0 = make([]float64, p.dim)
	p.read(p.x0)
	if err := p.prepareRead(); err != nil {
		return nil, err
	}
	p.Problem = optimize.Problem{Func: p.fn, Grad: p.grad, Status: p.status}
	return p, nil
}

// Params returns the parameters, in the order of the points' values.
func (p *Problem) Params() []Param {
	out := make([]Param, len(p.params))
	for i, pr := range p.params {
		out[i] = pr.Param
		out[i].Shape = slices.Clone(pr.Shape)
	}
	return out
}

// Dim is the number of values of a point.
func (p *Problem) Dim() int { return p.dim }

// X0 returns the starting point: the parameters' values the problem was
// made with.
func (p *Problem) X0() []float64 { return slices.Clone(p.x0) }

// Runs is the number of kernel runs so far: one per point evaluated,
// however many of Func and Grad asked for it.
func (p *Problem) Runs() int { return p.runs }

// Kernel is the compiled kernel of the value and the gradients.
func (p *Problem) Kernel() *Kernel { return p.k }

// read copies the parameters' current values into x.
func (p *Problem) read(x []float64) {
	for _, pr := range p.params {
		if pr.tensor != nil {
			copy(x[pr.Offset:pr.Offset+pr.Len], pr.tensor.Val)
			continue
		}
		x[pr.Offset] = float64(p.b.bindings[pr.Name].(sdql.Real))
	}
}

// set writes the point x into the parameters' storage, in place: a
// number's binding is replaced (a binding map of the problem's own).
func (p *Problem) set(x []float64) {
	for _, pr := range p.params {
		if pr.tensor != nil {
			copy(pr.tensor.Val, x[pr.Offset:pr.Offset+pr.Len])
			if p.k.q.opts.Opt == "none" {
				// the logical program reads dictionaries, built again
				p.b.bindings[pr.Name] = formats.ToValue(pr.tensor)
			}
			continue
		}
		p.b.bindings[pr.Name] = sdql.Real(x[pr.Offset])
	}
}

// Tensor returns a copy of parameter name's tensor holding the values of
// the point x (its storage order's, at Params' offset): the fitted
// tensor, for a point Minimize returned. It is nil for a number.
func (p *Problem) Tensor(name string, x []float64) *formats.Tensor {
	for _, pr := range p.params {
		if pr.Name == name && pr.tensor != nil {
			c := *pr.tensor
			c.Val = slices.Clone(x[pr.Offset : pr.Offset+pr.Len])
			return &c
		}
	}
	return nil
}

// eval runs the kernel at x unless the last run was there.
func (p *Problem) eval(x []float64) {
	if p.have && slices.Equal(x, p.x) {
		// Func and Grad of one point, or a method asking for the point it
		// has again: gonum's Moré–Thuente can repeat a step for good
		// once its interval stops shrinking in floating point
		if p.hits++; p.hits > stallHits {
			p.stalled = true
		}
		return
	}
	p.hits = 0
	p.set(x)
	copy(p.x, x)
	p.have = true
	p.runs++
	if err := p.k.runBoundAuto(p.dst, p.b); err != nil {
		if p.err == nil {
			p.err = fmt.Errorf("the kernel failed at iteration %d: %v", p.iteration, err)
		}
		p.f = math.NaN()
		for i := range p.g {
			p.g[i] = math.NaN()
		}
		return
	}
	p.readResult()
	if math.IsInf(p.f, -1) && p.err == nil {
		// a loss unbounded below: diverged, whatever the method
		p.err = &DivergedError{Iteration: p.iteration, What: "the loss is -Inf"}
	}
	// any other value not finite goes to the method: a line search
	// shortens its step (backoff), and an iterate is checked (recorder)
}

// nonFinite describes a loss or gradient that is not finite (nil when
// both are).
func (p *Problem) nonFinite(f float64, g []float64) error {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return &DivergedError{Iteration: p.iteration, What: fmt.Sprintf("the loss is %v", f)}
	}
	for i, v := range g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &DivergedError{Iteration: p.iteration, What: fmt.Sprintf("the gradient is %v at %s", v, p.describe(i))}
		}
	}
	return nil
}

// describe names the value at offset i of a point: x[3], U[2,5], b.
func (p *Problem) describe(i int) string {
	for _, pr := range p.params {
		if i < pr.Offset || i >= pr.Offset+pr.Len {
			continue
		}
		if pr.tensor == nil {
			return pr.Name
		}
		if idx, _, err := pr.tensor.Coords(); err == nil {
			var ks []string
			for m := range idx {
				ks = append(ks, fmt.Sprint(idx[m][i-pr.Offset]))
			}
			return pr.Name + "[" + strings.Join(ks, ",") + "]"
		}
		return fmt.Sprintf("%s (stored value %d)", pr.Name, i-pr.Offset)
	}
	return fmt.Sprintf("x[%d]", i)
}

// fn is the Problem's Func.
func (p *Problem) fn(x []float64) float64 {
	p.eval(x)
	return p.f
}

// grad is the Problem's Grad.
func (p *Problem) grad(g, x []float64) {
	p.eval(x)
	copy(g, p.g)
}

// status is the Problem's Status: a failed run, a value that is not
// finite, or Minimize's context cancelled.
func (p *Problem) status() (optimize.Status, error) {
	if p.err != nil {
		return optimize.Failure, p.err
	}
	if p.stalled {
		return optimize.Failure, errStalled
	}
	if p.ctx != nil && p.ctx.Err() != nil {
		return optimize.Failure, p.ctx.Err()
	}
	return optimize.NotTerminated, nil
}

// A DivergedError is a loss or a gradient that is not finite (NaN or
// infinite) at a point of a fit: the fit diverged, or the program is not
// defined there (the log of a negative number).
type DivergedError struct {
	// Iteration is the iteration the point was tried at (0: the start).
	Iteration int
	// What says which value, and where.
	What string
}

func (e *DivergedError) Error() string {
	if e.Iteration == 0 {
		return e.What + " at the start"
	}
	return fmt.Sprintf("%s at a point tried by iteration %d: the fit diverged", e.What, e.Iteration)
}
