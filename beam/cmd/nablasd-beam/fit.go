package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/beam/pipeline"
	"github.com/nablasd/nablasd/formats"
)

// fitSpec checks fit's flags: the parameters and the optimizer, a grouped
// job's (a fit is one model per group; --partition-rows would add the
// blocks' models).
func (a *args) fitSpec() (*pipeline.Fit, error) {
	if a.wrt == "" {
		return nil, batch.Usagef("fit needs --wrt NAME[,NAME...]: the inputs to fit")
	}
	var wrt []string
	for _, w := range strings.Split(a.wrt, ",") {
		w = strings.TrimSpace(w)
		switch {
		case w == "":
			return nil, batch.Usagef("--wrt %q: want NAME[,NAME...]", a.wrt)
		case slices.Contains(wrt, w):
			return nil, batch.Usagef("--wrt: %s is given twice", w)
		}
		wrt = append(wrt, w)
	}
	switch {
	case a.groupBy == "" || a.partitionRows != 0:
		return nil, batch.Usagef("fit fits one model per group: give --group-by KEY (not --partition-rows)")
	case !slices.Contains(nablasd.FitMethods, a.method):
		return nil, batch.Usagef("--method %q: want %s", a.method, strings.Join(nablasd.FitMethods, ", "))
	case a.tol < 0 || math.IsNaN(a.tol) || a.gtol < 0 || math.IsNaN(a.gtol):
		return nil, batch.Usagef("--tol %v, --gtol %v: want 0 or more", a.tol, a.gtol)
	case a.maxIter < 0 || a.maxEval < 0:
		return nil, batch.Usagef("--max-iter %d, --max-eval %d: want 0 (no limit) or more", a.maxIter, a.maxEval)
	case a.lr < 0 || math.IsNaN(a.lr) || math.IsInf(a.lr, 0):
		return nil, batch.Usagef("--lr %v: want a positive step", a.lr)
	case a.memory < 1:
		return nil, batch.Usagef("--memory %d: want at least 1", a.memory)
	}
	f := &pipeline.Fit{Wrt: wrt, Method: a.method, Tol: a.tol, GradTol: a.gtol, MaxIter: a.maxIter, MaxEval: a.maxEval,
		LearningRate: a.lr, Memory: a.memory}
	if a.tol == 0 {
		f.Tol = -1 // the API's 0 is its default
	}
	if a.maxIter == 0 {
		f.MaxIter = -1
	}
	return f, nil
}

// fitJob fills in a grouped fit: as groupedJob, with the parameters'
// starts (--init) among the bindings, every parameter checked to be an
// input, and the metadata nablasd fit --group-by writes.
func fitJob(job *pipeline.Job, a *args, o *nablasd.Options, stderr io.Writer) (cleanup func(), err error) {
	bound := map[string]bool{}
	for _, b := range a.inputs {
		bound[bindingName(b)] = true
	}
	for _, s := range a.init {
		n, _, ok := strings.Cut(s, "=")
		switch {
		case !ok || !slices.Contains(job.Fit.Wrt, n):
			return nil, batch.Usagef("--init %s: want NAME=VALUE, NAME a parameter (--wrt %s); bind other inputs with --in", s, a.wrt)
		case bound[n]:
			return nil, batch.Usagef("--in %s is bound twice: a parameter is bound by --in or by --init, not both", n)
		}
		bound[n] = true
	}
	for _, w := range job.Fit.Wrt {
		if !bound[w] {
			return nil, batch.Usagef("--wrt %s: give its start with --init %s=VALUE (or bind it with --in)", w, w)
		}
	}
	bindings := append(append([]string(nil), a.inputs...), a.init...)
	gj, err := batch.OpenGrouped(a.groupBy, job.File, job.Program, bindings, o, "", stderr)
	if err != nil {
		return nil, err
	}
	defer gj.Groups.Close()
	order := 0
	for _, w := range job.Fit.Wrt {
		if err := batch.CheckWrt(gj.Query, w); err != nil {
			return nil, err
		}
		if t, ok := gj.Inputs[w].(*formats.Tensor); ok {
			order = max(order, t.Order())
		}
	}
	grouped := map[string]bool{}
	for _, n := range gj.Groups.Grouped() {
		grouped[n] = true
		shape, f := gj.Groups.Shape(n)
		for _, t := range gj.Tables {
			if t.Name == n {
				job.Tables = append(job.Tables, pipeline.NewTable(n, t.Path, t.Options, f, shape))
			}
		}
	}
	for _, b := range bindings {
		if !grouped[bindingName(b)] {
			job.Broadcast = append(job.Broadcast, b)
		}
	}
	job.Key, job.Order = a.groupBy, order
	job.Meta = batch.FitMeta(job.Program, job.Fit.Wrt, bindings,
		batch.FitSettings(a.method, a.tol, a.gtol, a.maxIter, a.maxEval, a.lr, a.memory))
	if len(job.Tables) == 0 {
		return nil, fmt.Errorf("--group-by %s: no grouped table", a.groupBy)
	}
	return prepareOutDir(a.out)
}
