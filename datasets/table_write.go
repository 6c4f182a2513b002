package datasets

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/nablasd/nablasd/formats"
)

// TableWriter writes a table file atomically: record batches go to a
// temporary file beside the destination, which Close renames over it
// (after flushing it to disk) and Abort removes, so a failed job leaves
// nothing half-written. The file gets the permissions 0666 less the
// umask (0644 under the usual 022), as os.Create would give. It carries
// checksums that the reader verifies: page, column chunk and footer
// checksums in Parquet (parquet_checksum.go), each record batch's in
// Arrow IPC, which then ends with an empty record batch (ipc_checksum.go).
type TableWriter struct {
	path, tmp string
	f         *os.File
	bw        *bufio.Writer
	schema    *arrow.Schema
	pq        *pqarrow.FileWriter
	sums      *parquetChecksums
	ipcf      *ipc.FileWriter
	ipcs      *ipc.Writer
	ipcSchema *arrow.Schema // the schema with the checksums' marker
	batches   int64         // record batches written (IPC)
	rows      int64
	done      bool
	buffered  bool
}

// CreateTable starts writing a table of the given schema to path, whose
// extension (TableKindOf) chooses Parquet, Arrow IPC file or stream.
// The schema's metadata is written with it (for Parquet as the file's
// key-value metadata).
func CreateTable(path string, schema *arrow.Schema) (*TableWriter, error) {
	return createTable(path, schema, 1<<20, true)
}

// createTable is CreateTable with Parquet row groups of up to rowGroup
// rows, buffered in memory (many small batches) or not (few large ones:
// each Write is written column by column, and starts a row group).
func createTable(path string, schema *arrow.Schema, rowGroup int64, buffered bool) (*TableWriter, error) {
	kind, ok := TableKindOf(path)
	if !ok {
		return nil, fmt.Errorf("%s: not a table file (want .parquet, .arrow or .arrows)", path)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return nil, err
	}
	w := &TableWriter{path: path, tmp: tmp, f: f, bw: bufio.NewWriterSize(f, 1<<20), schema: schema, buffered: buffered}
	switch kind {
	case Parquet:
		opts := []parquet.WriterProperty{
			parquet.WithAllocator(goAlloc),
			parquet.WithCompression(compress.Codecs.Snappy),
			parquet.WithDictionaryDefault(false),
			parquet.WithMaxRowGroupLength(rowGroup),
			parquet.WithCreatedBy(writtenBy),
			parquet.WithRootName(rootName),
			// parquetChecksums moves the offsets of the pages and the
			// footer only: no page index or bloom filter
			parquet.WithPageIndexEnabled(false),
			parquet.WithBloomFilterEnabled(false),
		}
		if len(schema.Fields()) > 0 && schema.Field(0).Name != "val" && !isIndexName(schema.Field(0).Name) {
			// a key column: few distinct values, dictionary encoded
			opts = append(opts, parquet.WithDictionaryFor(schema.Field(0).Name, true))
		}
		// every page with its checksum, and the footer with those of
		// every column chunk and its own (parquet_checksum.go)
		w.sums = newParquetChecksums(w.bw)
		w.pq, err = pqarrow.NewFileWriter(schema, w.sums, parquet.NewWriterProperties(opts...),
			pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	case ArrowFile:
		// every record batch with its checksums (ipc_checksum.go)
		w.ipcSchema = ipcSchema(schema)
		w.ipcf, err = ipc.NewFileWriter(w.bw, ipc.WithSchema(w.ipcSchema), ipc.WithAllocator(goAlloc))
	case ArrowStream:
		w.ipcSchema = ipcSchema(schema)
		w.ipcs = ipc.NewWriter(w.bw, ipc.WithSchema(w.ipcSchema), ipc.WithAllocator(goAlloc))
	}
	if err != nil {
		w.Abort()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return w, nil
}

// Schema returns the table's schema.
func (w *TableWriter) Schema() *arrow.Schema { return w.schema }

// Rows returns the number of rows written so far.
func (w *TableWriter) Rows() int64 { return w.rows }

// Write appends a record batch of the table's schema.
func (w *TableWriter) Write(rec arrow.RecordBatch) error {
	var err error
	switch {
	case w.pq != nil && w.buffered:
		err = w.pq.WriteBuffered(rec)
	case w.pq != nil:
		err = w.pq.Write(rec)
	case w.ipcf != nil:
		sum := withChecksums(rec, w.ipcSchema, w.batches)
		err = w.ipcf.Write(sum)
		sum.Release()
		w.batches++
	default:
		sum := withChecksums(rec, w.ipcSchema, w.batches)
		err = w.ipcs.Write(sum)
		sum.Release()
		w.batches++
	}
	if err != nil {
		return fmt.Errorf("%s: %v", w.path, err)
	}
	w.rows += rec.NumRows()
	return nil
}

// Close finishes the file and renames it to its destination.
func (w *TableWriter) Close() error {
	if w.done {
		return nil
	}
	var err error
	switch {
	case w.pq != nil:
		err = w.pq.Close()
	case w.ipcf != nil:
		// the last batch, which says how many came before it
		last := lastBatch(w.ipcSchema, w.batches)
		if err = w.ipcf.Write(last); err == nil {
			err = w.ipcf.Close()
		}
		last.Release()
	default:
		last := lastBatch(w.ipcSchema, w.batches)
		if err = w.ipcs.Write(last); err == nil {
			err = w.ipcs.Close()
		}
		last.Release()
	}
	if err == nil {
		err = w.bw.Flush()
	}
	if err == nil {
		err = w.f.Sync()
	}
	if cerr := w.f.Close(); err == nil {
		err = cerr
	}
	w.f = nil
	if err == nil {
		err = os.Rename(w.tmp, w.path)
	}
	if err != nil {
		w.Abort()
		return fmt.Errorf("%s: %v", w.path, err)
	}
	w.done = true
	return nil
}

// Abort removes the temporary file; the destination is left as it was.
// It does nothing after Close.
func (w *TableWriter) Abort() {
	if w.done {
		return
	}
	w.done = true
	if w.f != nil {
		w.f.Close()
		w.f = nil
	}
	os.Remove(w.tmp)
}

// indexName is the name nablasd writes for the coordinate column of mode m.
func indexName(m int) string { return fmt.Sprintf("i%d", m) }

func isIndexName(s string) bool { return isModeName(s) }

// TensorSchema returns the schema of a table of tensors of the given order
// (0: scalars): a key column first when key is not nil, then int64
// coordinate columns i0, i1, … and a float64 column val; meta becomes the
// schema's metadata. With a key the coordinate and value columns are
// nullable, for the all-null rows that mark groups without entries.
func TensorSchema(order int, key *arrow.Field, meta map[string]string) *arrow.Schema {
	var fields []arrow.Field
	nullable := key != nil
	if key != nil {
		fields = append(fields, arrow.Field{Name: key.Name, Type: key.Type, Nullable: false})
	}
	for m := 0; m < order; m++ {
		fields = append(fields, arrow.Field{Name: indexName(m), Type: arrow.PrimitiveTypes.Int64, Nullable: nullable})
	}
	fields = append(fields, arrow.Field{Name: "val", Type: arrow.PrimitiveTypes.Float64, Nullable: nullable})
	md := arrow.MetadataFrom(meta)
	return arrow.NewSchema(fields, &md)
}

// int64Array wraps ints as an Int64 array, without copying where int is
// 64 bits; valid (nil: all) marks the non-null entries.
func int64Array(v []int, valid []byte, nulls int) arrow.Array {
	var buf *memory.Buffer
	if w, ok := asInt64s(v); ok {
		buf = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(w))
	} else {
		w := make([]int64, len(v))
		for i, x := range v {
			w[i] = int64(x)
		}
		buf = memory.NewBufferBytes(arrow.Int64Traits.CastToBytes(w))
	}
	return array.NewInt64Data(array.NewData(arrow.PrimitiveTypes.Int64, len(v), []*memory.Buffer{bitmap(valid), buf}, nil, nulls, 0))
}

// float64Array wraps floats as a Float64 array without copying.
func float64Array(v []float64, valid []byte, nulls int) arrow.Array {
	buf := memory.NewBufferBytes(arrow.Float64Traits.CastToBytes(v))
	return array.NewFloat64Data(array.NewData(arrow.PrimitiveTypes.Float64, len(v), []*memory.Buffer{bitmap(valid), buf}, nil, nulls, 0))
}

func bitmap(valid []byte) *memory.Buffer {
	if valid == nil {
		return nil
	}
	return memory.NewBufferBytes(valid)
}

// entriesRecord returns the rows of one tensor (idx[m][e], val[e]) in the
// schema, the key column holding key when the schema has one. With no
// entries and a key, it returns the one all-null row that marks an empty
// group. A scalar is one row with val only.
func entriesRecord(schema *arrow.Schema, key *Key, idx [][]int, val []float64) arrow.RecordBatch {
	n := len(val)
	var valid []byte
	nulls := 0
	if n == 0 && key != nil {
		n, nulls = 1, 1
		valid = []byte{0}
		for m := range idx {
			idx[m] = []int{0}
		}
		val = []float64{0}
	}
	var cols []arrow.Array
	if key != nil {
		cols = append(cols, keyArray(schema.Field(0).Type, *key, n))
	}
	for m := range idx {
		cols = append(cols, int64Array(idx[m], valid, nulls))
	}
	cols = append(cols, float64Array(val, valid, nulls))
	rec := array.NewRecordBatch(schema, cols, int64(n))
	for _, c := range cols {
		c.Release()
	}
	return rec
}

// WriteTable writes a tensor (or a scalar) to path as a table by the
// convention: its stored entries in storage order (every position of a
// dense format), coordinate columns i0, i1, …, values val, and the
// metadata nablasd.shape and nablasd.format with meta's entries (e.g.
// nablasd.program). The file is written atomically (see TableWriter).
func WriteTable(path string, t *TableTensor, meta map[string]string) error {
	md := map[string]string{}
	for k, v := range meta {
		md[k] = v
	}
	var idx [][]int
	var val []float64
	order := 0
	if t.Tensor == nil {
		md[MetaShape] = ""
		val = []float64{t.Scalar}
	} else {
		var err error
		if idx, val, err = t.Tensor.Coords(); err != nil {
			return fmt.Errorf("%s: %v", path, err)
		}
		order = t.Tensor.Order()
		md[MetaShape] = formatExtents(t.Tensor.Shape, ",")
		md[MetaFormat] = t.Tensor.Format.Name()
	}
	schema := TensorSchema(order, nil, md)
	w, err := createTable(path, schema, 64<<20, false)
	if err != nil {
		return err
	}
	rec := entriesRecord(schema, nil, idx, val)
	defer rec.Release()
	if err := w.Write(rec); err != nil {
		w.Abort()
		return err
	}
	return w.Close()
}

// WriteTensorTable is WriteTable for a tensor in a format.
func WriteTensorTable(path string, t *formats.Tensor, meta map[string]string) error {
	return WriteTable(path, &TableTensor{Tensor: t}, meta)
}
