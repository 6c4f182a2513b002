package pipeline

import (
	"context"
	"fmt"
	"hash/fnv"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/datasets"
)

// Grouped adds a grouped job (--group-by) to the pipeline:
//
//	Impulse ─▶ splitsFn ─▶ Reshuffle ─▶ readGroupsFn (chunks keyed by group key)
//	        ─▶ GroupByKey ─▶ groupStepFn (the compiled step, once a group; side input: loadFn)
//	        ─▶ GroupByKey by shard ─▶ writeShardFn (a Parquet shard) ─▶ Combine ─▶ manifestFn
//
// job.Tables are the grouped tables; the shared ones are among
// job.Broadcast. The output is the directory job.Out.
func Grouped(s beam.Scope, job Job) {
	s = s.Scope("nablasd.grouped")
	imp := beam.Impulse(s)
	side := beam.ParDo(s, &loadFn{Job: job}, imp)
	splits := beam.Reshuffle(s, beam.ParDo(s, &splitsFn{Job: job}, imp))
	chunks := beam.ParDo(s, &readGroupsFn{Job: job}, splits)
	groups := beam.GroupByKey(s, chunks)
	results := beam.ParDo(s, &groupStepFn{Job: job}, groups, beam.SideInput{Input: side})
	shards := beam.GroupByKey(s, results)
	infos := beam.ParDo(s, &writeShardFn{Job: job}, shards)
	beam.ParDo0(s, &manifestFn{Job: job}, beam.Combine(s, &collectFn{}, infos))
}

// readGroupsFn reads a split into chunks keyed by their group key.
type readGroupsFn struct {
	Job Job
	r   reader
}

func (f *readGroupsFn) ProcessElement(ctx context.Context, b []byte, emit func(string, []byte)) error {
	err := f.r.read(ctx, f.Job, b, func(t Table, c *datasets.Chunk) error {
		e := encodeChunk(&chunk{input: t.Name, Chunk: *c})
		shuffled(ctx, e)
		emit(keyString(c.Key), e)
		return nil
	})
	return inputError(err)
}

func (f *readGroupsFn) StartBundle(ctx context.Context, _ func(string, []byte)) {
	announce(ctx, cSplits, cBytesIn, cRowsIn, cShuffle)
}

func (f *readGroupsFn) Teardown() { f.r.close() }

// groupStepFn runs the step on each group: its tables' tensors built
// from the group's chunks, the program compiled once a worker. Results
// are keyed by their output shard.
type groupStepFn struct {
	Job Job
	w   *worker
}

func (f *groupStepFn) ProcessElement(ctx context.Context, key string, chunks func(*[]byte) bool, side func(*[]byte) bool, emit func(int64, []byte)) error {
	k, err := parseKey(key)
	if err != nil {
		return err
	}
	res, err := f.step(ctx, k, chunks, side)
	if err != nil {
		return inputError(fmt.Errorf("%s=%s: %v", f.Job.Key, k, err))
	}
	e := encodeResult(res)
	shuffled(ctx, e)
	cGroups.Inc(ctx, 1)
	emit(shardOf(key, f.Job.Shards), e)
	return nil
}

func (f *groupStepFn) step(ctx context.Context, k datasets.Key, chunks, side func(*[]byte) bool) (*result, error) {
	if f.w == nil {
		w, err := start(f.Job, side, standInOf)
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
		by[c.input] = append(by[c.input], &c.Chunk)
	}
	g := &datasets.Group{Key: k, Inputs: map[string]*datasets.TableTensor{}}
	for _, t := range f.Job.Tables {
		tt, err := f.w.tables[t.Name].Tensor(by[t.Name])
		if err != nil {
			return nil, err
		}
		g.Inputs[t.Name] = tt
		for _, c := range by[t.Name] {
			g.Rows += int64(len(c.Val))
		}
	}
	if f.Job.Fit != nil {
		rows, err := f.w.runFit(ctx, g)
		return &result{key: k, rows: rows}, err
	}
	res, err := f.w.run(ctx, g)
	return &result{key: k, value: res}, err
}

func (f *groupStepFn) StartBundle(ctx context.Context, _ func(*[]byte) bool, _ func(int64, []byte)) {
	announce(ctx, cGroups, cCompiles, cShuffle)
}

func (f *groupStepFn) Teardown() { f.w.close() }

// standInOf is a grouped table's stand-in: an empty tensor of its shape
// and format (a number for a scalar table), as nablasd's single-machine
// job uses.
func standInOf(t Table, st *datasets.SplitTable) (any, error) {
	return batch.StandIn(t.Name, t.Shape, st.Format())
}

// shardOf is a group's output shard: a hash of its key.
func shardOf(key string, shards int) int64 {
	h := fnv.New32a()
	h.Write([]byte(key))
	return int64(h.Sum32() % uint32(max(shards, 1)))
}
