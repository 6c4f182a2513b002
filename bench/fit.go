package bench

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// Fits: the workloads as training problems (issue 36), each fitted from
// the workload data's values (WorkloadData, fixed seeds) to a gradient
// test relative to the start, by nablasd (Query.Minimize, L-BFGS) and by
// SciPy (scipy.optimize.minimize(method='L-BFGS-B') with the closed-form
// value and gradient, bench/cmd/fitbench's peer) from the same start.

// A FitWorkload is a workload fitted in some of its inputs.
type FitWorkload struct {
	// Name is the workload's (../shared/workloads/NAME.sdql) or, with
	// Source, the fit's own.
	Name string
	// Wrt are the parameters.
	Wrt []string
	// Source, when set, is the program (over the workload data's inputs)
	// instead of the shared workload's, and Peer names the closed form
	// SciPy's side fits it with (the same function, written otherwise).
	Source, Peer string
}

// FitWorkloads are the fits the benchmark compares with SciPy: least
// squares, ridge and logistic regression in x, and the matrix
// factorization in U and W. The logistic loss is fitted as the shared
// workload writes it, log(1 + exp(z)), which overflows past z ≈ 710, and
// written with softplus(z) (logistic_softplus), which does not, as
// SciPy's closed form (np.logaddexp) does not. logistic_ridge adds
// ½λ‖x‖² to the softplus loss: over the benchmark's square designs of
// full rank the plain logistic loss has no minimizer (any labels are
// separated, and the loss falls towards 0 as x grows), where the ridge
// term makes it strictly convex, with one minimizer both systems can
// converge to. factorization_ridge adds λ(‖U‖² + ‖W‖²) to the
// factorization: without it UQ and WQ⁻ᵀ fit as well as U and W for any
// invertible Q, and the loss falls towards a bound along that continuum;
// with it the minimizers are isolated up to an orthogonal Q, at one loss.
var FitWorkloads = []FitWorkload{
	{Name: "least_squares", Wrt: []string{"x"}}, {Name: "ridge", Wrt: []string{"x"}}, {Name: "logistic", Wrt: []string{"x"}},
	{Name: "logistic_softplus", Wrt: []string{"x"}, Peer: "logistic",
		Source: "sum(<i, row> in A)\n  let z = sum(<j, a> in row) a * x(j) in\n  softplus(z) - y(i) * z\n"},
	{Name: "logistic_ridge", Wrt: []string{"x"},
		Source: "(sum(<i, row> in A)\n  let z = sum(<j, a> in row) a * x(j) in\n  softplus(z) - y(i) * z)\n+ 0.5 * lambda * sum(<j, v> in x) v * v\n"},
	{Name: "factorization", Wrt: []string{"U", "W"}},
	{Name: "factorization_ridge", Wrt: []string{"U", "W"},
		Source: "(sum(<i, row> in R) sum(<j, r> in row)\n  let e = r - sum(<k, u> in U(i)) u * W(j)(k) in\n  e * e)\n" +
			"+ lambda * ((sum(<i, row> in U) sum(<k, u> in row) u * u) + (sum(<j, row> in W) sum(<k, w> in row) w * w))\n"},
}

// PeerName is the closed form SciPy's side fits the workload with.
func (w FitWorkload) PeerName() string {
	if w.Peer != "" {
		return w.Peer
	}
	return w.Name
}

// source is the fit's program.
func (w FitWorkload) source() (src, why string, err error) {
	if w.Source != "" {
		return w.Source, "", nil
	}
	src, _, why, err = WorkloadSource(w.Name)
	return src, why, err
}

// FitResult is one fit's outcome, by either system.
type FitResult struct {
	// Status is "ok", or why there is no result ("not installed", an
	// error).
	Status string
	// Converged says whether the gradient test stopped the fit; Stop
	// says why it stopped, in the system's words.
	Converged bool
	Stop      string
	// Loss is the final loss, Loss0 the start's; GradNorm the final
	// gradient's largest magnitude, GradNorm0 the start's.
	Loss, Loss0, GradNorm, GradNorm0 float64
	Iterations, Evaluations          int
	// Seconds is the fit's wall time, CPU its processor time (the
	// process's, user and system: on a shared machine the wall time
	// counts the others' work too), Compile nablasd's preparation and
	// compilation before it (none for SciPy; its Python closed form is
	// written by hand).
	Seconds, CPU, Compile float64
	// Executor is what ran nablasd's kernel at the end.
	Executor string
}

// FitOptions of the benchmark: the gradient test and the iteration
// bound both systems get.
type FitBenchOptions struct {
	Tol     float64
	MaxIter int
	// Prebuild builds the kernel's native code into the JIT's cache
	// before the timed fit (its time is reported apart), so that the fit
	// runs native from its first runs, as on a machine that ran it
	// before; without it the fit tiers up while it runs.
	Prebuild bool
	// Exec is the fit's Options.Exec ("": auto, the tiering, which picks
	// the faster executor by timing a few runs of each; on a loaded
	// machine that timing can pick the slower).
	Exec string
}

// RunFitNablasd fits the workload over d with nablasd: Prepare, then
// Minimize (L-BFGS, SciPy's L-BFGS-B settings) on one goroutine
// (GOMAXPROCS 1 while it runs: one core). prebuild is the native code's
// build time (0 when not asked, or it failed: see Executor).
func RunFitNablasd(w FitWorkload, d *WorkloadData, o FitBenchOptions) (res *FitResult, prebuild time.Duration, err error) {
	src, why, err := w.source()
	if err != nil || why != "" {
		return &FitResult{Status: why}, 0, err
	}
	prog, err := sdql.Parse(w.Name+".sdql", src)
	if err != nil {
		return nil, 0, err
	}
	in, err := d.Inputs(sdql.FreeVars(prog))
	if err != nil {
		return nil, 0, err
	}
	if o.Prebuild {
		start := time.Now()
		q, err := nablasd.Prepare(src, in, &nablasd.Options{File: w.Name + ".sdql", Exec: "jit"})
		if err != nil {
			return nil, 0, err
		}
		if _, err := q.CompileDerivative(&nablasd.Derivative{Wrt: w.Wrt, Value: true}); err != nil {
			return nil, 0, err
		}
		prebuild = time.Since(start)
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	start := time.Now()
	q, err := nablasd.Prepare(src, in, &nablasd.Options{File: w.Name + ".sdql", Threads: 1, Exec: o.Exec})
	if err != nil {
		return nil, 0, err
	}
	p, err := q.Problem(w.Wrt...)
	if err != nil {
		return nil, 0, err
	}
	compile := time.Since(start)
	cpu0 := ProcessCPU()
	fit, err := p.Minimize(context.Background(), &nablasd.FitOptions{Tol: o.Tol, MaxIter: o.MaxIter})
	cpu := (ProcessCPU() - cpu0).Seconds()
	if fit == nil {
		return nil, 0, err
	}
	res = &FitResult{Status: "ok", Converged: fit.Converged, Stop: fit.Reason, Loss: fit.Loss, GradNorm: fit.GradNorm,
		GradNorm0: fit.GradNorm0, Iterations: fit.Iterations, Evaluations: fit.Evaluations,
		Seconds: fit.Elapsed.Seconds(), CPU: cpu, Compile: compile.Seconds(), Executor: fit.Executor}
	if err != nil {
		res.Status = err.Error()
	}
	x0 := p.X0()
	res.Loss0 = p.Func(x0)
	return res, prebuild, nil
}

// LossDiff is how far two final losses are apart, relative to the larger
// (and, for losses near zero, relative to the start's loss: rel0).
func LossDiff(a, b, start float64) (rel, rel0 float64) {
	d := math.Abs(a - b)
	return d / max(math.Abs(a), math.Abs(b)), d / math.Abs(start)
}

// String is the workload and its parameters: "factorization [U W]".
func (w FitWorkload) String() string { return fmt.Sprintf("%s %v", w.Name, w.Wrt) }
