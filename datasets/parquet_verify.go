package datasets

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
)

// Verifying a Parquet file as it is read (parquet_checksum.go says what
// nablasd writes):
//
//   - a file nablasd wrote carries the checksums of its footer and of each
//     column chunk (checksumsKey): the footer is verified when the file
//     is opened, before arrow-go decodes it, and each column chunk before
//     its pages are decoded, so that a corrupted byte anywhere in them is
//     an error, never data;
//   - in any file, a page whose header has a crc (the Parquet format's
//     optional page checksum) is verified before it is decoded;
//   - a page that fails its checksum, or that does not decode, is an
//     error naming the file, the row group and the column.
//
// A file without checksums (most writers write none: DuckDB, pandas by
// default) cannot show that its values are corrupt; only a structure
// that does not decode can be noticed (doc/batch.md).

// parquetChecks are what a Parquet file's checksums say, once the footer
// is verified.
type parquetChecks struct {
	// chunks holds the digest of each column chunk (row group, leaf
	// column); nil when the file has no checksums of nablasd's
	chunks [][]uint32
	mu     sync.Mutex
	// verified marks the chunks verified already (a file's columns are
	// read by several goroutines, and some twice)
	verified map[[2]int]bool
	scratch  sync.Pool
}

// readChecksums reads the footer's checksums and verifies the footer: a
// Parquet file nablasd wrote with checksums must match them, and must
// have them when its created_by says so. It runs before arrow-go decodes
// the footer.
func (t *tableFile) readChecksums() error {
	var tail [8]byte
	if t.size < 12 {
		return nil // arrow-go says what is wrong
	}
	if _, err := t.f.ReadAt(tail[:], t.size-8); err != nil {
		return t.corrupt(err)
	}
	n := int64(binary.LittleEndian.Uint32(tail[:4]))
	if string(tail[4:]) != "PAR1" || n > t.size-12 {
		return nil // not a footer arrow-go reads either
	}
	footer := make([]byte, n)
	if _, err := t.f.ReadAt(footer, t.size-8-n); err != nil {
		return t.corrupt(err)
	}
	meta, used, err := decodeStruct(footer)
	if err == nil && used != len(footer) {
		err = fmt.Errorf("%w: %d bytes past its end", errThrift, len(footer)-used)
	}
	if err != nil {
		// not Thrift as a footer is: corrupt, even where arrow-go's decoder
		// would skip what it cannot read
		return tableErrorf(t.name, "", -1, "corrupt Parquet footer: %v", err)
	}
	var value *tValue
	if kvs := meta.field(5); kvs != nil && kvs.typ == tList {
		for i := range kvs.items {
			kv := kvs.items[i].st
			if kv == nil {
				continue
			}
			if k := kv.field(1); k != nil && k.typ == tBinary && string(k.b) == checksumsKey {
				value = kv.field(2)
				break
			}
		}
	}
	if value == nil || value.typ != tBinary {
		if marked(meta) {
			return tableErrorf(t.name, "", -1, "corrupt Parquet file: written by %s, its footer lacks its checksums", writtenBy)
		}
		return nil // a file without nablasd's checksums
	}
	sum, chunks, err := parseChecksums(string(value.b))
	if err != nil {
		return tableErrorf(t.name, "", -1, "corrupt Parquet footer: %v", err)
	}
	masked := append([]byte(nil), footer...)
	copy(masked[value.pos+footerDigits:], "00000000")
	if crc32.ChecksumIEEE(masked) != sum {
		return tableErrorf(t.name, "", -1, "corrupt Parquet footer: it fails its checksum")
	}
	t.checks.chunks = [][]uint32{}
	rgs := meta.field(4)
	if rgs == nil || rgs.typ != tList {
		return tableErrorf(t.name, "", -1, "corrupt Parquet footer: no row groups")
	}
	k := 0
	for _, rg := range rgs.items {
		cols := (*tValue)(nil)
		if rg.st != nil {
			cols = rg.st.field(1)
		}
		if cols == nil || cols.typ != tList || k+len(cols.items) > len(chunks) {
			return tableErrorf(t.name, "", -1, "corrupt Parquet footer: its checksums do not match its column chunks")
		}
		t.checks.chunks = append(t.checks.chunks, chunks[k:k+len(cols.items)])
		k += len(cols.items)
	}
	if k != len(chunks) {
		return tableErrorf(t.name, "", -1, "corrupt Parquet footer: its checksums do not match its column chunks")
	}
	return nil
}

// marked reports whether a footer says nablasd wrote it with checksums:
// its created_by, or its schema's root's name.
func marked(meta *tStruct) bool {
	if by := meta.field(6); by != nil && by.typ == tBinary && string(by.b) == writtenBy {
		return true
	}
	if schema := meta.field(2); schema != nil && schema.typ == tList && len(schema.items) > 0 && schema.items[0].st != nil {
		if name := schema.items[0].st.field(4); name != nil && name.typ == tBinary && string(name.b) == rootName {
			return true
		}
	}
	return false
}

// verifyChunks verifies the column chunks of row group rg of the leaf
// columns given, once each, before their pages are decoded.
func (t *tableFile) verifyChunks(rg int, leaves []int) error {
	for _, leaf := range leaves {
		key := [2]int{rg, leaf}
		t.checks.mu.Lock()
		done := t.checks.verified[key]
		t.checks.mu.Unlock()
		if done {
			continue
		}
		if err := t.verifyChunk(rg, leaf); err != nil {
			return err
		}
		t.checks.mu.Lock()
		if t.checks.verified == nil {
			t.checks.verified = map[[2]int]bool{}
		}
		t.checks.verified[key] = true
		t.checks.mu.Unlock()
	}
	return nil
}

// chunkBuffer is the size of the pieces a chunk's bytes are read in.
const chunkBuffer = 128 << 10

// verifyChunk walks the pages of one column chunk: each page's crc where
// its header has one and, in a file with nablasd's checksums, the chunk's
// digest (headers included) and that its pages fill it exactly.
func (t *tableFile) verifyChunk(rg, leaf int) error {
	name := t.leafName(leaf)
	fail := func(format string, args ...any) error {
		return tableErrorf(t.name, name, -1, "row group %d: %s", rg, fmt.Sprintf(format, args...))
	}
	md, err := t.pq.MetaData().RowGroup(rg).ColumnChunk(leaf)
	if err != nil {
		return fail("corrupt Parquet metadata: %v", err)
	}
	start := md.DataPageOffset()
	if md.HasDictionaryPage() && md.DictionaryPageOffset() > 0 && md.DictionaryPageOffset() < start {
		start = md.DictionaryPageOffset()
	}
	size := md.TotalCompressedSize()
	var want uint32
	strict := t.checks.chunks != nil
	if strict {
		want = t.checks.chunks[rg][leaf]
	}
	if start < 4 || size < 0 || start > t.size || size > t.size-start {
		if strict {
			return fail("the column chunk's %d bytes at byte %d lie outside the file", size, start)
		}
		return nil // arrow-go says what is wrong
	}
	buf, _ := t.checks.scratch.Get().([]byte)
	if buf == nil {
		buf = make([]byte, chunkBuffer)
	}
	defer t.checks.scratch.Put(buf)
	var digest chunkDigest
	pos, end := start, start+size
	for pos < end {
		header, n, err := t.pageHeader(pos, end, buf)
		if err != nil {
			if strict || !errors.Is(err, errShort) {
				return fail("the page header at byte %d does not decode: %v", pos, err)
			}
			return nil
		}
		body, ok := header.int(3)
		if !ok || body < 0 || body > end-pos-int64(n) {
			if strict || !ok || body < 0 {
				return fail("the page at byte %d runs past its column chunk", pos)
			}
			return nil // a foreign file's chunk may end early (old parquet-mr)
		}
		crc, hasCRC := header.int(4)
		if hasCRC || strict {
			head, err := t.readBytes(pos, n, buf)
			if err != nil {
				return fail("%v", err)
			}
			sum := crc32.ChecksumIEEE(head)
			var pageCRC uint32
			for off := int64(0); off < body; {
				k := min(int64(len(buf)), body-off)
				if _, err := t.f.ReadAt(buf[:k], pos+int64(n)+off); err != nil {
					return fail("the page at byte %d: %v", pos, err)
				}
				pageCRC = crc32.Update(pageCRC, crc32.IEEETable, buf[:k])
				sum = crc32.Update(sum, crc32.IEEETable, buf[:k])
				off += k
			}
			if hasCRC && int32(pageCRC) != int32(crc) {
				return fail("the page at byte %d fails its checksum", pos)
			}
			digest.add(sum)
		}
		pos += int64(n) + body
	}
	if strict && digest.sum != want {
		return fail("the column chunk (bytes %d to %d) fails its checksum", start, end)
	}
	return nil
}

// pageHeader decodes the page header at pos (before end), reading a
// window of the file into buf and more when the header is longer.
func (t *tableFile) pageHeader(pos, end int64, buf []byte) (*tStruct, int, error) {
	window := min(int64(1024), end-pos)
	for {
		b := buf
		if window > int64(len(b)) {
			b = make([]byte, window)
		}
		b = b[:window]
		if _, err := t.f.ReadAt(b, pos); err != nil {
			return nil, 0, err
		}
		h, n, err := decodeStruct(b)
		if err == errShort && window < end-pos && window < 16<<20 {
			window = min(window*8, end-pos, 16<<20)
			continue
		}
		return h, n, err
	}
}

// readBytes reads n bytes at pos, into buf when they fit.
func (t *tableFile) readBytes(pos int64, n int, buf []byte) ([]byte, error) {
	b := buf
	if n > len(b) {
		b = make([]byte, n)
	}
	b = b[:n]
	if _, err := t.f.ReadAt(b, pos); err != nil {
		return nil, err
	}
	return append([]byte(nil), b...), nil
}

// leafName names a leaf column by its path.
func (t *tableFile) leafName(leaf int) string {
	if s := t.pq.MetaData().Schema; s != nil && leaf >= 0 && leaf < s.NumColumns() {
		return s.Column(leaf).Path()
	}
	return fmt.Sprintf("%d", leaf)
}

// chunkError names the column chunk behind a decoder's error in row group
// rg, reading the columns leaves again one at a time: the first that
// fails alone is the one (the error of several is the first's).
func (t *tableFile) chunkError(rg int, leaves []int, err error) error {
	var te *TableError
	if errors.As(err, &te) && te.Column != "" {
		return err
	}
	msg := err.Error()
	if errors.As(err, &te) {
		msg = te.Msg
	}
	for _, leaf := range leaves {
		if len(leaves) == 1 || t.readsBadly(rg, leaf) {
			return tableErrorf(t.name, t.leafName(leaf), -1, "row group %d: %s", rg, msg)
		}
	}
	return err
}

// readsBadly reports whether leaf's column chunk of row group rg fails to
// decode on its own.
func (t *tableFile) readsBadly(rg, leaf int) (bad bool) {
	defer func() {
		if recover() != nil {
			bad = true
		}
	}()
	rr, err := t.pqa.GetRecordReader(context.Background(), []int{leaf}, []int{rg})
	if err != nil {
		return true
	}
	defer rr.Release()
	for {
		var rec arrow.RecordBatch
		rec, err = rr.Read()
		if err != nil {
			return !errors.Is(err, io.EOF)
		}
		if rec == nil {
			return false
		}
	}
}
