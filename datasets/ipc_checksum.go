package datasets

import (
	"encoding/binary"
	"fmt"
	"hash"
	"hash/crc32"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Checksums of the Arrow IPC files and streams nablasd writes. The IPC
// format has none, so nablasd puts them in its metadata: the schema's
// metadata says that every record batch carries them (checksumsKey =
// ipcChecksums), and each record batch's custom metadata holds, under
// the same key, its number in the stream, the CRC-32 of the schema (its
// fields and metadata) and the CRC-32 of each column's content (type,
// length, validity and values). The last record batch has no rows and
// says how many came before it. The reader recomputes them from what it
// decoded (ipcVerifier), so that a corrupted byte of a value, a length,
// an offset, a type or the schema is an error, not data, and so is a
// stream that ends before its last batch. Either mark (the schema's, or
// a batch's key) turns the checks on: one damaged byte of a flatbuffer
// can hide one of them, not both. IPC files and streams without them
// (written by other programs) are checked for their structure only
// (ipc_validate.go): corruption of their values cannot be detected.

// ipcChecksums is the schema metadata's value for checksumsKey.
const ipcChecksums = "crc32 batches"

// ipcSchema returns the schema an IPC table is written with: s with the
// checksums' marker in its metadata.
func ipcSchema(s *arrow.Schema) *arrow.Schema {
	md := s.Metadata()
	keys := append([]string(nil), md.Keys()...)
	vals := append([]string(nil), md.Values()...)
	for i, k := range keys {
		if k == checksumsKey {
			keys, vals = append(keys[:i], keys[i+1:]...), append(vals[:i], vals[i+1:]...)
			break
		}
	}
	keys, vals = append(keys, checksumsKey), append(vals, ipcChecksums)
	m := arrow.NewMetadata(keys, vals)
	return arrow.NewSchema(s.Fields(), &m)
}

// withChecksums returns rec, the n-th record batch (from 0) of a table
// written with schema s (ipcSchema), with its checksums as its metadata.
func withChecksums(rec arrow.RecordBatch, s *arrow.Schema, n int64) arrow.RecordBatch {
	cols := make([]int, rec.NumCols())
	for i := range cols {
		cols[i] = i
	}
	meta := arrow.NewMetadata([]string{checksumsKey}, []string{formatBatchChecksums(n, schemaSum(s), columnSums(rec, cols))})
	return array.NewRecordBatchWithMetadata(s, rec.Columns(), rec.NumRows(), meta)
}

// lastBatch returns the record batch that ends a table written with
// schema s after n record batches: no rows, and their count.
func lastBatch(s *arrow.Schema, n int64) arrow.RecordBatch {
	cols := make([]arrow.Array, len(s.Fields()))
	for i, f := range s.Fields() {
		b := array.NewBuilder(goAlloc, f.Type)
		cols[i] = b.NewArray()
		b.Release()
	}
	meta := arrow.NewMetadata([]string{checksumsKey}, []string{fmt.Sprintf("crc32 end batches=%d schema=%08x", n, schemaSum(s))})
	rec := array.NewRecordBatchWithMetadata(s, cols, 0, meta)
	for _, c := range cols {
		c.Release()
	}
	return rec
}

func formatBatchChecksums(n int64, schema uint32, cols []uint32) string {
	var b strings.Builder
	fmt.Fprintf(&b, "crc32 batch=%d schema=%08x columns=", n, schema)
	for i, c := range cols {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%08x", c)
	}
	return b.String()
}

func parseBatchChecksums(v string) (n int64, schema uint32, cols []uint32, err error) {
	bad := fmt.Errorf("unknown checksums %q", v)
	f := strings.Fields(v)
	if len(f) != 4 || f[0] != "crc32" || strings.Join(f, " ") != v {
		return 0, 0, nil, bad
	}
	s, ok1 := strings.CutPrefix(f[1], "batch=")
	h, ok2 := strings.CutPrefix(f[2], "schema=")
	c, ok3 := strings.CutPrefix(f[3], "columns=")
	if !ok1 || !ok2 || !ok3 {
		return 0, 0, nil, bad
	}
	if n, err = strconv.ParseInt(s, 10, 64); err != nil || strconv.FormatInt(n, 10) != s {
		return 0, 0, nil, bad
	}
	x, err := strconv.ParseUint(h, 16, 32)
	if err != nil || len(h) != 8 {
		return 0, 0, nil, bad
	}
	for _, p := range strings.Split(c, ",") {
		y, err := strconv.ParseUint(p, 16, 32)
		if err != nil || len(p) != 8 {
			return 0, 0, nil, bad
		}
		cols = append(cols, uint32(y))
	}
	return n, uint32(x), cols, nil
}

// schemaSum is the CRC-32 of a schema: its fields (names, types,
// nullability, metadata) and its metadata, keys sorted.
func schemaSum(s *arrow.Schema) uint32 {
	h := crc32.NewIEEE()
	for _, f := range s.Fields() {
		writeString(h, f.Name)
		writeString(h, f.Type.String())
		writeString(h, strconv.FormatBool(f.Nullable))
		writeMetadata(h, f.Metadata)
	}
	writeMetadata(h, s.Metadata())
	return h.Sum32()
}

func writeMetadata(h hash.Hash32, md arrow.Metadata) {
	idx := make([]int, md.Len())
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return md.Keys()[idx[a]] < md.Keys()[idx[b]] })
	writeInt(h, int64(md.Len()))
	for _, i := range idx {
		writeString(h, md.Keys()[i])
		writeString(h, md.Values()[i])
	}
}

func writeString(h hash.Hash32, s string) {
	writeInt(h, int64(len(s)))
	h.Write([]byte(s))
}

func writeInt(h hash.Hash32, x int64) {
	var b [8]byte
	binary.LittleEndian.PutUint64(b[:], uint64(x))
	h.Write(b[:])
}

// columnSums returns the CRC-32 of the content of each column cols of rec:
// its name and type, its length and null count, which rows are valid,
// and the valid rows' values.
func columnSums(rec arrow.RecordBatch, cols []int) []uint32 {
	out := make([]uint32, len(cols))
	for i, c := range cols {
		h := crc32.NewIEEE()
		f := rec.Schema().Field(c)
		writeString(h, f.Name)
		writeColumn(h, rec.Column(c))
		out[i] = h.Sum32()
	}
	return out
}

// writeColumn hashes an array's content.
func writeColumn(h hash.Hash32, a arrow.Array) {
	writeString(h, a.DataType().String())
	n := a.Len()
	writeInt(h, int64(n))
	writeInt(h, int64(a.NullN()))
	if a.NullN() > 0 {
		valid := make([]byte, n)
		for i := range n {
			if a.IsValid(i) {
				valid[i] = 1
			}
		}
		h.Write(valid)
	}
	fw, ok := a.DataType().(arrow.FixedWidthDataType)
	if ok && a.DataType().ID() != arrow.DICTIONARY && fw.BitWidth() >= 8 && fw.BitWidth()%8 == 0 && len(a.Data().Buffers()) > 1 {
		w := fw.BitWidth() / 8
		buf := a.Data().Buffers()[1]
		if buf == nil {
			return
		}
		b := buf.Bytes()
		off := a.Data().Offset()
		if (off+n)*w > len(b) {
			writeString(h, "short values") // a buffer too short: differs from any written
			return
		}
		if a.NullN() == 0 {
			h.Write(b[off*w : (off+n)*w])
			return
		}
		for i := range n {
			if a.IsValid(i) {
				h.Write(b[(off+i)*w : (off+i+1)*w])
			}
		}
		return
	}
	for i := range n {
		if !a.IsValid(i) {
			continue
		}
		switch x := a.(type) {
		case *array.String:
			writeString(h, x.Value(i))
		case *array.Binary:
			writeString(h, string(x.Value(i)))
		case *array.Boolean:
			if x.Value(i) {
				h.Write([]byte{1})
			} else {
				h.Write([]byte{0})
			}
		default:
			writeString(h, a.ValueStr(i))
		}
	}
}

// batchChecksums returns a record batch's checksums' entry.
func batchChecksums(rec arrow.RecordBatch) (string, bool) {
	if rm, ok := rec.(arrow.RecordBatchWithMetadata); ok {
		md := rm.Metadata()
		if i := md.FindKey(checksumsKey); i >= 0 {
			return md.Values()[i], true
		}
	}
	return "", false
}

// ipcVerifier checks the record batches of an IPC table written with
// checksums.
type ipcVerifier struct {
	name   string
	schema uint32 // schemaSum of the table's schema as read
	batch  int64  // the number of the next batch
	ended  bool   // the last batch has been read
}

// verify checks the next batch (all of it, empty ones too) on its columns
// cols (the others are not read).
func (v *ipcVerifier) verify(rec arrow.RecordBatch, cols []int) error {
	n := v.batch
	v.batch++
	fail := func(column, format string, args ...any) error {
		return tableErrorf(v.name, column, -1, "record batch %d: %s", n, fmt.Sprintf(format, args...))
	}
	if v.ended {
		return fail("", "corrupt Arrow IPC data: a record batch after the last")
	}
	value, found := batchChecksums(rec)
	if !found {
		return fail("", "corrupt Arrow IPC data: its checksums are missing (the table says every batch has them)")
	}
	if rest, ok := strings.CutPrefix(value, "crc32 end "); ok {
		var count int64
		var schema uint32
		if _, err := fmt.Sscanf(rest, "batches=%d schema=%08x", &count, &schema); err != nil || value != fmt.Sprintf("crc32 end batches=%d schema=%08x", count, schema) {
			return fail("", "corrupt Arrow IPC data: unknown checksums %q", value)
		}
		if count != n || rec.NumRows() != 0 {
			return fail("", "corrupt Arrow IPC data: the last batch says %d came before it", count)
		}
		if schema != v.schema {
			return fail("", "corrupt Arrow IPC data: the schema fails its checksum")
		}
		v.ended = true
		return nil
	}
	at, schema, sums, err := parseBatchChecksums(value)
	if err != nil {
		return fail("", "corrupt Arrow IPC data: %v", err)
	}
	if at != n {
		return fail("", "corrupt Arrow IPC data: the batch says it is batch %d (a batch is missing or repeated)", at)
	}
	if schema != v.schema {
		return fail("", "corrupt Arrow IPC data: the schema fails its checksum")
	}
	if int64(len(sums)) != rec.NumCols() {
		return fail("", "corrupt Arrow IPC data: %d column checksums for %d columns", len(sums), rec.NumCols())
	}
	got := columnSums(rec, cols)
	for i, c := range cols {
		if got[i] != sums[c] {
			return fail(rec.Schema().Field(c).Name, "corrupt Arrow IPC data: the column fails its checksum")
		}
	}
	return nil
}
