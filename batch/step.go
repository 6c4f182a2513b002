package batch

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
)

// Step is the per-group step of a grouped job: the program (or its
// gradient, or what a Derivative asks for) over a group's tensors and the
// shared inputs. The query and kernel are made once, for the first group
// that runs; after that the step only reads them, so that groups run on
// several goroutines.
type Step struct {
	Text    string
	Base    nablasd.Inputs // the shared inputs and the groups' stand-ins
	Opts    *nablasd.Options
	Wrt     string   // the gradient's input, "" for the value
	Grouped []string // the grouped inputs' names
	// Derivative, when set, is what each group computes instead of the
	// value or Wrt's gradient: the value and gradients from one run, or a
	// product (its values, the cotangent, tangents or direction, are the
	// same for every group). Its results come from RunAll, in the order
	// of Grouped.Outputs.
	Derivative *nablasd.Derivative
	// NonFinite, when set, is called with a group's result that holds a
	// NaN or an infinity (nf: where; res.CheckFinite locates the first);
	// its error fails the group.
	NonFinite func(g *datasets.Group, res *nablasd.Result, nf *nablasd.NonFinite) error

	used map[string]bool // the program's inputs: the unused ones are not rebound

	mu      sync.Mutex
	ready   bool
	err     error
	query   *nablasd.Query
	warned  int // the query's warnings before it was compiled
	kernel  *nablasd.Kernel
	compile time.Duration
	// results are destinations of the kernel, reused group after group
	// (a result's storage, its frame and its dense levels, is not
	// allocated again for every group): a group's results are copied
	// into tables before its destination goes back
	results sync.Pool
}

// groupInputs are a group's values of the grouped inputs.
func (s *Step) groupInputs(g *datasets.Group) nablasd.Inputs {
	in := nablasd.Inputs{}
	for _, n := range s.Grouped {
		if s.used == nil || s.used[n] {
			in[n] = TableValue(g.Inputs[n])
		}
	}
	return in
}

// Prepare prepares and compiles the program for a group's inputs (the
// optimizer's cost model measures them; the plan holds for every group:
// the groups differ only in their arrays), unless that was done already.
// The kernel releases the group's tensors (nablasd.Kernel.Release): each
// run gives it its group's.
func (s *Step) Prepare(g *datasets.Group) error {
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
	q, err := Prepare(s.Text, inputs, s.Opts, s.Wrt, nil)
	if err != nil {
		s.err = err
		return err
	}
	s.used = map[string]bool{}
	for _, n := range q.InputNames() {
		s.used[n] = true
	}
	s.query, s.warned = q, len(q.Warnings())
	switch {
	case s.Derivative != nil:
		s.kernel, s.err = q.CompileDerivative(s.Derivative)
	case s.Wrt != "":
		s.kernel, s.err = q.Compile(s.Wrt)
	default:
		s.kernel, s.err = q.Compile()
	}
	if s.err == nil {
		// every run gives the kernel its group's tensors: it need not
		// keep the first group's, which would stay to the end of the job
		var names []string
		for _, n := range s.Grouped {
			if tt := g.Inputs[n]; s.used[n] && tt != nil && tt.Tensor != nil {
				names = append(names, n)
			}
		}
		s.err = s.kernel.Release(names...)
	}
	s.compile = time.Since(start)
	return s.err
}

// Run computes one group's result: the value or Wrt's gradient (a step
// of one result).
func (s *Step) Run(g *datasets.Group) (*datasets.TableTensor, error) {
	res, err := s.RunAll(g)
	if err != nil {
		return nil, err
	}
	if len(res) != 1 {
		return nil, fmt.Errorf("internal error: batch: Run of a step of %d results", len(res))
	}
	return res[0], nil
}

// RunAll computes one group's results: the value or Wrt's gradient, or
// every result of the Derivative (nablasd.Kernel.Split), in order.
func (s *Step) RunAll(g *datasets.Group) ([]*datasets.TableTensor, error) {
	if err := s.Prepare(g); err != nil {
		return nil, err
	}
	res, _ := s.results.Get().(*nablasd.Result)
	if res == nil {
		res = s.kernel.NewResult()
	}
	defer s.results.Put(res)
	if err := s.kernel.Run(res, s.groupInputs(g)); err != nil {
		return nil, err
	}
	outs, err := s.kernel.Split(res)
	if err != nil {
		return nil, err
	}
	tables := make([]*datasets.TableTensor, len(outs))
	for i, r := range outs {
		if tables[i], err = ResultTable(r); err != nil {
			return nil, err
		}
		// the table's values are the result's: scanning them is cheaper
		// than reading the result again
		if s.NonFinite != nil && !finite(tables[i]) {
			if nf := r.NonFinite(); nf != nil {
				if err := s.NonFinite(g, r, nf); err != nil {
					return nil, err
				}
			}
		}
	}
	return tables, nil
}

// finite reports whether a table's values are all finite.
func finite(tt *datasets.TableTensor) bool {
	if tt.Tensor == nil {
		return !math.IsNaN(tt.Scalar) && !math.IsInf(tt.Scalar, 0)
	}
	for _, v := range tt.Tensor.Val {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// Kernel is the step's kernel (nil before the first group's Prepare):
// Executor and Tier say what ran the groups.
func (s *Step) Kernel() *nablasd.Kernel {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.kernel
}

// LateWarnings are the query's warnings from its compilation on (its
// preparation's are the stand-ins' query's, printed by OpenGrouped): a
// cached native kernel that cannot be loaded, one that failed to build.
func (s *Step) LateWarnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.query == nil {
		return nil
	}
	return s.query.Warnings()[s.warned:]
}

// CompileTime is the time the preparation and compilation took.
func (s *Step) CompileTime() time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.compile
}
