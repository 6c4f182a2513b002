package pipeline

import (
	"context"
	"fmt"

	"github.com/nablasd/nablasd/datasets"
)

// split names one split of one of the job's tables.
type split struct {
	table, split int
}

func encodeSplit(s split) []byte {
	e := &encoder{}
	e.int(int64(s.table))
	e.int(int64(s.split))
	return e.b
}

func decodeSplit(b []byte) (split, error) {
	d := &decoder{b: b}
	s := split{table: int(d.int()), split: int(d.int())}
	return s, d.done()
}

// splitsFn lists the splits of the job's tables (Parquet row groups,
// whole Arrow files); a Reshuffle after it hands them to the workers.
type splitsFn struct {
	Job Job
}

func (f *splitsFn) ProcessElement(ctx context.Context, _ []byte, emit func([]byte)) error {
	for i, t := range f.Job.Tables {
		st, err := t.open(f.Job.Key)
		if err != nil {
			return inputError(err)
		}
		n := st.Splits()
		st.Close()
		for s := range n {
			emit(encodeSplit(split{i, s}))
		}
	}
	return nil
}

// reader is a DoFn's tables, opened on first use, for reading splits.
type reader struct {
	tables map[int]*datasets.SplitTable
}

// read reads a split, calling emit for each chunk with the table's
// description; it counts the split, its bytes and rows.
func (r *reader) read(ctx context.Context, job Job, b []byte, emit func(Table, *datasets.Chunk) error) error {
	s, err := decodeSplit(b)
	if err != nil {
		return err
	}
	if s.table < 0 || s.table >= len(job.Tables) {
		return fmt.Errorf("internal error: nablasd-beam: split of table %d", s.table)
	}
	t := job.Tables[s.table]
	if r.tables == nil {
		r.tables = map[int]*datasets.SplitTable{}
	}
	st := r.tables[s.table]
	if st == nil {
		if st, err = t.open(job.Key); err != nil {
			return err
		}
		r.tables[s.table] = st
	}
	cSplits.Inc(ctx, 1)
	cBytesIn.Inc(ctx, st.Bytes(s.split))
	return st.Read(s.split, func(c *datasets.Chunk) error {
		cRowsIn.Inc(ctx, int64(len(c.Val)))
		return emit(t, c)
	})
}

func (r *reader) close() {
	for _, st := range r.tables {
		st.Close()
	}
	r.tables = nil
}
