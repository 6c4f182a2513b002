package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
)

// fitArgs are the flags of fit.
type fitArgs struct {
	commonArgs
	init       inputFlags // --init [NAME=]VALUE
	outs       inputFlags // --out [NAME=]FILE
	method     string
	tol, gtol  float64
	maxIter    int
	maxEval    int
	lr         float64
	memory     int
	exec, dict string
	threads    int
	noValidate bool
	quiet      bool
	every      time.Duration
	batch      batchFlags // --group-by, --resume, --quiet share the batch jobs'
}

func fitFlags(a *fitArgs) *flagSet {
	fs := newFlagSet("fit")
	fs.String(&a.file, "f", "", "read the program, a real-valued loss, from `FILE`")
	fs.String(&a.text, "e", "", "the program `TEXT`")
	fs.Value(&a.inputs, "in", "bind an input: `NAME=VALUE` (repeatable; see 'nablasd help')")
	fs.Value(&a.wrt, "wrt", "the parameters to fit, inputs `NAME[,NAME...]` (repeatable): tensors of reals in any format, fitted on their stored positions, or numbers")
	fs.Value(&a.init, "init", "a parameter's start, `[NAME=]VALUE` as --in binds it (NAME may be left out with one --wrt); a parameter bound by --in starts there")
	fs.Value(&a.outs, "out", "write a fitted parameter to `[NAME=]FILE` (.mtx, .mtx.gz: Matrix Market, dense as an array; .parquet, .arrow, .arrows: a table); with --group-by one table FILE.parquet|.arrow|.arrows of every group; without --out they print")
	fs.String(&a.method, "method", "lbfgs", "the optimizer, a `METHOD`: lbfgs (gonum's L-BFGS with SciPy's L-BFGS-B settings), bfgs (a dense inverse Hessian: small problems), cg, gd (gradient descent) or adam")
	fs.Float(&a.tol, "tol", 1e-6, "stop once the gradient's largest magnitude is at most `T` times the start's (0: no such test)")
	fs.Float(&a.gtol, "gtol", 0, "stop once the gradient's largest magnitude is at most `G` (0: no such test)")
	fs.Int(&a.maxIter, "max-iter", 1000, "stop after `N` iterations (0: no limit)")
	fs.Int(&a.maxEval, "max-eval", 0, "stop after `N` evaluations, kernel runs (0: no limit)")
	fs.Float(&a.lr, "lr", 0, "the learning rate `R`: adam's step (0: 0.001), gd's constant step (0: a line search)")
	fs.Int(&a.memory, "memory", 10, "lbfgs's history of `M` steps")
	fs.Duration(&a.every, "progress", time.Second, "print a progress line at most every `D` (0: every iteration)")
	fs.Bool(&a.quiet, "quiet", false, "print no progress lines and no report, only errors")
	fs.String(&a.diff.mode, "mode", "auto", "differentiation `MODE`: auto, forward or reverse")
	fs.String(&a.opt, "opt", "full", "optimizations, a `LEVEL`: full, rules or none")
	fs.Bool(&a.noShapeCheck, "no-shape-check", false, "do not check lookups against the inputs' shapes")
	fs.String(&a.memoryLimit, "memory-limit", "80%", "memory budget: a `SIZE` (512MiB, 4GB), a percentage of the memory available, or none")
	fs.String(&a.exec, "exec", "auto", "the `EXECUTOR`: auto (the closures, then native code once the kernel has run 200ms, as a --group-by job's), compiled, jit or interp")
	fs.String(&a.dict, "dict", "intmap", "the hash `INDEX` of hashed dictionaries: intmap, map or swiss")
	fs.Int(&a.threads, "threads", 1, "run the kernel on up to `N` goroutines (with --group-by: fit N groups at once)")
	fs.Bool(&a.noValidate, "no-validate", false, "skip the format invariant checks (trusted inputs)")
	fs.String(&a.batch.groupBy, "group-by", "", "fit once per value of the column `KEY` of the table inputs that have it, into --out FILE.parquet|.arrow|.arrows: a row per group and parameter entry, with the loss and iterations")
	fs.Bool(&a.batch.resume, "resume", false, "with --group-by: keep the groups a stopped run finished (OUT.partial) or an earlier output holds, and fit the others")
	return fs
}

const fitHelp = `The program's result must be a real number, the loss; --wrt names the
inputs to fit. Each iteration runs one kernel for the loss and every
gradient at once, compiled once and run in place (native code once it has
run 200ms, as --exec auto's long runs do).

A progress line goes to standard error at most every --progress (iteration,
loss, the gradient's largest magnitude, the step's length, kernel runs),
then a report: why the fit stopped, the iterations and the evaluations.
Ctrl-C stops the fit and writes the last iterate. Exit status 0 when the
fit stopped by its tests or limits (the report says whether it converged),
1 when it diverged (a loss or gradient not finite), was interrupted or had
bad input: the last good iterate is written all the same.

--group-by KEY fits one model per group of the table inputs (as eval and
grad --group-by split them), the program compiled once: the table --out
has a row per group and parameter entry, KEY, param, i0, i1, ..., val, then
the group's loss, iterations, evaluations, converged and status
(converged, iteration limit, evaluation limit, no progress or diverged: a
diverged group keeps its last good iterate). A parameter bound to a
grouped table starts from each group's values, else from the shared
start. It is resumable (--resume) like the other batch jobs; Ctrl-C stops
the groups' fits, and --resume fits those again.
`

// cmdFit: nablasd fit (-f FILE | -e TEXT) --wrt NAME[,NAME...] [--in
// NAME=VALUE]... [--init [NAME=]VALUE]... [--method METHOD] [--tol T]
// [--max-iter N] [--out [NAME=]FILE]...
func cmdFit(args []string, stdout, stderr io.Writer) error {
	var a fitArgs
	if err := fitFlags(&a).parse(args); err != nil {
		return err
	}
	if len(a.wrt.names) == 0 {
		return usagef("fit needs --wrt NAME[,NAME...]: the inputs to fit")
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	fo, err := a.fitOptions()
	if err != nil {
		return err
	}
	if a.batch.groupBy != "" {
		return a.runGroupedFit(o, fo, stderr)
	}
	outs, err := a.outputs()
	if err != nil {
		return err
	}
	inputs, name, text, err := a.bind(stderr)
	if err != nil {
		return err
	}
	o.File = name
	q, err := batch.Prepare(text, inputs, o, "", stderr)
	if err != nil {
		return err
	}
	for _, w := range a.wrt.names {
		if err := batch.CheckWrt(q, w); err != nil {
			return err
		}
		if _, number := inputs[w].(float64); number && outs[w] != "" {
			return usagef("--out %s: %s is a number; it prints on standard output", outs[w], w)
		}
	}
	p, err := q.Problem(a.wrt.names...)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if !a.quiet {
		fo.Progress = progressPrinter(stderr, a.every)
	}
	fit, err := p.Minimize(ctx, fo)
	if fit == nil {
		return err
	}
	if werr := writeFit(fit, outs, a.wrt.names, stdout); werr != nil {
		if err != nil {
			return fmt.Errorf("%v; and the last iterate could not be written: %v", err, werr)
		}
		return werr
	}
	if !a.quiet {
		fmt.Fprintf(stderr, "fit: %s\n", report(fit))
	}
	if err != nil {
		where := "it prints above"
		if len(outs) > 0 {
			var files []string
			for _, f := range outs {
				files = append(files, f)
			}
			where = "it is written to " + strings.Join(files, ", ")
		}
		if errors.Is(err, context.Canceled) {
			return fmt.Errorf("fit: interrupted: %v; %s", err, where)
		}
		return fmt.Errorf("fit: %v; %s", err, where)
	}
	return nil
}

// options are the executor's and the common flags' options; a fit tiers
// to native code as a long run (the default JITAfter).
func (a *fitArgs) options() (*nablasd.Options, error) {
	o, err := a.commonArgs.options("")
	if err != nil {
		return nil, err
	}
	switch a.exec {
	case "auto", "compiled", "jit", "interp":
	default:
		return nil, usagef("--exec %q: want auto, compiled, jit or interp", a.exec)
	}
	switch a.dict {
	case "intmap", "map", "swiss":
	default:
		return nil, usagef("--dict %q: want intmap, map or swiss", a.dict)
	}
	if a.threads < 1 {
		return nil, usagef("--threads %d: want at least 1", a.threads)
	}
	o.Exec, o.Dict, o.Threads, o.NoValidate = a.exec, a.dict, a.threads, a.noValidate
	return o, nil
}

// fitOptions checks the optimizer's flags.
func (a *fitArgs) fitOptions() (*nablasd.FitOptions, error) {
	fo := &nablasd.FitOptions{Wrt: a.wrt.names, Method: a.method, Tol: a.tol, GradTol: a.gtol,
		MaxIter: a.maxIter, MaxEval: a.maxEval, LearningRate: a.lr, Memory: a.memory}
	switch {
	case !slices.Contains(nablasd.FitMethods, a.method):
		return nil, usagef("--method %q: want %s", a.method, strings.Join(nablasd.FitMethods, ", "))
	case a.tol < 0 || math.IsNaN(a.tol):
		return nil, usagef("--tol %v: want 0 or more", a.tol)
	case a.gtol < 0 || math.IsNaN(a.gtol):
		return nil, usagef("--gtol %v: want 0 or more", a.gtol)
	case a.maxIter < 0:
		return nil, usagef("--max-iter %d: want 0 (no limit) or more", a.maxIter)
	case a.maxEval < 0:
		return nil, usagef("--max-eval %d: want 0 (no limit) or more", a.maxEval)
	case a.lr < 0 || math.IsNaN(a.lr) || math.IsInf(a.lr, 0):
		return nil, usagef("--lr %v: want a positive step", a.lr)
	case a.memory < 1:
		return nil, usagef("--memory %d: want at least 1", a.memory)
	case a.every < 0:
		return nil, usagef("--progress %v: want 0 or more", a.every)
	}
	if a.tol == 0 {
		fo.Tol = -1 // the API's 0 is its default
	}
	if a.maxIter == 0 {
		fo.MaxIter = -1
	}
	return fo, nil
}

// outputs maps each parameter to its --out file: NAME=FILE, or FILE alone
// with one parameter. A number prints; it cannot go to a file.
func (a *fitArgs) outputs() (map[string]string, error) {
	outs := map[string]string{}
	for _, s := range a.outs {
		name, file, ok := strings.Cut(s, "=")
		if !ok {
			if len(a.wrt.names) != 1 {
				return nil, usagef("--out %s: with several parameters, say whose: --out NAME=FILE", s)
			}
			name, file = a.wrt.names[0], s
		}
		if !slices.Contains(a.wrt.names, name) {
			return nil, usagef("--out %s: %s is not a parameter (--wrt %s)", s, name, a.wrt.name)
		}
		if _, dup := outs[name]; dup {
			return nil, usagef("--out %s is given twice", name)
		}
		if !isMatrixMarket(file) && !isTableOut(file) {
			return nil, usagef("--out %s: want FILE.mtx or FILE.mtx.gz (Matrix Market), or FILE.parquet, FILE.arrow, FILE.arrows (a table)", file)
		}
		outs[name] = file
	}
	return outs, nil
}

// bind reads the program and binds --in and --init (a parameter's start).
func (a *fitArgs) bind(stderr io.Writer) (nablasd.Inputs, string, string, error) {
	name, text, err := a.source()
	if err != nil {
		return nil, "", "", err
	}
	inits, err := a.inits()
	if err != nil {
		return nil, "", "", err
	}
	inputs, err := batch.ParseInputs(append(append([]string(nil), a.inputs...), inits...), stderr)
	if err != nil {
		if strings.Contains(err.Error(), "is bound twice") {
			return nil, "", "", usagef("%v: a parameter is bound by --in or by --init, not both", err)
		}
		return nil, "", "", err
	}
	for _, w := range a.wrt.names {
		if _, ok := inputs[w]; !ok {
			return nil, "", "", usagef("--wrt %s: give its start with --init %s=VALUE (or bind it with --in)", w, w)
		}
	}
	return inputs, name, text, nil
}

// inits turns --init flags into NAME=VALUE bindings.
func (a *fitArgs) inits() ([]string, error) {
	var out []string
	for _, s := range a.init {
		name, val, ok := strings.Cut(s, "=")
		if !ok || !batch.ValidName(name) {
			// a file name alone (which may hold '=')
			if len(a.wrt.names) != 1 {
				return nil, usagef("--init %s: with several parameters, say whose: --init NAME=VALUE", s)
			}
			name, val = a.wrt.names[0], s
		}
		if !slices.Contains(a.wrt.names, name) {
			return nil, usagef("--init %s: %s is not a parameter (--wrt %s); bind other inputs with --in", s, name, a.wrt.name)
		}
		out = append(out, name+"="+val)
	}
	return out, nil
}

// progressPrinter prints a progress line at most every every (the first
// iteration's always), none for the last call (the report follows).
func progressPrinter(w io.Writer, every time.Duration) func(nablasd.FitProgress) {
	var last time.Duration = -1
	return func(p nablasd.FitProgress) {
		if p.Done || (last >= 0 && p.Elapsed-last < every) {
			return
		}
		last = p.Elapsed
		fmt.Fprintf(w, "fit: iteration %d: loss %s, gradient %.3g, step %.3g, %d evaluations, %s\n",
			p.Iteration, strconv.FormatFloat(p.Loss, 'g', 10, 64), p.GradNorm, p.Step, p.Evaluations, seconds(p.Elapsed))
	}
}

// report is the fit's last line: why it stopped, the iterations and the
// evaluations, the loss, the time and the executor.
func report(f *nablasd.Fit) string {
	return fmt.Sprintf("%s; %d iterations, %d evaluations (kernel runs), loss %s, %s, executor %s",
		f.Reason, f.Iterations, f.Evaluations, strconv.FormatFloat(f.Loss, 'g', -1, 64), seconds(f.Elapsed), f.Executor)
}

func seconds(d time.Duration) string {
	return fmt.Sprintf("%.3fs", d.Seconds())
}
