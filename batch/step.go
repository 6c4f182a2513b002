package batch

import (
	"sync"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
)

// Step is the per-group step of a grouped job: the program (or its
// gradient) over a group's tensors and the shared inputs. The query and
// kernel are made once, for the first group that runs; after that the
// step only reads them, so that groups run on several goroutines.
type Step struct {
	Text    string
	Base    nablasd.Inputs // the shared inputs and the groups' stand-ins
	Opts    *nablasd.Options
	Wrt     string   // the gradient's input, "" for the value
	Grouped []string // the grouped inputs' names

	used map[string]bool // the program's inputs: the unused ones are not rebound

	mu      sync.Mutex
	ready   bool
	err     error
	query   *nablasd.Query
	warned  int // the query's warnings before it was compiled
	kernel  *nablasd.Kernel
	compile time.Duration
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
	var ws []string
	if s.Wrt != "" {
		ws = []string{s.Wrt}
	}
	s.query, s.warned = q, len(q.Warnings())
	s.kernel, s.err = q.Compile(ws...)
	s.compile = time.Since(start)
	return s.err
}

// Run computes one group's result.
func (s *Step) Run(g *datasets.Group) (*datasets.TableTensor, error) {
	if err := s.Prepare(g); err != nil {
		return nil, err
	}
	res := s.kernel.NewResult()
	if err := s.kernel.Run(res, s.groupInputs(g)); err != nil {
		return nil, err
	}
	return ResultTable(res)
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
