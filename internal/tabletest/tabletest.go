// Package tabletest writes and prints small Arrow and Parquet tables given
// as text, for tests: a header of name:type columns, then one row a line.
package tabletest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/decimal128"
	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

var mem = memory.NewGoAllocator()

// Write writes a table given as text to path (.parquet, .arrow or
// .arrows, by extension). The text's first line names the columns and
// their types, "name:type" (int8 … int64, uint8 … uint64, float32,
// float64, decimal (10, 2), string, date32); each further line is a row,
// "null" a null. batch > 0 writes that many rows a record batch (a row
// group for Parquet), else one batch. meta becomes the schema metadata
// (the key-value metadata of a Parquet file).
func Write(path, text string, batch int, meta map[string]string) error {
	lines := strings.Split(strings.TrimSpace(text), "\n")
	var fields []arrow.Field
	for _, h := range strings.Fields(lines[0]) {
		n, ty, _ := strings.Cut(h, ":")
		dt, err := typeOf(ty)
		if err != nil {
			return err
		}
		fields = append(fields, arrow.Field{Name: n, Type: dt, Nullable: true})
	}
	md := arrow.MetadataFrom(meta)
	schema := arrow.NewSchema(fields, &md)
	rows := lines[1:]
	if batch <= 0 {
		batch = max(len(rows), 1)
	}
	var recs []arrow.RecordBatch
	for lo := 0; lo < len(rows) || lo == 0; lo += batch {
		hi := min(lo+batch, len(rows))
		b := array.NewRecordBuilder(mem, schema)
		for _, row := range rows[lo:hi] {
			vals := strings.Fields(row)
			if len(vals) != len(fields) {
				return fmt.Errorf("row %q: %d values for %d columns", row, len(vals), len(fields))
			}
			for c, v := range vals {
				if err := appendValue(b.Field(c), v); err != nil {
					return err
				}
			}
		}
		recs = append(recs, b.NewRecordBatch())
		b.Release()
		if hi == len(rows) {
			break
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithAllocator(mem)), pqarrow.DefaultWriterProps())
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	case ".arrow":
		w, err := ipc.NewFileWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem))
		if err != nil {
			return err
		}
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	case ".arrows":
		w := ipc.NewWriter(f, ipc.WithSchema(schema), ipc.WithAllocator(mem))
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				return err
			}
		}
		return w.Close()
	}
	return fmt.Errorf("%s: not a table file", path)
}

// Cat returns a table's columns, its nablasd.* metadata (but the
// checksums of the files nablasd writes) and its rows.
func Cat(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var schema *arrow.Schema
	meta := map[string]string{}
	var recs []arrow.RecordBatch
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		r, err := file.NewParquetReader(f)
		if err != nil {
			return "", err
		}
		kv := r.MetaData().KeyValueMetadata()
		for i, k := range kv.Keys() {
			meta[k] = kv.Values()[i]
		}
		fr, err := pqarrow.NewFileReader(r, pqarrow.ArrowReadProperties{}, mem)
		if err != nil {
			return "", err
		}
		tbl, err := fr.ReadTable(context.Background())
		if err != nil {
			return "", err
		}
		schema = tbl.Schema()
		tr := array.NewTableReader(tbl, 1<<20)
		for tr.Next() {
			rec := tr.RecordBatch()
			rec.Retain()
			recs = append(recs, rec)
		}
	case ".arrow":
		r, err := ipc.NewFileReader(f, ipc.WithAllocator(mem))
		if err != nil {
			return "", err
		}
		schema = r.Schema()
		for i := range r.NumRecords() {
			rec, err := r.RecordBatchAt(i)
			if err != nil {
				return "", err
			}
			recs = append(recs, rec)
		}
	default:
		r, err := ipc.NewReader(f, ipc.WithAllocator(mem))
		if err != nil {
			return "", err
		}
		schema = r.Schema()
		for {
			rec, err := r.Read()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", err
			}
			rec.Retain()
			recs = append(recs, rec)
		}
	}
	if len(meta) == 0 {
		md := schema.Metadata()
		for i, k := range md.Keys() {
			meta[k] = md.Values()[i]
		}
	}
	var b strings.Builder
	for i, fl := range schema.Fields() {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%s:%s", fl.Name, fl.Type)
	}
	b.WriteByte('\n')
	var keys []string
	for k := range meta {
		// nablasd.checksums are the file's (doc/checksums.md), not the table's
		if strings.HasPrefix(k, "nablasd.") && k != "nablasd.checksums" {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%q\n", k, meta[k])
	}
	for _, rec := range recs {
		for r := range int(rec.NumRows()) {
			for c := range int(rec.NumCols()) {
				if c > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(rec.Column(c).ValueStr(r))
			}
			b.WriteByte('\n')
		}
	}
	return b.String(), nil
}

func typeOf(ty string) (arrow.DataType, error) {
	switch ty {
	case "int8":
		return arrow.PrimitiveTypes.Int8, nil
	case "int16":
		return arrow.PrimitiveTypes.Int16, nil
	case "int32":
		return arrow.PrimitiveTypes.Int32, nil
	case "int64":
		return arrow.PrimitiveTypes.Int64, nil
	case "uint8":
		return arrow.PrimitiveTypes.Uint8, nil
	case "uint16":
		return arrow.PrimitiveTypes.Uint16, nil
	case "uint32":
		return arrow.PrimitiveTypes.Uint32, nil
	case "uint64":
		return arrow.PrimitiveTypes.Uint64, nil
	case "float32":
		return arrow.PrimitiveTypes.Float32, nil
	case "float64":
		return arrow.PrimitiveTypes.Float64, nil
	case "decimal":
		return &arrow.Decimal128Type{Precision: 10, Scale: 2}, nil
	case "string":
		return arrow.BinaryTypes.String, nil
	case "date32":
		return arrow.FixedWidthTypes.Date32, nil
	}
	return nil, fmt.Errorf("unknown type %s", ty)
}

func appendValue(b array.Builder, v string) error {
	if v == "null" {
		b.AppendNull()
		return nil
	}
	var err error
	fail := func(e error) {
		if e != nil && err == nil {
			err = fmt.Errorf("value %q: %v", v, e)
		}
	}
	switch b := b.(type) {
	case *array.StringBuilder:
		b.Append(v)
	case *array.Float64Builder:
		x, err := strconv.ParseFloat(v, 64)
		fail(err)
		b.Append(x)
	case *array.Float32Builder:
		x, err := strconv.ParseFloat(v, 32)
		fail(err)
		b.Append(float32(x))
	case *array.Decimal128Builder:
		x, err := decimal128.FromString(v, 10, 2)
		fail(err)
		b.Append(x)
	case *array.Uint64Builder:
		x, err := strconv.ParseUint(v, 10, 64)
		fail(err)
		b.Append(x)
	default:
		x, err := strconv.ParseInt(v, 10, 64)
		fail(err)
		switch b := b.(type) {
		case *array.Int8Builder:
			b.Append(int8(x))
		case *array.Int16Builder:
			b.Append(int16(x))
		case *array.Int32Builder:
			b.Append(int32(x))
		case *array.Int64Builder:
			b.Append(x)
		case *array.Uint8Builder:
			b.Append(uint8(x))
		case *array.Uint16Builder:
			b.Append(uint16(x))
		case *array.Uint32Builder:
			b.Append(uint32(x))
		case *array.Date32Builder:
			b.Append(arrow.Date32(x))
		default:
			return fmt.Errorf("cannot append to %T", b)
		}
	}
	return err
}
