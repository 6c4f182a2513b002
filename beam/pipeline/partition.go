package pipeline

import (
	"context"
	"fmt"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/nablasd/nablasd/datasets"
)

// Partitioned adds a row-partitioned job (--partition-rows) to the
// pipeline:
//
//	Impulse ─▶ splitsFn ─▶ Reshuffle ─▶ readBlocksFn (entries keyed by row block)
//	        ─▶ GroupByKey ─▶ blockStepFn (the program on a block; side input: loadFn)
//	        ─▶ Combine(addFn: the semiring's +) ─▶ writeResultFn (the table job.Out)
//
// job.Tables are the partitioned input (first) and the inputs split
// along with it; the others are in job.Broadcast. The program must be a
// sum over the partitioned input's rows (package rowsum).
func Partitioned(s beam.Scope, job Job) {
	s = s.Scope("nablasd.partitioned")
	imp := beam.Impulse(s)
	side := beam.ParDo(s, &loadFn{Job: job}, imp)
	splits := beam.Reshuffle(s, beam.ParDo(s, &splitsFn{Job: job}, imp))
	chunks := beam.ParDo(s, &readBlocksFn{Job: job}, splits)
	blocks := beam.GroupByKey(s, chunks)
	partials := beam.ParDo(s, &blockStepFn{Job: job}, blocks, beam.SideInput{Input: side})
	beam.ParDo0(s, &writeResultFn{Job: job}, beam.Combine(s, &addFn{}, partials))
}

// readBlocksFn reads a split into chunks keyed by row block: the entries
// of rows [b·N, (b+1)·N) go to block b. The first split of the
// partitioned input also sends an empty chunk to block 0, so that a block
// runs even when the input has no entries (its result is the program's
// on empty inputs).
type readBlocksFn struct {
	Job Job
	r   reader
}

func (f *readBlocksFn) ProcessElement(ctx context.Context, b []byte, emit func(int64, []byte)) error {
	s, err := decodeSplit(b)
	if err != nil {
		return err
	}
	n := f.Job.BlockRows
	send := func(name string, block int64, c *datasets.Chunk) {
		e := encodeChunk(&chunk{input: name, Chunk: *c})
		shuffled(ctx, e)
		emit(block, e)
	}
	if s.table == 0 && s.split == 0 {
		t := f.Job.Tables[0]
		send(t.Name, 0, &datasets.Chunk{Row: -1, Idx: make([][]int, len(t.Shape))})
	}
	err = f.r.read(ctx, f.Job, b, func(t Table, c *datasets.Chunk) error {
		if len(c.Idx) == 0 {
			return fmt.Errorf("--in %s: a table without coordinate columns has no rows to partition", t.Name)
		}
		// the entries of each block, in their order (a sorted table's
		// chunk is one or two blocks: a run of each)
		var cur *datasets.Chunk
		block := int64(-1)
		for e, i := range c.Idx[0] {
			if b := int64(i) / n; b != block || cur == nil {
				if cur != nil {
					send(t.Name, block, cur)
				}
				block = b
				cur = &datasets.Chunk{Row: c.Row + int64(e), Idx: make([][]int, len(c.Idx))}
			}
			for m := range c.Idx {
				cur.Idx[m] = append(cur.Idx[m], c.Idx[m][e])
			}
			cur.Val = append(cur.Val, c.Val[e])
		}
		if cur != nil {
			send(t.Name, block, cur)
		}
		return nil
	})
	return inputError(err)
}

func (f *readBlocksFn) StartBundle(ctx context.Context, _ func(int64, []byte)) {
	announce(ctx, cSplits, cBytesIn, cRowsIn, cShuffle)
}

func (f *readBlocksFn) Teardown() { f.r.close() }

// blockStepFn runs the program, or its gradient, on one row block: the
// partitioned input's rows and those of the inputs split along, the
// others broadcast (the side input).
type blockStepFn struct {
	Job Job
	w   *worker
}

func (f *blockStepFn) ProcessElement(ctx context.Context, block int64, chunks func(*[]byte) bool, side func(*[]byte) bool, emit func([]byte)) error {
	p, err := f.step(ctx, block, chunks, side)
	if err != nil {
		return inputError(err)
	}
	e := encodePartial(p)
	shuffled(ctx, e)
	cBlocks.Inc(ctx, 1)
	emit(e)
	return nil
}

func (f *blockStepFn) step(ctx context.Context, block int64, chunks, side func(*[]byte) bool) (*partial, error) {
	if f.w == nil {
		w, err := start(f.Job, side, func(t Table, st *datasets.SplitTable) (any, error) {
			return standIn(st, t.Shape)
		})
		if err != nil {
			return nil, err
		}
		f.w = w
	}
	by := map[string][]*datasets.Chunk{}
	var b []byte
	for chunks(&b) {
		c, err := decodeChunk(b)
		if err != nil {
			return nil, err
		}
		if len(c.Val) > 0 {
			by[c.input] = append(by[c.input], &c.Chunk)
		}
	}
	lo := int(block * f.Job.BlockRows)
	hi := lo + int(f.Job.BlockRows)
	g := &datasets.Group{Key: datasets.Key{Int: block}, Inputs: map[string]*datasets.TableTensor{}}
	for _, t := range f.Job.Tables {
		tt, err := blockTensor(f.w.tables[t.Name], by[t.Name], lo, hi)
		if err != nil {
			return nil, fmt.Errorf("--in %s: rows %d..%d: %v", t.Name, lo, hi-1, err)
		}
		g.Inputs[t.Name] = tt
	}
	res, err := f.w.run(ctx, g)
	if err != nil {
		return nil, fmt.Errorf("rows %d..%d of %s: %v", lo, hi-1, f.Job.Partition, err)
	}
	return newPartial(res)
}

func (f *blockStepFn) StartBundle(ctx context.Context, _ func(*[]byte) bool, _ func([]byte)) {
	announce(ctx, cBlocks, cCompiles, cShuffle)
}

func (f *blockStepFn) Teardown() { f.w.close() }

// addFn adds the blocks' results: the semiring's +, merging sorted
// entries (any order of the blocks gives the same entries; the sums
// differ only in the order of floating-point additions).
type addFn struct{}

func (addFn) CreateAccumulator() *partial { return &partial{} }

func (addFn) AddInput(acc *partial, b []byte) (*partial, error) {
	p, err := decodePartial(b)
	if err != nil {
		return nil, err
	}
	return add(acc, p)
}

func (addFn) MergeAccumulators(a, b *partial) (*partial, error) { return add(a, b) }

func (addFn) ExtractOutput(acc *partial) []byte { return encodePartial(acc) }

// writeResultFn writes the sum, the job's result, to job.Out.
type writeResultFn struct {
	Job Job
}

func (f *writeResultFn) ProcessElement(ctx context.Context, b []byte) error {
	p, err := decodePartial(b)
	if err != nil {
		return err
	}
	if p.blocks == 0 {
		return inputError(fmt.Errorf("internal error: nablasd-beam: no block ran"))
	}
	tt, err := p.table()
	if err != nil {
		return inputError(err)
	}
	if err := datasets.WriteTable(f.Job.Out, tt, f.Job.Meta); err != nil {
		return inputError(fmt.Errorf("--out %s: %v", f.Job.Out, err))
	}
	rows := int64(1)
	if tt.Tensor != nil {
		rows = int64(tt.Tensor.NNZ())
	}
	cRowsOut.Inc(ctx, rows)
	return nil
}

func (f *writeResultFn) StartBundle(ctx context.Context) { announce(ctx, cRowsOut) }

// partialType is the accumulator's type, whose coder is registered.
var partialType = reflect.TypeOf((*partial)(nil))
