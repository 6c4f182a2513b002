package datasets

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/metadata"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// goAlloc allocates Arrow buffers on the Go heap: slices that alias them
// (the tensors' idx and val) keep them alive, and nothing is freed by hand.
var goAlloc = memory.NewGoAllocator()

// tableFile is an open table of any kind: its schema and metadata, and
// its rows as a sequence of record batches.
type tableFile struct {
	name   string
	kind   TableKind
	f      *os.File
	size   int64
	schema *arrow.Schema
	meta   map[string]string
	rows   int64 // -1 when unknown without reading the batches

	pq     *file.Reader
	pqProp *parquet.ReaderProperties
	pqa    *pqarrow.FileReader
	// checks are the Parquet file's checksums (parquet_verify.go)
	checks parquetChecks
	// the Arrow IPC stream (for an IPC file: the one inside it) is bytes
	// ipcStart to ipcEnd of the file
	ipcStart, ipcEnd int64
	// ipcSums: the schema says every record batch has its checksums
	// (ipc_checksum.go)
	ipcSums bool
}

// batch is one record batch of a table with the columns asked for, and the
// file row of its first row.
type batch struct {
	rec arrow.RecordBatch
	row int64
}

// recovered turns a panic inside the Arrow or Parquet decoders (which a
// corrupt file can cause) into an error about the file.
func recovered(name string, kind TableKind, err *error) {
	if p := recover(); p != nil {
		*err = &TableError{File: name, Row: -1, Msg: fmt.Sprintf("corrupt or truncated %s: %v", kind, p)}
		if debugPanics {
			fmt.Fprintf(os.Stderr, "%s\n", debug.Stack())
		}
	}
}

// debugPanics prints the stack of a recovered decoder panic (tests).
var debugPanics = os.Getenv("NABLASD_DEBUG_PANICS") != ""

// openTable opens a table file and reads its schema and metadata.
func openTable(path string) (t *tableFile, err error) {
	kind, ok := TableKindOf(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a table file (want .parquet, .arrow or .arrows)", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	tf := &tableFile{name: path, kind: kind, f: f, size: st.Size(), rows: -1}
	t = tf
	defer func() {
		if err != nil {
			tf.close()
		}
	}()
	defer recovered(path, kind, &err)
	switch kind {
	case Parquet:
		err = t.openParquet()
	case ArrowFile, ArrowStream:
		err = t.openArrow()
	}
	if err != nil {
		return nil, err
	}
	return t, nil
}

// corrupt describes a decoder's error about the file.
func (t *tableFile) corrupt(err error) error {
	var te *TableError
	if errors.As(err, &te) {
		return err
	}
	msg := err.Error()
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) || strings.Contains(msg, "EOF") {
		return tableErrorf(t.name, "", -1, "truncated %s: %v", t.kind, err)
	}
	return tableErrorf(t.name, "", -1, "corrupt or truncated %s: %v", t.kind, err)
}

func (t *tableFile) openParquet() error {
	props := parquet.NewReaderProperties(goAlloc)
	props.BufferedStreamEnabled = true // read pages as needed, not whole column chunks
	props.BufferSize = 64 << 10
	t.pqProp = props
	// the footer's checksums first: arrow-go decodes only a footer that
	// matches them
	if err := t.readChecksums(); err != nil {
		return err
	}
	r, err := file.NewParquetReader(t.f, file.WithReadProps(props))
	if err != nil {
		return t.corrupt(err)
	}
	t.pq = r
	// Not Parallel: pqarrow's column goroutines cannot recover the panics
	// of its decoders on a corrupt file; readAll decodes columns in
	// goroutines of its own.
	fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{BatchSize: streamBatchRows}, goAlloc)
	if err != nil {
		return t.corrupt(err)
	}
	t.pqa = fr
	if t.schema, err = fr.Schema(); err != nil {
		return t.corrupt(err)
	}
	t.meta = map[string]string{}
	kv := r.MetaData().KeyValueMetadata()
	for i, k := range kv.Keys() {
		if k != checksumsKey { // the file's, not the table's
			t.meta[k] = kv.Values()[i]
		}
	}
	t.rows = r.NumRows()
	if t.rows < 0 {
		return tableErrorf(t.name, "", -1, "corrupt Parquet file: %d rows", t.rows)
	}
	return nil
}

// newStreamReader reads an Arrow IPC stream of size bytes from r, each
// message's metadata verified before arrow-go decodes it (verifyMessage).
func newStreamReader(r io.Reader, size int64) (*ipc.Reader, error) {
	rd, _, err := newVerifiedStream(r, size)
	return rd, err
}

// newVerifiedStream is newStreamReader that also returns its messages'
// reader, which says whether the stream ended with its end-of-stream
// marker.
func newVerifiedStream(r io.Reader, size int64) (*ipc.Reader, *verifiedMessages, error) {
	m := newVerifiedMessages(r, size)
	rd, err := ipc.NewReaderFromMessageReader(m, ipc.WithAllocator(goAlloc))
	return rd, m, err
}

// ipcFileMagic starts and ends an Arrow IPC file.
const ipcFileMagic = "ARROW1"

// openArrow reads the schema of an Arrow IPC stream, or of an IPC file
// through the stream it holds between its magic and its footer (the same
// messages: the footer only indexes them for random access).
func (t *tableFile) openArrow() error {
	t.ipcStart, t.ipcEnd = 0, t.size
	if t.kind == ArrowFile {
		var head [8]byte
		var tail [10]byte
		if t.size < 18 {
			return tableErrorf(t.name, "", -1, "truncated Arrow IPC file: %d bytes", t.size)
		}
		if _, err := t.f.ReadAt(head[:], 0); err != nil {
			return t.corrupt(err)
		}
		if _, err := t.f.ReadAt(tail[:], t.size-10); err != nil {
			return t.corrupt(err)
		}
		if string(head[:6]) != ipcFileMagic || string(tail[4:]) != ipcFileMagic {
			return tableErrorf(t.name, "", -1, "not an Arrow IPC file, or a truncated one (no %s at its start and end)", ipcFileMagic)
		}
		footer := int64(binary.LittleEndian.Uint32(tail[:4]))
		t.ipcStart, t.ipcEnd = 8, t.size-10-footer
		if t.ipcEnd < t.ipcStart {
			return tableErrorf(t.name, "", -1, "corrupt Arrow IPC file: a footer of %d bytes", footer)
		}
	}
	r, _, err := t.ipcReader()
	if err != nil {
		return t.corrupt(err)
	}
	defer r.Release()
	t.schema = r.Schema()
	t.meta = schemaMeta(t.schema)
	if v, ok := t.meta[checksumsKey]; ok {
		// the file's, not the table's (ipc_checksum.go)
		delete(t.meta, checksumsKey)
		if v != ipcChecksums {
			return tableErrorf(t.name, "", -1, "corrupt %s: unknown checksums %q", t.kind, v)
		}
		t.ipcSums = true
	}
	return nil
}

// ipcReader starts reading the IPC stream from its beginning.
func (t *tableFile) ipcReader() (*ipc.Reader, *verifiedMessages, error) {
	sec := io.NewSectionReader(t.f, t.ipcStart, t.ipcEnd-t.ipcStart)
	return newVerifiedStream(bufio.NewReaderSize(sec, 1<<16), t.ipcEnd-t.ipcStart)
}

func schemaMeta(s *arrow.Schema) map[string]string {
	m := map[string]string{}
	md := s.Metadata()
	for i, k := range md.Keys() {
		m[k] = md.Values()[i]
	}
	return m
}

func (t *tableFile) close() {
	if t.pq != nil {
		t.pq.Close() // closes t.f
		t.pq = nil
		t.f = nil
	}
	if t.f != nil {
		t.f.Close()
		t.f = nil
	}
}

// batchReader yields a table's record batches, with only the columns
// asked for (schema field indices, in that order).
type batchReader interface {
	// next returns the next batch, or io.EOF after the last. The batch is
	// the caller's (it may keep it; Arrow's Go heap buffers need no
	// release).
	next() (batch, error)
	close()
}

// batches reads the columns cols (schema field indices) of the whole table,
// or for Parquet of the row groups rowGroups in that order (nil: all, in
// file order).
func (t *tableFile) batches(cols []int, rowGroups []int) (br batchReader, err error) {
	defer recovered(t.name, t.kind, &err)
	switch t.kind {
	case Parquet:
		leaves := make([]int, len(cols))
		for i, c := range cols {
			leaves[i] = t.pqa.Manifest.Fields[c].ColIndex
			if leaves[i] < 0 {
				return nil, tableErrorf(t.name, t.schema.Field(c).Name, -1, "a nested column cannot be read as a tensor column")
			}
		}
		if rowGroups == nil {
			rowGroups = make([]int, t.pq.NumRowGroups())
			for i := range rowGroups {
				rowGroups[i] = i
			}
		}
		start := make([]int64, t.pq.NumRowGroups()+1)
		for i := range t.pq.NumRowGroups() {
			start[i+1] = start[i] + t.pq.MetaData().RowGroup(i).NumRows()
		}
		return &parquetBatches{t: t, leaves: leaves, groups: rowGroups, start: start}, nil
	default:
		r, m, err := t.ipcReader()
		if err != nil {
			return nil, t.corrupt(err)
		}
		b := &ipcStreamBatches{t: t, r: r, m: m, cols: cols}
		if t.ipcSums {
			b.sums = &ipcVerifier{name: t.name, schema: schemaSum(r.Schema())}
		}
		return b, nil
	}
}

// project returns rec with only the columns cols, in that order.
func project(rec arrow.RecordBatch, cols []int) arrow.RecordBatch {
	fields := make([]arrow.Field, len(cols))
	arrs := make([]arrow.Array, len(cols))
	for i, c := range cols {
		fields[i] = rec.Schema().Field(c)
		arrs[i] = rec.Column(c)
	}
	return array.NewRecordBatch(arrow.NewSchema(fields, nil), arrs, rec.NumRows())
}

type parquetBatches struct {
	t      *tableFile
	leaves []int
	groups []int   // row groups still to read
	start  []int64 // file row of each row group's first row
	rr     pqarrow.RecordReader
	group  int // the row group rr reads
	row    int64
}

func (p *parquetBatches) next() (b batch, err error) {
	group := -1 // the row group being read
	defer func() {
		// a page that does not decode names its column chunk
		if err != nil && !errors.Is(err, io.EOF) && group >= 0 {
			err = p.t.chunkError(group, p.leaves, err)
		}
	}()
	defer recovered(p.t.name, p.t.kind, &err)
	if p.rr != nil {
		group = p.group
	}
	for {
		if p.rr != nil {
			rec, err := p.rr.Read()
			if rec != nil && rec.NumRows() > 0 {
				rec.Retain()
				b = batch{rec: rec, row: p.row}
				p.row += rec.NumRows()
				return b, nil
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return batch{}, p.t.corrupt(err)
			}
			p.rr.Release()
			p.rr = nil
		}
		if len(p.groups) == 0 {
			return batch{}, io.EOF
		}
		g := p.groups[0]
		p.groups = p.groups[1:]
		if p.t.pq.MetaData().RowGroup(g).NumRows() == 0 {
			continue
		}
		// every page is verified before arrow-go decodes it
		if err := p.t.verifyChunks(g, p.leaves); err != nil {
			return batch{}, err
		}
		group = g
		rr, err := p.t.pqa.GetRecordReader(context.Background(), p.leaves, []int{g})
		if err != nil {
			return batch{}, p.t.corrupt(err)
		}
		p.rr, p.row, p.group = rr, p.start[g], g
	}
}

func (p *parquetBatches) close() {
	if p.rr != nil {
		p.rr.Release()
		p.rr = nil
	}
}

type ipcStreamBatches struct {
	t    *tableFile
	r    *ipc.Reader
	m    *verifiedMessages
	cols []int
	row  int64
	// batches counts the record batches read
	batches int64
	// sums verifies the batches of a table written with checksums
	sums *ipcVerifier
}

func (p *ipcStreamBatches) next() (b batch, err error) {
	defer recovered(p.t.name, p.t.kind, &err)
	for p.r.Next() {
		rec := p.r.RecordBatch()
		n := p.batches
		p.batches++
		if err := validateBatch(p.t.name, p.m, rec, n); err != nil {
			return batch{}, err
		}
		if _, ours := batchChecksums(rec); ours && p.sums == nil {
			// the schema's mark is lost, a batch's is not
			if n > 0 {
				return batch{}, tableErrorf(p.t.name, "", -1, "record batch %d: corrupt %s: checksums the batches before lack", n, p.t.kind)
			}
			p.sums = &ipcVerifier{name: p.t.name, schema: schemaSum(p.r.Schema())}
		}
		if p.sums != nil {
			if err := p.sums.verify(rec, p.cols); err != nil {
				return batch{}, err
			}
		}
		if rec.NumRows() == 0 {
			continue
		}
		b = batch{rec: project(rec, p.cols), row: p.row}
		p.row += rec.NumRows()
		return b, nil
	}
	if err := p.r.Err(); err != nil {
		return batch{}, p.t.corrupt(err)
	}
	if p.sums != nil && !p.sums.ended {
		// a table nablasd wrote ends with its last batch: without it,
		// batches are missing
		return batch{}, tableErrorf(p.t.name, "", -1, "truncated %s: it ends after %d record batches, before its last", p.t.kind, p.sums.batch)
	}
	return batch{}, io.EOF
}

func (p *ipcStreamBatches) close() { p.r.Release() }

// statsMinMax returns the least and greatest value of a signed integer
// column (schema field) in a Parquet row group, from the file's
// statistics; ok is false when they are missing.
func (t *tableFile) statsMinMax(field, rg int) (lo, hi int64, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	switch t.schema.Field(field).Type.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.DATE32:
	default:
		return 0, 0, false
	}
	leaf := t.pqa.Manifest.Fields[field].ColIndex
	if leaf < 0 {
		return 0, 0, false
	}
	cc, err := t.pq.MetaData().RowGroup(rg).ColumnChunk(leaf)
	if err != nil {
		return 0, 0, false
	}
	if set, err := cc.StatsSet(); err != nil || !set {
		return 0, 0, false
	}
	st, err := cc.Statistics()
	if err != nil || st == nil || !st.HasMinMax() {
		return 0, 0, false
	}
	switch s := st.(type) {
	case *metadata.Int32Statistics:
		return int64(s.Min()), int64(s.Max()), true
	case *metadata.Int64Statistics:
		return s.Min(), s.Max(), true
	}
	return 0, 0, false
}

// streamBatchRows is the number of rows of a record batch read from a
// Parquet file while streaming groups: the decoders hold about that many
// values of each column.
const streamBatchRows = 1 << 13
