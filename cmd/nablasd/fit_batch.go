package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"syscall"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// runGroupedFit fits one model per group of the table inputs split by
// --group-by (as eval and grad split them): the program is prepared and
// its kernel compiled once, for the first group, and every group fitted
// over it on --threads workers; --out gets a row per group and parameter
// entry (batch.FitColumns), the key first.
func (a *fitArgs) runGroupedFit(o *nablasd.Options, fo *nablasd.FitOptions, stderr io.Writer) error {
	key := a.batch.groupBy
	if len(a.outs) != 1 || !isTableOut(a.outs[0]) {
		return usagef("--group-by %s writes one table: give --out FILE.parquet, FILE.arrow or FILE.arrows", key)
	}
	out := a.outs[0]
	workers := o.Threads
	o.Threads = 1 // the groups share the workers
	name, text, err := a.source()
	if err != nil {
		return err
	}
	inits, err := a.inits()
	if err != nil {
		return err
	}
	bindings := append(append([]string(nil), a.inputs...), inits...)
	bound := map[string]bool{}
	for _, b := range bindings {
		n, _, _ := strings.Cut(b, "=")
		if bound[n] {
			return usagef("--in %s is bound twice: a parameter is bound by --in or by --init, not both", n)
		}
		bound[n] = true
	}
	for _, w := range a.wrt.names {
		if !bound[w] {
			return usagef("--wrt %s: give its start with --init %s=VALUE (or bind it with --in, a grouped table for a start per group)", w, w)
		}
	}
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(25) // as runBatch: a grouped job holds little and reads a lot
	}
	gj, err := batch.OpenGrouped(key, name, text, bindings, o, "", stderr)
	if err != nil {
		return err
	}
	defer gj.Groups.Close()
	order := 0
	for _, w := range a.wrt.names {
		if err := batch.CheckWrt(gj.Query, w); err != nil {
			return err
		}
		if t, ok := gj.Inputs[w].(*formats.Tensor); ok {
			order = max(order, t.Order())
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	step := &batch.FitStep{Text: text, Base: gj.Inputs, Opts: o, Fit: *fo, Grouped: gj.Groups.Grouped(), Ctx: ctx, Order: order}
	var tally fitTally
	job := &datasets.Job{
		Groups: gj.Groups,
		RowStep: func(g *datasets.Group) (arrow.RecordBatch, error) {
			fit, err := step.Run(g)
			if fit == nil {
				return nil, err
			}
			var d *nablasd.DivergedError
			if err != nil && !errors.As(err, &d) {
				return nil, err
			}
			status := batch.FitStatus(fit, err)
			tally.add(fit, status)
			return batch.FitRows(fit, order, status)
		},
		Columns: batch.FitColumns(order),
		Out:     out,
		Meta:    fitMeta(text, a, bindings),
		Workers: workers,
		Resume:  a.batch.resume,
	}
	if !a.quiet && isTerminal(stderr) {
		job.Progress = stderr
	}
	st, err := job.Run(ctx)
	if q := step.Query(); q != nil {
		for _, w := range q.Warnings() {
			if strings.Contains(w, "JIT") {
				fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
			}
		}
	}
	if err != nil {
		if errors.Is(err, datasets.ErrStopped) {
			return fmt.Errorf("--group-by %s: %v", key, err)
		}
		return err
	}
	if !a.quiet {
		executor := "none" // no group ran
		if k := step.Kernel(); k != nil {
			executor = k.Executor()
		}
		fmt.Fprintf(stderr, "fit: %d groups fitted (%d kept from an earlier run): %s; %d iterations, %d evaluations (kernel runs); compile %s, %s, executor %s\n",
			st.Groups, st.Kept, tally.String(), tally.iterations, tally.evaluations, seconds(step.CompileTime()), seconds(st.Elapsed), executor)
	}
	return nil
}

// fitMeta is the metadata of a grouped fit's output: the program, the
// bindings, the parameters and the optimizer's settings (--resume
// requires the same).
func fitMeta(text string, a *fitArgs, bindings []string) map[string]string {
	return batch.FitMeta(text, a.wrt.names, bindings, batch.FitSettings(a.method, a.tol, a.gtol, a.maxIter, a.maxEval, a.lr, a.memory))
}

// fitTally counts a grouped fit's groups by status, and their iterations
// and evaluations.
type fitTally struct {
	mu                      sync.Mutex
	status                  map[string]int
	iterations, evaluations int
}

func (t *fitTally) add(f *nablasd.Fit, status string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.status == nil {
		t.status = map[string]int{}
	}
	t.status[status]++
	t.iterations += f.Iterations
	t.evaluations += f.Evaluations
}

// String lists the statuses: "998 converged, 2 iteration limit".
func (t *fitTally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	var names []string
	for s := range t.status {
		names = append(names, s)
	}
	sort.Strings(names)
	var parts []string
	for _, s := range names {
		parts = append(parts, fmt.Sprintf("%d %s", t.status[s], s))
	}
	if len(parts) == 0 {
		return "none fitted now"
	}
	return strings.Join(parts, ", ")
}
