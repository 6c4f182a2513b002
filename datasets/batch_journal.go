package datasets

import (
	"bufio"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/nablasd/nablasd/formats"
)

// The journal of a grouped job
//
// A grouped job appends each finished group to OUT.partial, an Arrow IPC
// stream with one record batch a group (its rows; an empty group is one
// all-null row) whose custom metadata holds the group's shape. A stream
// cut short by a kill is still readable up to its last whole batch, and a
// batch is a whole group, so the journal always lists finished groups
// only. At the end the journal becomes OUT (in key order) and is removed;
// a stopped job leaves it for --resume.

// JournalSuffix is appended to a grouped job's output path to name its
// journal.
const JournalSuffix = ".partial"

// journal is the open journal of a running job.
type journal struct {
	path   string
	f      *os.File
	bw     *bufio.Writer
	w      *ipc.Writer
	schema *arrow.Schema
	keys   []Key        // the groups written, in order
	shape  []int        // elementwise largest shape of the groups written
	format string       // the results' format name
	done   map[Key]bool // keys written (also those copied on resume)
	meta   map[string]string
	// rows: the groups' results are rows of a schema of their own
	// (Job.RowStep), not tensors
	rows bool
	// batches counts the record batches written (journalSum)
	batches int64
	// flushed is when the journal was last handed to the operating
	// system (flush)
	flushed time.Time
}

// journalFlush is how often a running job hands its journal to the
// operating system: a job killed outright keeps the groups finished up
// to this long before (a stopped one, all of them). Flushing after every
// group cost a system call a group, as much as a small group's kernel.
const journalFlush = 100 * time.Millisecond

// journalSum is the checksum of record batch n of a journal, the rows of
// a group of the given shape: "crc32 batch=N sum=XXXXXXXX", the CRC-32 of
// the shape and of the columns' checksums (ipc_checksum.go), so that a
// journal damaged on disk is noticed when a job resumes or finishes.
func journalSum(n int64, shape string, rec arrow.RecordBatch) string {
	cols := make([]int, rec.NumCols())
	for i := range cols {
		cols[i] = i
	}
	h := crc32.NewIEEE()
	writeString(h, shape)
	for _, c := range columnSums(rec, cols) {
		writeInt(h, int64(c))
	}
	return fmt.Sprintf("crc32 batch=%d sum=%08x", n, h.Sum32())
}

// verifyJournal checks record batch n of a journal against its checksum;
// a journal of an earlier nablasd, without checksums (the first batch
// tells), is not checked (sums false).
func verifyJournal(n int64, rec arrow.RecordBatch, sums *bool) error {
	md := arrow.Metadata{}
	if rm, ok := rec.(arrow.RecordBatchWithMetadata); ok {
		md = rm.Metadata()
	}
	v, has := md.GetValue(checksumsKey)
	if n == 0 {
		*sums = has
	}
	if !*sums {
		return nil
	}
	shape, _ := md.GetValue(MetaShape)
	if !has || v != journalSum(n, shape, rec) {
		return fmt.Errorf("record batch %d fails its checksum", n)
	}
	return nil
}

// createJournal starts a job's journal: a new one, or with resume the
// groups of an existing journal and of an existing output copied into it.
func createJournal(out string, schema *arrow.Schema, resume, rows bool) (*journal, error) {
	path := out + JournalSuffix
	j := &journal{path: path, schema: schema, done: map[Key]bool{}, meta: schemaMeta(schema), rows: rows}
	tmp := path + ".new"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, err
	}
	j.f, j.bw = f, bufio.NewWriterSize(f, 64<<10)
	j.w = ipc.NewWriter(j.bw, ipc.WithSchema(schema), ipc.WithAllocator(goAlloc))
	fail := func(err error) (*journal, error) {
		j.w.Close()
		f.Close()
		os.Remove(tmp)
		return nil, err
	}
	if resume {
		if err := j.copyJournal(path); err != nil {
			return fail(err)
		}
		if err := j.copyOutput(out); err != nil {
			return fail(err)
		}
	}
	if err := j.sync(); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fail(err)
	}
	return j, nil
}

// compatible checks that an earlier journal or output was written by the
// same job: the same key column, result order and metadata (the program
// and its bindings).
func (j *journal) compatible(name string, sc *arrow.Schema) error {
	if fieldList(sc) != fieldList(j.schema) {
		return fmt.Errorf("%s: its columns (%s) differ from this job's (%s): run without --resume to start over", name, fieldList(sc), fieldList(j.schema))
	}
	old := schemaMeta(sc)
	for _, k := range slices.Sorted(maps.Keys(j.meta)) {
		if k == MetaShape || k == MetaFormat {
			continue
		}
		if old[k] != j.meta[k] {
			return fmt.Errorf("%s was written by another job (its %s differs): run without --resume to start over", name, k)
		}
	}
	return nil
}

func fieldList(sc *arrow.Schema) string {
	s := ""
	for i, f := range sc.Fields() {
		if i > 0 {
			s += ", "
		}
		s += f.Name + " " + f.Type.String()
	}
	return s
}

// copyJournal copies the whole groups of an earlier journal.
func (j *journal) copyJournal(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := newStreamReader(f, fileSize(f))
	if err != nil {
		return nil // cut before its schema: nothing to keep
	}
	defer r.Release()
	if err := j.compatible(path, r.Schema()); err != nil {
		return err
	}
	sums := false
	for n := int64(0); r.Next(); n++ {
		rec := r.RecordBatch()
		if verifyJournal(n, rec, &sums) != nil {
			// damaged: keep the groups before it; the others run again
			break
		}
		if rec.NumRows() == 0 {
			continue
		}
		k, ok := keyAt(rec.Column(0), 0)
		if !ok || j.done[k] {
			continue
		}
		if err := j.write(k, rec, recordShape(rec)); err != nil {
			return err
		}
	}
	// r.Err() is the cut end of a killed job's journal: what follows the
	// last whole batch is dropped, and those groups run again.
	return nil
}

func recordShape(rec arrow.RecordBatch) []int {
	if rm, ok := rec.(arrow.RecordBatchWithMetadata); ok {
		if s, ok := rm.Metadata().GetValue(MetaShape); ok {
			if shape, err := parseExtents(s, ","); err == nil {
				return shape
			}
		}
	}
	return nil
}

// copyOutput copies the groups of an earlier finished output.
func (j *journal) copyOutput(out string) error {
	if _, err := os.Stat(out); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if j.rows {
		return j.copyRowsOutput(out)
	}
	t, err := openTable(out)
	if err != nil {
		return err
	}
	sc, meta := t.schema, t.meta
	t.close()
	if j.format == "" {
		j.format = meta[MetaFormat]
	}
	md := arrow.MetadataFrom(meta)
	if err := j.compatible(out, arrow.NewSchema(sc.Fields(), &md)); err != nil {
		return err
	}
	key := j.schema.Field(0).Name
	g, err := OpenGroups(key, []GroupInput{{Name: "out", Path: out, Format: formatForCopy(j.schema)}})
	if err != nil {
		return err
	}
	defer g.Close()
	shape, _ := g.Shape("out")
	for {
		grp, err := g.Next(func(k Key) bool { return j.done[k] })
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if grp.Inputs == nil {
			continue
		}
		rec, err := groupRecord(j.schema, grp.Key, grp.Inputs["out"])
		if err != nil {
			return err
		}
		err = j.write(grp.Key, rec, shape)
		rec.Release()
		if err != nil {
			return err
		}
	}
}

// formatForCopy is the format groups of an output are read in to be
// copied: COO keeps their entries' order.
func formatForCopy(sc *arrow.Schema) formats.Format {
	if len(sc.Fields()) <= 2 {
		return formats.Format{}
	}
	return formats.COO
}

// groupRecord returns a group's result as its rows.
func groupRecord(schema *arrow.Schema, key Key, t *TableTensor) (arrow.RecordBatch, error) {
	order := len(schema.Fields()) - 2
	if t.Tensor == nil {
		if order != 0 {
			return nil, fmt.Errorf("internal error: datasets: a scalar result for a table of order %d", order)
		}
		return entriesRecord(schema, &key, nil, []float64{t.Scalar}), nil
	}
	if t.Tensor.Order() != order {
		return nil, fmt.Errorf("internal error: datasets: a result of order %d for a table of order %d", t.Tensor.Order(), order)
	}
	idx, val, err := t.Tensor.Coords()
	if err != nil {
		return nil, err
	}
	return entriesRecord(schema, &key, idx, val), nil
}

// write appends a group's rows, with its shape and its checksum
// (journalSum).
func (j *journal) write(k Key, rec arrow.RecordBatch, shape []int) error {
	ext := formatExtents(shape, ",")
	md := arrow.NewMetadata([]string{MetaShape, checksumsKey}, []string{ext, journalSum(j.batches, ext, rec)})
	j.batches++
	cols := rec.Columns()
	wrapped := array.NewRecordBatchWithMetadata(j.schema, cols, rec.NumRows(), md)
	defer wrapped.Release()
	if err := j.w.Write(wrapped); err != nil {
		return fmt.Errorf("%s: %v", j.path, err)
	}
	if n := len(j.keys); n == 0 || j.keys[n-1] != k {
		j.keys = append(j.keys, k) // a group's rows copied in parts are one group
	}
	j.done[k] = true
	if shape != nil {
		if j.shape == nil {
			j.shape = append([]int(nil), shape...)
		}
		for m := range min(len(shape), len(j.shape)) {
			j.shape[m] = max(j.shape[m], shape[m])
		}
	}
	return nil
}

// sync flushes the journal to the operating system, so that a killed job
// keeps what it wrote.
func (j *journal) sync() error {
	j.flushed = time.Now()
	if err := j.bw.Flush(); err != nil {
		return fmt.Errorf("%s: %v", j.path, err)
	}
	return nil
}

// flush is sync when the last was journalFlush ago or more.
func (j *journal) flush() error {
	if time.Since(j.flushed) < journalFlush {
		return nil
	}
	return j.sync()
}

// close ends the stream (keeping the file).
func (j *journal) close() error {
	err := j.w.Close()
	if ferr := j.bw.Flush(); err == nil {
		err = ferr
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// remove closes and deletes the journal.
func (j *journal) remove() {
	j.close()
	os.Remove(j.path)
}

// finish writes the journal's groups to out, in key order, with the
// table's metadata, and removes the journal.
func (j *journal) finish(out string) error {
	if err := j.close(); err != nil {
		return err
	}
	md := maps.Clone(j.meta)
	if j.shape != nil {
		md[MetaShape] = formatExtents(j.shape, ",")
	} else if len(j.schema.Fields()) == 2 {
		md[MetaShape] = ""
	}
	if j.format != "" {
		md[MetaFormat] = j.format
	}
	m := arrow.MetadataFrom(md)
	schema := arrow.NewSchema(j.schema.Fields(), &m)
	// not buffered: each batch the coalescer gathers (64Ki rows, or a
	// larger group's) is a row group of its own, written as it comes,
	// instead of row groups of 1Mi rows held until they are full (24 MiB
	// for a matrix's rows, over the job's largest group when its groups
	// are small)
	w, err := createTable(out, schema, 1<<20, false)
	if err != nil {
		return err
	}
	if err := j.copyTo(w); err != nil {
		w.Abort()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	os.Remove(j.path)
	return nil
}

// copyTo writes the journal's batches to w in key order.
func (j *journal) copyTo(w *TableWriter) error {
	f, err := os.Open(j.path)
	if err != nil {
		return err
	}
	defer f.Close()
	r, err := newStreamReader(f, fileSize(f))
	if err != nil {
		return fmt.Errorf("%s: %v", j.path, err)
	}
	defer r.Release()
	sorted := slices.IsSortedFunc(j.keys, Key.Compare)
	var held []arrow.RecordBatch
	co := &coalescer{w: w}
	defer co.release()
	sums := false
	for n := int64(0); r.Next(); n++ {
		rec := r.RecordBatch()
		if err := verifyJournal(n, rec, &sums); err != nil {
			return fmt.Errorf("%s: corrupt journal: %v", j.path, err)
		}
		plain := array.NewRecordBatch(w.Schema(), rec.Columns(), rec.NumRows())
		if !sorted {
			held = append(held, plain)
			continue
		}
		if err := co.add(plain); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return fmt.Errorf("%s: %v", j.path, err)
	}
	// Groups from a resumed output and a journal interleave: sort them
	// (in memory, the size of the output).
	sort.SliceStable(held, func(a, b int) bool {
		ka, _ := keyAt(held[a].Column(0), 0)
		kb, _ := keyAt(held[b].Column(0), 0)
		return ka.Compare(kb) < 0
	})
	for i, rec := range held {
		held[i] = nil
		if err := co.add(rec); err != nil {
			for _, rec := range held[i+1:] {
				rec.Release()
			}
			return err
		}
	}
	return co.flush()
}

// coalescer writes record batches to a table joined into batches of at
// least coalesceRows rows: the journal holds a batch a group, and a
// writer's cost per batch (a Parquet writer's per column) is that of
// thousands of rows.
type coalescer struct {
	w    *TableWriter
	recs []arrow.RecordBatch
	rows int64
}

// coalesceRows is the rows a coalescer gathers before it writes.
const coalesceRows = 1 << 16

// add takes rec (and its reference), writing what it gathered when that
// reaches coalesceRows.
func (c *coalescer) add(rec arrow.RecordBatch) error {
	c.recs = append(c.recs, rec)
	c.rows += rec.NumRows()
	if c.rows < coalesceRows {
		return nil
	}
	return c.flush()
}

// flush writes the batches gathered as one.
func (c *coalescer) flush() error {
	defer c.release()
	switch len(c.recs) {
	case 0:
		return nil
	case 1:
		return c.w.Write(c.recs[0])
	}
	cols := make([]arrow.Array, len(c.recs[0].Columns()))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	parts := make([]arrow.Array, len(c.recs))
	for i := range cols {
		for k, rec := range c.recs {
			parts[k] = rec.Column(i)
		}
		a, err := array.Concatenate(parts, goAlloc)
		if err != nil {
			return err
		}
		cols[i] = a
	}
	rec := array.NewRecordBatch(c.w.Schema(), cols, c.rows)
	defer rec.Release()
	return c.w.Write(rec)
}

// release drops the batches gathered.
func (c *coalescer) release() {
	for _, rec := range c.recs {
		rec.Release()
	}
	c.recs, c.rows = c.recs[:0], 0
}

// fileSize returns the size of an open file (0 when it cannot be known:
// nothing is read then).
func fileSize(f *os.File) int64 {
	if st, err := f.Stat(); err == nil {
		return st.Size()
	}
	return 0
}
