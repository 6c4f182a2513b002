package pipeline

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// loadFn loads, on one worker, the inputs every step needs whole: the
// broadcast inputs, and for a grouped job the first group's inputs (the
// kernel is compiled for them, as nablasd's single-machine job compiles
// it for its first group: the same plan, the same results). Its output is
// the steps' side input.
type loadFn struct {
	Job Job
}

func (f *loadFn) ProcessElement(ctx context.Context, _ []byte, emit func([]byte)) error {
	if err := f.load(emit); err != nil {
		return inputError(err)
	}
	return nil
}

func (f *loadFn) load(emit func([]byte)) error {
	in, err := batch.ParseInputs(f.Job.Broadcast, nil)
	if err != nil {
		return err
	}
	for n, v := range in {
		tt := &datasets.TableTensor{}
		switch v := v.(type) {
		case float64:
			tt.Scalar = v
		case *formats.Tensor:
			tt.Tensor = v
		default:
			return fmt.Errorf("internal error: nablasd-beam: input %s of type %T", n, v)
		}
		emit(encodeNamed(&named{name: n, value: tt}))
	}
	if f.Job.Key == "" {
		return nil
	}
	first, err := firstGroup(f.Job)
	if err != nil || first == nil {
		return err
	}
	for n, tt := range first.Inputs {
		emit(encodeNamed(&named{name: n, first: true, value: tt}))
	}
	return nil
}

// firstGroup reads the grouped tables' first group (nil when they have
// none), as nablasd's single-machine job does.
func firstGroup(job Job) (*datasets.Group, error) {
	var ins []datasets.GroupInput
	for _, t := range job.Tables {
		in, err := t.splitInput(job.Key)
		if err != nil {
			return nil, err
		}
		ins = append(ins, in.GroupInput)
	}
	// only the first group: an unsorted table is read once for it, not
	// sorted
	g, err := datasets.OpenGroupsWith(job.Key, ins, &datasets.GroupOptions{FirstOnly: true})
	if err != nil {
		return nil, fmt.Errorf("--group-by %s: %v", job.Key, err)
	}
	defer g.Close()
	grp, err := g.Next(nil)
	if errors.Is(err, io.EOF) {
		return nil, nil
	}
	return grp, err
}

// worker is what a step DoFn keeps between elements: its tables opened
// for building tensors from chunks, and the step, compiled once.
type worker struct {
	tables   map[string]*datasets.SplitTable
	step     *batch.Step
	fit      *batch.FitStep  // a grouped fit's step (step is then unused)
	first    *datasets.Group // the group to compile for (grouped jobs)
	compiled bool
}

// start opens the job's tables and decodes the side input; standIn makes
// each table's stand-in for preparing the program.
func start(job Job, side func(*[]byte) bool, standIn func(Table, *datasets.SplitTable) (any, error)) (*worker, error) {
	w := &worker{tables: map[string]*datasets.SplitTable{}}
	base := nablasd.Inputs{}
	var first *datasets.Group
	var b []byte
	for side(&b) {
		n, err := decodeNamed(b)
		if err != nil {
			return nil, err
		}
		if n.first {
			if first == nil {
				first = &datasets.Group{Inputs: map[string]*datasets.TableTensor{}}
			}
			first.Inputs[n.name] = n.value
			continue
		}
		base[n.name] = batch.TableValue(n.value)
	}
	var names []string
	for _, t := range job.Tables {
		st, err := t.open(job.Key)
		if err != nil {
			w.close()
			return nil, err
		}
		w.tables[t.Name] = st
		names = append(names, t.Name)
		if base[t.Name], err = standIn(t, st); err != nil {
			w.close()
			return nil, fmt.Errorf("--in %s: %v", t.Name, err)
		}
	}
	w.step = &batch.Step{Text: job.Program, Base: base, Opts: job.Options.API(job.File), Wrt: job.Wrt, Grouped: names}
	if job.Fit != nil {
		w.fit = &batch.FitStep{Text: job.Program, Base: base, Opts: job.Options.API(job.File), Fit: job.Fit.Options(),
			Grouped: names, Order: job.Order}
	}
	w.first = first
	return w, nil
}

// run runs the step on a group, compiling it first when it is the
// worker's first (for the first group of the job when there is one).
func (w *worker) run(ctx context.Context, g *datasets.Group) (*datasets.TableTensor, error) {
	if err := w.compile(ctx); err != nil {
		return nil, err
	}
	return w.step.Run(g)
}

// runFit fits a group, compiling first as run does, and returns its rows
// encoded (encodeRows).
func (w *worker) runFit(ctx context.Context, g *datasets.Group) ([]byte, error) {
	if err := w.compile(ctx); err != nil {
		return nil, err
	}
	rec, err := w.fit.Rows(g)
	if err != nil {
		return nil, err
	}
	defer rec.Release()
	return encodeRows(rec)
}

// compile prepares the worker's step for the job's first group, once.
func (w *worker) compile(ctx context.Context) error {
	if w.compiled {
		return nil
	}
	w.compiled = true
	cCompiles.Inc(ctx, 1)
	if w.first == nil {
		return nil
	}
	for n := range w.tables {
		if w.first.Inputs[n] == nil {
			return fmt.Errorf("internal error: nablasd-beam: the first group has no input %s", n)
		}
	}
	var err error
	if w.fit != nil {
		err = w.fit.Prepare(w.first)
	} else {
		err = w.step.Prepare(w.first)
	}
	w.first = nil
	return err
}

func (w *worker) close() {
	if w == nil {
		return
	}
	for _, st := range w.tables {
		st.Close()
	}
}
