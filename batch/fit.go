package batch

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"gonum.org/v1/gonum/optimize"
)

// FitStep is the per-group step of a grouped fit: the program's
// parameters (Fit.Wrt) fitted over a group's tensors and the shared
// inputs. The query and the kernel of the loss and its gradients are made
// once, for the first group that runs (as Step compiles once); each group
// then gets a Problem of its own over that kernel (Problem.With), which
// starts from the group's values of the parameters when they are grouped
// inputs, else from the shared start. Groups run on several goroutines.
type FitStep struct {
	Text    string
	Base    nablasd.Inputs // the shared inputs (the parameters' starts among them) and the groups' stand-ins
	Opts    *nablasd.Options
	Fit     nablasd.FitOptions // Wrt names the parameters
	Grouped []string           // the grouped inputs' names
	// Ctx stops the groups' fits (Ctrl-C): a fit cut short is not a
	// result (the job leaves its group for --resume).
	Ctx context.Context
	// Order is the largest order among the parameters (FitColumns).
	Order int

	used map[string]bool

	mu      sync.Mutex
	ready   bool
	err     error
	query   *nablasd.Query
	problem *nablasd.Problem
	compile time.Duration
}

// FitColumns are the columns of a grouped fit's rows after the key: the
// parameter's name, its entry's indices i0 … (null past the parameter's
// order, all null for a number), its fitted value, then the group's fit:
// the final loss, the iterations, the evaluations (kernel runs), whether
// it converged and why it stopped (FitStatus).
func FitColumns(order int) []arrow.Field {
	cols := []arrow.Field{{Name: "param", Type: arrow.BinaryTypes.String}}
	for m := range order {
		cols = append(cols, arrow.Field{Name: fmt.Sprintf("i%d", m), Type: arrow.PrimitiveTypes.Int64, Nullable: true})
	}
	return append(cols,
		arrow.Field{Name: "val", Type: arrow.PrimitiveTypes.Float64},
		arrow.Field{Name: "loss", Type: arrow.PrimitiveTypes.Float64},
		arrow.Field{Name: "iterations", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "evaluations", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "converged", Type: arrow.FixedWidthTypes.Boolean},
		arrow.Field{Name: "status", Type: arrow.BinaryTypes.String})
}

// FitSettings describes a fit's optimizer settings for a grouped fit's
// metadata (FitMeta), from the command line's flags.
func FitSettings(method string, tol, gtol float64, maxIter, maxEval int, lr float64, memory int) string {
	return fmt.Sprintf("method=%s tol=%g gtol=%g max-iter=%d max-eval=%d lr=%g memory=%d", method, tol, gtol, maxIter, maxEval, lr, memory)
}

// FitMeta is the metadata of a grouped fit's output: Meta's (the program,
// the parameters, the bindings) and the optimizer's settings; --resume
// requires the same, and nablasd-beam writes the same.
func FitMeta(text string, wrt []string, bindings []string, settings string) map[string]string {
	m := Meta(text, strings.Join(wrt, ","), bindings)
	m["nablasd.fit"] = settings
	return m
}

// FitStatus names why a fit stopped, for a table: "converged",
// "iteration limit", "evaluation limit", "no progress" (the method
// could not lower the loss further) or "diverged" (err a
// *nablasd.DivergedError).
func FitStatus(fit *nablasd.Fit, err error) string {
	var d *nablasd.DivergedError
	switch {
	case errors.As(err, &d):
		return "diverged"
	case fit.Converged:
		return "converged"
	case fit.Status == optimize.IterationLimit:
		return "iteration limit"
	case fit.Status == optimize.FunctionEvaluationLimit || fit.Status == optimize.GradientEvaluationLimit:
		return "evaluation limit"
	}
	return "no progress"
}

// groupInputs are a group's values of the grouped inputs the program
// uses.
func (s *FitStep) groupInputs(g *datasets.Group) nablasd.Inputs {
	in := nablasd.Inputs{}
	for _, n := range s.Grouped {
		if s.used == nil || s.used[n] {
			in[n] = TableValue(g.Inputs[n])
		}
	}
	return in
}

// Prepare prepares the program for a group's inputs and compiles the
// kernel of its loss and gradients, unless that was done already.
func (s *FitStep) Prepare(g *datasets.Group) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready {
		return s.err
	}
	s.ready = true
	start := time.Now()
	inputs := nablasd.Inputs{}
	for n, v := range s.Base {
		inputs[n] = v
	}
	for n, v := range s.groupInputs(g) {
		inputs[n] = v
	}
	q, err := Prepare(s.Text, inputs, s.Opts, "", nil)
	if err == nil {
		for _, w := range s.Fit.Wrt {
			if err = CheckWrt(q, w); err != nil {
				break
			}
		}
	}
	if err == nil {
		s.used = map[string]bool{}
		for _, n := range q.InputNames() {
			s.used[n] = true
		}
		s.query = q
		s.problem, err = q.Problem(s.Fit.Wrt...)
	}
	s.err = err
	s.compile = time.Since(start)
	return err
}

// Run fits one group: its Fit, and the fit's error (a diverged fit's,
// whose Fit holds the last good iterate; a cancelled one's).
func (s *FitStep) Run(g *datasets.Group) (*nablasd.Fit, error) {
	if err := s.Prepare(g); err != nil {
		return nil, err
	}
	p, err := s.problem.With(s.groupInputs(g))
	if err != nil {
		return nil, err
	}
	ctx := s.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	return p.Minimize(ctx, &s.Fit)
}

// Rows fits one group and returns its rows (FitColumns of Order): a
// diverged fit is a result, its last good iterate with the status
// "diverged"; a cancelled one is the error (the group is not done).
func (s *FitStep) Rows(g *datasets.Group) (arrow.RecordBatch, error) {
	fit, err := s.Run(g)
	if fit == nil {
		return nil, err
	}
	var d *nablasd.DivergedError
	if err != nil && !errors.As(err, &d) {
		return nil, err
	}
	return FitRows(fit, s.Order, FitStatus(fit, err))
}

// FitRows is a fit's rows (FitColumns of order): an entry of a parameter
// a row, in the parameters' order and each one's storage order.
func FitRows(fit *nablasd.Fit, order int, status string) (arrow.RecordBatch, error) {
	schema := arrow.NewSchema(FitColumns(order), nil)
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	n := 0
	for _, pr := range fit.Params {
		n += pr.Len
	}
	for i := range schema.Fields() {
		b.Field(i).Reserve(n)
	}
	param := b.Field(0).(*array.StringBuilder)
	idx := make([]*array.Int64Builder, order)
	for m := range idx {
		idx[m] = b.Field(1 + m).(*array.Int64Builder)
	}
	rest := b.Fields()[1+order:]
	val, loss := rest[0].(*array.Float64Builder), rest[1].(*array.Float64Builder)
	iters, evals := rest[2].(*array.Int64Builder), rest[3].(*array.Int64Builder)
	conv, stat := rest[4].(*array.BooleanBuilder), rest[5].(*array.StringBuilder)
	for _, pr := range fit.Params {
		var coords [][]int
		if t := fit.Tensor(pr.Name); t != nil {
			var err error
			if coords, _, err = t.Coords(); err != nil {
				return nil, fmt.Errorf("%s: %v", pr.Name, err)
			}
			if len(coords) > order {
				return nil, fmt.Errorf("internal error: %s has order %d, the table %d", pr.Name, len(coords), order)
			}
		}
		x := fit.Value(pr.Name)
		for e := range pr.Len {
			param.Append(pr.Name)
			for m := range idx {
				if m < len(coords) {
					idx[m].Append(int64(coords[m][e]))
				} else {
					idx[m].AppendNull()
				}
			}
			val.Append(x[e])
			loss.Append(fit.Loss)
			iters.Append(int64(fit.Iterations))
			evals.Append(int64(fit.Evaluations))
			conv.Append(fit.Converged)
			stat.Append(status)
		}
	}
	return b.NewRecordBatch(), nil
}

// Query is the step's query (nil before the first group's Prepare).
func (s *FitStep) Query() *nablasd.Query {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.query
}

// Kernel is the step's kernel of the loss and gradients (nil before the
// first group's Prepare).
func (s *FitStep) Kernel() *nablasd.Kernel {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.problem == nil {
		return nil
	}
	return s.problem.Kernel()
}

// CompileTime is the time the preparation and compilation took.
func (s *FitStep) CompileTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compile
}
