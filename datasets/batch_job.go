package datasets

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// Job is a grouped batch job: a step run once per group of a Groups, its
// results written to one table with the key column first.
//
// The step is a pure function of its group (and of whatever shared inputs
// it closed over): groups run on Workers goroutines, in any order, and a
// group's result does not depend on the others. The job's result is the
// dictionary {key -> step(group)}, the semiring sum of one singleton
// dictionary per group; a group's tensors are themselves the sums of their
// rows (coordinates stored twice add up). That is the shape of a
// distributed run as well (Apache Beam's Go SDK: the tables' rows keyed by
// the key column, CoGroupByKey, a ParDo calling the step, a sink writing
// the rows), which this local runner does with a bounded amount of memory
// instead: Workers groups at a time.
type Job struct {
	Groups *Groups
	// Step computes a group's result. Its error is reported with the
	// group's key.
	Step func(*Group) (*TableTensor, error)
	// Order is the order of every result (0: scalars).
	Order int
	// Out is the output table (.parquet, .arrow or .arrows).
	Out string
	// Meta is written in the output's metadata (e.g. nablasd.program);
	// --resume accepts an earlier journal or output only when it has the
	// same entries.
	Meta map[string]string
	// Workers is the number of groups run at once (at least 1).
	Workers int
	// Resume keeps the groups of an earlier run's journal (OUT.partial)
	// and output, and runs only the others.
	Resume bool
	// Progress, when not nil, gets a progress line (groups done, entries
	// per second, time left) redrawn in place.
	Progress io.Writer
	// Outputs, when set, makes a job of several results, each written to
	// a table of its own as Out is (Out, Order and Meta are then unused),
	// and Steps computes a group's results, one for each (Step unused).
	// --resume keeps the groups every output holds.
	Outputs []JobOutput
	Steps   func(*Group) ([]*TableTensor, error)
	// RowStep, set instead of Step, gives a group's result as rows of
	// the columns Columns (the job puts the key column first), written to
	// Out with Meta: a result that is not one tensor, such as a grouped
	// fit's parameters and losses (batch_rows.go). A group's rows may be
	// none.
	RowStep func(*Group) (arrow.RecordBatch, error)
	Columns []arrow.Field
}

// JobOutput is one of the results of a job of several (Job.Outputs).
type JobOutput struct {
	Out   string            // its table (.parquet, .arrow or .arrows)
	Order int               // the order of the result (0: scalars)
	Meta  map[string]string // written in its metadata, as Job.Meta
}

// JobStats tells what a job did.
type JobStats struct {
	Groups  int   // groups run
	Kept    int   // groups kept from an earlier run (Resume)
	Rows    int64 // input rows read for the groups run
	Entries int64 // output rows written for the groups run
	Elapsed time.Duration
}

// ErrStopped is returned (wrapped) by Job.Run when its context is
// cancelled: the groups finished so far are kept in the journal, and a run
// with Resume finishes the job.
var ErrStopped = errors.New("stopped")

type jobItem struct {
	seq int
	g   *Group
}

type jobResult struct {
	seq  int
	key  Key
	rows int64
	res  []*TableTensor    // one for each output
	recs arrow.RecordBatch // RowStep's result
	err  error
}

// outputs are the job's outputs, and its step giving a result for each.
func (j *Job) outputs() ([]JobOutput, func(*Group) ([]*TableTensor, error)) {
	if j.Outputs != nil {
		return j.Outputs, j.Steps
	}
	return []JobOutput{{Out: j.Out, Order: j.Order, Meta: j.Meta}}, func(g *Group) ([]*TableTensor, error) {
		res, err := j.Step(g)
		if err != nil {
			return nil, err
		}
		return []*TableTensor{res}, nil
	}
}

// Run runs the job. Each finished group is appended to the journal
// OUT.partial; at the end the journal becomes OUT (written to a temporary
// file and renamed) and is removed. On an error the journal is removed and
// OUT is left as it was; when ctx is cancelled the groups running finish,
// the journal is kept, and Run returns an error wrapping ErrStopped.
func (j *Job) Run(ctx context.Context) (*JobStats, error) {
	start := time.Now()
	workers := max(j.Workers, 1)
	key := j.Groups.KeyField()
	outs, step := j.outputs()
	var jrs []*journal
	removeAll := func() {
		for _, jr := range jrs {
			jr.remove()
		}
	}
	for _, o := range outs {
		meta := maps.Clone(o.Meta)
		if meta == nil {
			meta = map[string]string{}
		}
		meta[MetaKey] = key.Name
		schema := TensorSchema(o.Order, &arrow.Field{Name: key.Name, Type: key.Type}, meta)
		if j.RowStep != nil {
			schema = RowsSchema(&arrow.Field{Name: key.Name, Type: key.Type}, j.Columns, meta)
		}
		jr, err := createJournal(o.Out, schema, j.Resume, j.RowStep != nil)
		if err != nil {
			removeAll()
			return nil, err
		}
		jrs = append(jrs, jr)
	}
	// the groups kept: those every output holds (the reader's copy: the
	// writer adds to the journals' done)
	kept := maps.Clone(jrs[0].done)
	for _, jr := range jrs[1:] {
		maps.DeleteFunc(kept, func(k Key, _ bool) bool { return !jr.done[k] })
	}
	st := &JobStats{Kept: len(kept)}
	prog := newProgress(j.Progress, j.Groups.Rows(), start)
	defer prog.stop()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	tokens := make(chan struct{}, workers) // groups in flight
	items := make(chan jobItem)
	results := make(chan jobResult, workers)
	var readErr error
	reachedEnd := false
	go func() { // the reader
		defer close(items)
		for seq := 0; ; seq++ {
			select {
			case tokens <- struct{}{}:
			case <-ctx.Done():
				return
			}
			if ctx.Err() != nil {
				return
			}
			g, err := j.Groups.Next(func(k Key) bool { return kept[k] })
			if err != nil {
				if errors.Is(err, io.EOF) {
					reachedEnd = true
				} else {
					readErr = err
				}
				<-tokens
				return
			}
			if g.Inputs == nil { // kept from an earlier run
				prog.skip(g.Rows)
				<-tokens
				seq--
				continue
			}
			select {
			case items <- jobItem{seq, g}:
			case <-ctx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range items {
				r := jobResult{seq: it.seq, key: it.g.Key, rows: it.g.Rows}
				if j.RowStep != nil {
					r.recs, r.err = runStep(j.RowStep, it.g)
				} else {
					r.res, r.err = runStep(step, it.g)
					if r.err == nil && len(r.res) != len(outs) {
						r.err = fmt.Errorf("internal error: datasets: %d results for %d outputs", len(r.res), len(outs))
					}
				}
				if r.err != nil {
					r.err = fmt.Errorf("%s=%s: %w", key.Name, it.g.Key, r.err)
				}
				results <- r
			}
		}()
	}
	go func() { wg.Wait(); close(results) }()

	// The writer: results in key order, each a batch of the journal.
	pending := map[int]jobResult{}
	next, dropped := 0, 0
	var firstErr error
	for r := range results {
		if firstErr != nil {
			<-tokens
			continue
		}
		if r.err != nil && !stopping(ctx, r.err) {
			firstErr = r.err
			cancel()
			<-tokens
			continue
		}
		pending[r.seq] = r
		for {
			r, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			if r.err != nil {
				<-tokens // stopped by the cancellation: not done
				dropped++
				continue
			}
			n, err := j.record(jrs, r)
			<-tokens
			if err != nil {
				firstErr = err
				cancel()
				break
			}
			st.Groups++
			st.Rows += r.rows
			st.Entries += n
			prog.done(r.rows)
		}
	}
	if firstErr == nil {
		firstErr = readErr
	}
	stopped := firstErr == nil && (!reachedEnd || dropped > 0)
	st.Elapsed = time.Since(start)
	switch {
	case firstErr != nil:
		removeAll()
		return st, firstErr
	case stopped:
		var paths []string
		for _, jr := range jrs {
			if err := jr.close(); err != nil {
				return st, err
			}
			paths = append(paths, jr.path)
		}
		return st, fmt.Errorf("%w after %d groups (%d kept): they are in %s; run again with --resume to finish", ErrStopped, st.Groups, st.Kept, strings.Join(paths, ", "))
	}
	prog.stop()
	for i, jr := range jrs {
		if err := jr.finish(outs[i].Out); err != nil {
			for _, jr := range jrs[i:] {
				jr.remove()
			}
			return st, err
		}
	}
	st.Elapsed = time.Since(start)
	return st, nil
}

// stopping reports whether a step's error is its being stopped by the
// job's cancellation (a step that takes long, a fit, may watch the
// context its caller cancels with the job's): the group is then not done,
// and a run with Resume runs it.
func stopping(ctx context.Context, err error) bool {
	return ctx.Err() != nil && (errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded))
}

// runStep calls the step, turning a panic into an error.
func runStep[R any](step func(*Group) (R, error), g *Group) (res R, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("internal error: %v", p)
		}
	}()
	return step(g)
}

// record writes a group's results to the journals (each that does not
// hold the group already, from a run that stopped between them) and
// returns their rows.
func (j *Job) record(jrs []*journal, r jobResult) (int64, error) {
	total := int64(0)
	if j.RowStep != nil {
		if r.recs == nil {
			return 0, fmt.Errorf("internal error: datasets: no rows for group %s", r.key)
		}
		n, err := jrs[0].writeRows(r.key, r.recs)
		if err == nil {
			err = jrs[0].sync()
		}
		return n, err
	}
	for i, jr := range jrs {
		if jr.done[r.key] {
			continue
		}
		if i >= len(r.res) || r.res[i] == nil {
			return 0, fmt.Errorf("internal error: datasets: no result for group %s", r.key)
		}
		n, err := jr.writeGroup(r.key, r.res[i])
		if err != nil {
			return 0, err
		}
		if err := jr.flush(); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// writeGroup appends a group's result to the journal and returns its
// rows (0 for an empty group's marker row).
func (jr *journal) writeGroup(key Key, res *TableTensor) (int64, error) {
	rec, err := groupRecord(jr.schema, key, res)
	if err != nil {
		return 0, err
	}
	defer rec.Release()
	var shape []int
	if t := res.Tensor; t != nil {
		shape = t.Shape
		if jr.format == "" {
			jr.format = t.Format.Name()
		}
	}
	if err := jr.write(key, rec, shape); err != nil {
		return 0, err
	}
	n := rec.NumRows()
	if res.Tensor != nil && res.Tensor.NNZ() == 0 {
		n = 0 // the marker row
	}
	return n, nil
}
