package nablasd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/nablasd/nablasd/formats"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"
)

// FitOptions configure Minimize. The zero value is L-BFGS to a relative
// gradient of 1e-6, for at most 1000 iterations.
type FitOptions struct {
	// Wrt names the parameters (Query.Minimize; Problem.Minimize has
	// them).
	Wrt []string
	// Method is the optimizer (FitMethods): "lbfgs" (the default: gonum's
	// L-BFGS with SciPy's L-BFGS-B settings, a history of 10 and a
	// Moré–Thuente line search), "bfgs" (a dense inverse Hessian: small
	// problems; Moré–Thuente too), "cg" (nonlinear conjugate gradients), "gd" (gradient
	// descent with a backtracking line search) or "adam" (Adam, steps of
	// LearningRate).
	Method string
	// Tol stops the fit once the gradient's largest magnitude is at most
	// Tol times its largest at the start, ‖∇f(x)‖∞ ≤ Tol·‖∇f(x₀)‖∞: 0
	// means 1e-6, a negative value no such test.
	Tol float64
	// GradTol stops it once ‖∇f(x)‖∞ ≤ GradTol (0: no such test).
	GradTol float64
	// MaxIter bounds the iterations: 0 means 1000, a negative value no
	// bound.
	MaxIter int
	// MaxEval bounds the kernel runs (points evaluated): 0, none.
	MaxEval int
	// Memory is L-BFGS's history (0: 10, as SciPy's L-BFGS-B).
	Memory int
	// LearningRate is Adam's step (0: 1e-3) and gradient descent's first
	// trial step (0: gonum's choice).
	LearningRate float64
	// Progress, when set, is called after every iteration and once at the
	// end (Done set), on the goroutine that called Minimize.
	Progress func(FitProgress)
}

// FitMethods lists the values of FitOptions.Method.
var FitMethods = []string{"lbfgs", "bfgs", "cg", "gd", "adam"}

// FitProgress describes a fit's iteration: what a progress line prints.
type FitProgress struct {
	Iteration int
	// Loss and GradNorm (the gradient's largest magnitude) are the
	// iterate's; Step is the length (Euclidean) of the step that reached
	// it.
	Loss, GradNorm, Step float64
	// Evaluations counts the kernel runs so far.
	Evaluations int
	Elapsed     time.Duration
	// Done marks the last call, after the fit stopped.
	Done bool
}

// Fit is a finished fit: the final iterate and why the fit stopped.
type Fit struct {
	// Params says where each parameter's values are in X.
	Params []Param
	// X is the final iterate, the last one accepted (for a fit stopped
	// by an error, the last good one). Loss and GradNorm are its loss and
	// gradient's largest magnitude; GradNorm0 is the gradient's at the
	// start.
	X                   []float64
	Loss                float64
	GradNorm, GradNorm0 float64
	// Iterations counts the steps taken; Evaluations the kernel runs
	// (each gives the loss and the gradient at a point, however many of
	// gonum's Func and Grad calls it served: FuncEvaluations and
	// GradEvaluations).
	Iterations                       int
	Evaluations                      int
	FuncEvaluations, GradEvaluations int
	// Status is gonum's; Converged says whether the gradient test
	// stopped the fit, and Reason says why it stopped, in a sentence.
	Status    optimize.Status
	Converged bool
	Reason    string
	// Method is the optimizer; Executor what ran the kernel at the end
	// (Kernel.Executor); Elapsed the fit's time.
	Method   string
	Executor string
	Elapsed  time.Duration

	p *Problem
}

// Value returns the fitted values of parameter name, in its storage
// order (a view of X), or nil when it is not a parameter.
func (f *Fit) Value(name string) []float64 {
	for _, pr := range f.Params {
		if pr.Name == name {
			return f.X[pr.Offset : pr.Offset+pr.Len]
		}
	}
	return nil
}

// Tensor returns parameter name fitted: a tensor of the input's shape and
// format holding X's values (nil for a number or an unknown name).
func (f *Fit) Tensor(name string) *formats.Tensor { return f.p.Tensor(name, f.X) }

// Minimize fits the program's parameters (opts.Wrt) from their values as
// bound: Problem, then Problem.Minimize. The inputs are not changed.
func (q *Query) Minimize(ctx context.Context, opts *FitOptions) (*Fit, error) {
	var wrt []string
	if opts != nil {
		wrt = opts.Wrt
	}
	p, err := q.Problem(wrt...)
	if err != nil {
		return nil, err
	}
	return p.Minimize(ctx, opts)
}

// Minimize minimizes the problem from its start (X0) with gonum's
// optimize.Minimize and the method of opts (Adam is nablasd's own
// optimize.Method). The fit stops when the gradient test passes, at an
// iteration or evaluation bound, when the method can make no more
// progress (a line search that finds no lower point: Converged false, no
// error), or with an error: ctx cancelled (wrapping ctx.Err()), a loss
// or gradient that is not finite (a *DivergedError), or a failed run. The
// Fit is returned in every case but bad options, its X the last iterate
// accepted.
func (p *Problem) Minimize(ctx context.Context, opts *FitOptions) (*Fit, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if ctx == nil {
		ctx = context.Background()
	}
	p.ls = nil // the method's line search, if it has one
	method, err := p.method(o)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	p.ctx, p.err, p.iteration, p.hits, p.stalled = ctx, nil, 0, 0, false
	defer func() { p.ctx = nil }()
	fit := &Fit{Params: p.Params(), Method: o.Method, p: p}
	x0 := p.X0()
	runs0 := p.runs
	finish := func(x []float64, err error) (*Fit, error) {
		fit.X = x
		fit.Evaluations = p.runs - runs0
		fit.Executor = p.k.Executor()
		fit.Elapsed = time.Since(start)
		if o.Progress != nil {
			o.Progress(FitProgress{Iteration: fit.Iterations, Loss: fit.Loss, GradNorm: fit.GradNorm,
				Evaluations: fit.Evaluations, Elapsed: fit.Elapsed, Done: true})
		}
		return fit, err
	}

	// the start: its loss and gradient give the gradient test's scale
	p.eval(x0)
	fit.Loss, fit.GradNorm = p.f, floats.Norm(p.g, math.Inf(1))
	fit.GradNorm0 = fit.GradNorm
	if p.err == nil {
		p.err = p.nonFinite(p.f, p.g)
	}
	if err := p.err; err != nil {
		fit.Status, fit.Reason = optimize.Failure, "stopped at the start: "+err.Error()
		return finish(x0, err)
	}
	if err := ctx.Err(); err != nil {
		fit.Status, fit.Reason = optimize.Failure, "cancelled before the first iteration"
		return finish(x0, fmt.Errorf("the fit was cancelled before its first iteration (%w)", err))
	}
	thresh := o.GradTol
	if o.Tol > 0 {
		thresh = max(thresh, o.Tol*fit.GradNorm0)
	}
	if fit.GradNorm0 == 0 || fit.GradNorm0 <= thresh {
		fit.Status, fit.Converged = optimize.GradientThreshold, true
		fit.Reason = fmt.Sprintf("converged at the start: the gradient's largest magnitude is %.4g", fit.GradNorm0)
		return finish(x0, nil)
	}
	rec := &recorder{p: p, progress: o.Progress, start: start, runs0: runs0}
	settings := &optimize.Settings{
		InitValues:        &optimize.Location{F: p.f, Gradient: slices.Clone(p.g)},
		GradientThreshold: math.NaN(), // the test is gradientTest's
		Converger:         gradientTest{thresh},
		MajorIterations:   max(o.MaxIter+1, 0), // gonum counts the start as one
		FuncEvaluations:   max(o.MaxEval, 0),
		GradEvaluations:   max(o.MaxEval, 0),
		Recorder:          rec,
	}
	res, err := optimize.Minimize(p.Problem, x0, settings, method)
	if res == nil || res.Stats.MajorIterations == 0 {
		if err == nil {
			err = errors.New("internal error: gonum's Minimize returned no iterate")
		}
		fit.Status, fit.Reason = optimize.Failure, "stopped at the start: "+err.Error()
		return finish(x0, p.wrap(err, fit))
	}
	fit.Status = res.Status
	fit.Iterations = res.Stats.MajorIterations - 1
	fit.FuncEvaluations, fit.GradEvaluations = res.Stats.FuncEvaluations, res.Stats.GradEvaluations
	fit.Loss, fit.GradNorm = res.F, floats.Norm(res.Gradient, math.Inf(1))
	x := slices.Clone(res.X)
	if rec.diverged != nil {
		// the iterate gonum kept is the one that is not finite: keep the
		// last good one
		p.err = rec.diverged
		x, fit.Loss, fit.GradNorm, fit.Iterations = rec.prev, rec.prevF, rec.prevG, rec.iter
	}
	fit.Reason, fit.Converged = p.reason(res, err, thresh, o, fit)
	if err != nil && (p.err != nil || ctx.Err() != nil) {
		return finish(x, p.wrap(err, fit))
	}
	return finish(x, nil)
}

// wrap turns the error that stopped a fit into the fit's error, saying
// which iterate is kept.
func (p *Problem) wrap(err error, fit *Fit) error {
	if p.err != nil {
		err = p.err
	}
	last := fmt.Sprintf("the last good iterate is iteration %d's (loss %.6g)", fit.Iterations, fit.Loss)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("the fit was stopped at iteration %d (%w); %s", p.iteration, err, last)
	}
	var d *DivergedError
	if errors.As(err, &d) {
		return fmt.Errorf("%w; %s", err, last)
	}
	return fmt.Errorf("%w; %s", err, last)
}

// reason says why gonum stopped, and whether the gradient test did.
func (p *Problem) reason(res *optimize.Result, err error, thresh float64, o FitOptions, fit *Fit) (string, bool) {
	rel := fit.GradNorm / fit.GradNorm0
	where := fmt.Sprintf("the gradient's largest magnitude is %.4g, %.3g of the start's", fit.GradNorm, rel)
	switch {
	case p.err != nil:
		return "stopped: " + p.err.Error(), false
	case p.ctx != nil && p.ctx.Err() != nil:
		return fmt.Sprintf("stopped by cancellation (%v); %s", p.ctx.Err(), where), false
	case res.Status == optimize.GradientThreshold:
		return fmt.Sprintf("converged: %s (at most %.4g)", where, thresh), true
	case res.Status == optimize.IterationLimit:
		return fmt.Sprintf("stopped at the iteration limit (%d) before converging: %s", o.MaxIter, where), false
	case res.Status == optimize.FunctionEvaluationLimit || res.Status == optimize.GradientEvaluationLimit:
		return fmt.Sprintf("stopped at the evaluation limit (%d) before converging: %s", o.MaxEval, where), false
	case p.stalled:
		return fmt.Sprintf("stopped: the %s method can make no more progress (%v): %s%s", o.Method, errStalled, where, p.overflow()), false
	case err != nil:
		return fmt.Sprintf("stopped: the %s method can make no more progress (%v): %s%s", o.Method, err, where, p.overflow()), false
	}
	return fmt.Sprintf("stopped (%v): %s", res.Status, where), false
}

// overflow explains a fit that stopped where its line search met values
// that are not finite ("" when it did not).
func (p *Problem) overflow() string {
	if p.ls == nil || p.ls.lastNonFinite == 0 || p.ls.lastNonFinite < p.ls.searches {
		return ""
	}
	return fmt.Sprintf("; the loss is not finite a step further (%d points, the last in the last line search): the program overflows there (log(1 + exp(z)) does past z ≈ 710, softplus(z) does not)", p.ls.nonFinites)
}

// withDefaults fills in the defaults and checks the options.
func (opts *FitOptions) withDefaults() (FitOptions, error) {
	var o FitOptions
	if opts != nil {
		o = *opts
	}
	if o.Method == "" {
		o.Method = "lbfgs"
	}
	if !contains(FitMethods, o.Method) {
		return o, fmt.Errorf("nablasd: FitOptions.Method %q: want one of %v", o.Method, FitMethods)
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.MaxIter == 0 {
		o.MaxIter = 1000
	}
	if o.Memory == 0 {
		o.Memory = 10
	}
	switch {
	case math.IsNaN(o.Tol) || math.IsNaN(o.GradTol) || o.GradTol < 0:
		return o, fmt.Errorf("nablasd: FitOptions.Tol %v, GradTol %v: want numbers, GradTol at least 0", o.Tol, o.GradTol)
	case o.Memory < 1:
		return o, fmt.Errorf("nablasd: FitOptions.Memory %d: want at least 1", o.Memory)
	case o.LearningRate < 0 || math.IsNaN(o.LearningRate) || math.IsInf(o.LearningRate, 0):
		return o, fmt.Errorf("nablasd: FitOptions.LearningRate %v: want a positive step", o.LearningRate)
	case o.MaxEval < 0:
		return o, fmt.Errorf("nablasd: FitOptions.MaxEval %d: want at least 0", o.MaxEval)
	}
	return o, nil
}

// gradientTest is the fit's gradient test as gonum's Converger: at a
// major iteration, a gradient whose largest magnitude is below thresh
// (gonum's Settings.GradientThreshold test, whose floats.Norm(g, ∞) takes
// math.Max's slow path per value: a sixth of a factorization's fit with
// 553K parameters; the recorder takes the norm again).
type gradientTest struct{ thresh float64 }

// Init is gonum's Converger's.
func (gradientTest) Init(int) {}

// Converged reports GradientThreshold once the gradient passes the test.
func (c gradientTest) Converged(loc *optimize.Location) optimize.Status {
	if loc.Gradient != nil && maxAbs(loc.Gradient) < c.thresh {
		return optimize.GradientThreshold
	}
	return optimize.NotTerminated
}

// maxAbs is the largest magnitude in g, NaN if g holds one (which no
// test passes).
func maxAbs(g []float64) float64 {
	m := 0.0
	for _, v := range g {
		if a := math.Abs(v); !(a <= m) {
			if a != a {
				return a
			}
			m = a
		}
	}
	return m
}

// bfgsLimit is the largest inverse Hessian BFGS may keep, in bytes.
const bfgsLimit = 1 << 30

// method is gonum's method (or Adam) for the options, its own tests of
// the gradient off (Settings.GradientThreshold is the fit's).
func (p *Problem) method(o FitOptions) (optimize.Method, error) {
	off := math.NaN()
	switch o.Method {
	case "lbfgs":
		// SciPy's L-BFGS-B: a history of 10, and the line search of
		// Moré and Thuente with its sufficient decrease 1e-3 and
		// curvature 0.9
		return &optimize.LBFGS{Store: o.Memory, GradStopThreshold: off,
			Linesearcher: p.backoff(&optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9})}, nil
	case "bfgs":
		if need := 8 * float64(p.dim) * float64(p.dim); need > bfgsLimit {
			return nil, fmt.Errorf("nablasd: bfgs keeps a dense %d×%d inverse Hessian (%.3g GB): use lbfgs for %d values", p.dim, p.dim, need/1e9, p.dim)
		}
		return &optimize.BFGS{GradStopThreshold: off, Linesearcher: p.backoff(&optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9})}, nil
	case "cg":
		// gonum's default: Moré–Thuente with curvature 0.1
		return &optimize.CG{GradStopThreshold: off, Linesearcher: p.backoff(&optimize.MoreThuente{CurvatureFactor: 0.1})}, nil
	case "gd":
		gd := &optimize.GradientDescent{GradStopThreshold: off, Linesearcher: p.backoff(&optimize.Backtracking{})}
		if o.LearningRate > 0 {
			gd.StepSizer = &optimize.ConstantStepSize{Size: o.LearningRate}
		}
		return gd, nil
	case "adam":
		lr := o.LearningRate
		if lr == 0 {
			lr = 1e-3
		}
		return &Adam{LearningRate: lr}, nil
	}
	return nil, fmt.Errorf("nablasd: unknown method %q", o.Method)
}

// backoff wraps a method's line search (newBackoff) and keeps it, for the
// fit's reason.
func (p *Problem) backoff(ls optimize.Linesearcher) *backoff {
	p.ls = newBackoff(ls)
	return p.ls
}

// recorder follows a fit's iterations (gonum's Recorder): the iteration
// number for messages, the step, the progress callback, and the last
// iterate whose loss and gradient are finite: an iterate that is not (a
// method without a line search, Adam, stepped too far) stops the fit as
// diverged.
type recorder struct {
	p        *Problem
	progress func(FitProgress)
	start    time.Time
	runs0    int
	// prev is the last good iterate, prevF its loss, prevG its gradient's
	// largest magnitude, iter its number
	prev         []float64
	prevF, prevG float64
	iter         int
	diverged     error
}

func (r *recorder) Init() error { return nil }

func (r *recorder) Record(loc *optimize.Location, op optimize.Operation, _ *optimize.Stats) error {
	if op != optimize.MajorIteration {
		return nil
	}
	if err := r.p.nonFinite(loc.F, loc.Gradient); err != nil {
		r.diverged = err
		return err
	}
	step := 0.0
	if r.prev == nil {
		r.prev = slices.Clone(loc.X)
	} else {
		for i, v := range loc.X {
			d := v - r.prev[i]
			step += d * d
		}
		step = math.Sqrt(step)
		copy(r.prev, loc.X)
		r.iter++
	}
	r.prevF, r.prevG = loc.F, maxAbs(loc.Gradient)
	r.p.iteration = r.iter + 1
	if r.progress != nil {
		r.progress(FitProgress{Iteration: r.iter, Loss: loc.F, GradNorm: r.prevG,
			Step: step, Evaluations: r.p.runs - r.runs0, Elapsed: time.Since(r.start)})
	}
	return nil
}
