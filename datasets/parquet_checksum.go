package datasets

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"sort"
	"strconv"
	"strings"
)

// Checksums of the Parquet files nablasd writes. arrow-go's Parquet
// writer (v18) writes no page checksums and has no hook to add them, so
// parquetChecksums sits between it and the file and adds them as the
// bytes pass:
//
//   - every page header gets the Parquet format's crc field: the CRC-32
//     of the page's bytes as stored (after compression), which any reader
//     that verifies checksums (and nablasd's: parquet_verify.go) checks;
//   - the footer's key-value metadata gets checksumsKey, first: the
//     CRC-32 of every column chunk's pages, headers included (a header
//     is not covered by its page's crc), and of the footer itself, so
//     that nablasd notices a corrupted header, statistic, schema or
//     offset too, not only corrupted values;
//   - created_by is writtenBy and the schema's root is named rootName:
//     either says that the footer must hold checksumsKey, so that a file
//     that says so and lacks it is corrupt (two marks in two places: one
//     damaged field header of the footer can hide the entry and the field
//     after it from a decoder, not both marks).
//
// The page headers grow by the crc field, so every offset of the footer
// (a column chunk's pages, a row group's start) and the chunks' sizes are
// moved to where the pages now are.

const (
	// checksumsKey names the footer's key-value entry of the checksums;
	// its value is checksumsValue.
	checksumsKey = "nablasd.checksums"
	// writtenBy is the created_by of the Parquet files nablasd writes
	// with checksums (those before wrote "nablasd" and none).
	writtenBy = "nablasd version 2"
	// rootName names the schema's root in the Parquet files nablasd
	// writes with checksums (readers ignore it; arrow-go writes "schema").
	rootName = "nablasd"
)

// checksumsValue formats the checksums entry: "crc32 footer=XXXXXXXX
// chunks=XXXXXXXX,..." with the chunks in row-group then column order.
// The footer's CRC is computed over the footer with its eight hex digits
// as zeros (footerDigits), then written in their place.
func checksumsValue(footer uint32, chunks []uint32) string {
	var b strings.Builder
	fmt.Fprintf(&b, "crc32 footer=%08x chunks=", footer)
	for i, c := range chunks {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%08x", c)
	}
	return b.String()
}

// footerDigits is where the footer's CRC starts in checksumsValue.
const footerDigits = len("crc32 footer=")

// parseChecksums parses checksumsValue.
func parseChecksums(v string) (footer uint32, chunks []uint32, err error) {
	rest, ok := strings.CutPrefix(v, "crc32 footer=")
	if !ok || len(rest) < 8 {
		return 0, nil, fmt.Errorf("unknown checksums %q", v)
	}
	f, err := strconv.ParseUint(rest[:8], 16, 32)
	list, ok := strings.CutPrefix(rest[8:], " chunks=")
	if err != nil || !ok {
		return 0, nil, fmt.Errorf("unknown checksums %q", v)
	}
	if list != "" {
		for _, s := range strings.Split(list, ",") {
			c, err := strconv.ParseUint(s, 16, 32)
			if err != nil || len(s) != 8 {
				return 0, nil, fmt.Errorf("unknown checksums %q", v)
			}
			chunks = append(chunks, uint32(c))
		}
	}
	return uint32(f), chunks, nil
}

// pageSum is the CRC-32 of a page as stored, header and body, and the
// chunk's digest is the CRC-32 of its pages' sums in order, each as four
// little-endian bytes: what checksumsValue lists per chunk.
func pageSum(header, body []byte) uint32 {
	return crc32.Update(crc32.ChecksumIEEE(header), crc32.IEEETable, body)
}

// chunkDigest accumulates a column chunk's pages' sums.
type chunkDigest struct {
	sum uint32
}

func (d *chunkDigest) add(page uint32) {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], page)
	d.sum = crc32.Update(d.sum, crc32.IEEETable, b[:])
}

// writtenPage is a page parquetChecksums passed on.
type writtenPage struct {
	at     int64  // its offset as the Parquet writer counts (before the CRCs)
	length int64  // its header and body as the writer wrote them
	grow   int64  // the bytes the crc field added
	before int64  // the bytes the crc fields of the pages before it added
	sum    uint32 // pageSum as stored
}

// parquetChecksums is the io.Writer between arrow-go's Parquet writer and
// the file (see above); Close writes the footer.
type parquetChecksums struct {
	out   io.Writer
	buf   []byte // received bytes not passed on yet
	in    int64  // the writer's offset of buf[0]
	magic bool   // the leading PAR1 has passed
	// footer: buf holds the footer (and what follows it) from its start
	footer bool
	pages  []writtenPage
	err    error
}

func newParquetChecksums(out io.Writer) *parquetChecksums {
	return &parquetChecksums{out: out}
}

func (w *parquetChecksums) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.buf = append(w.buf, p...)
	if err := w.pass(); err != nil {
		w.err = err
		return 0, err
	}
	return len(p), nil
}

// pass writes out every complete page at the start of buf, with its crc.
func (w *parquetChecksums) pass() error {
	for !w.footer {
		if !w.magic {
			if len(w.buf) < 4 {
				return nil
			}
			if string(w.buf[:4]) != "PAR1" {
				return fmt.Errorf("internal error: the Parquet writer wrote no magic")
			}
			if err := w.emit(w.buf[:4]); err != nil {
				return err
			}
			w.consume(4)
			w.magic = true
			continue
		}
		h, n, err := decodeStruct(w.buf)
		if err == errShort {
			return nil // more to come
		}
		if err != nil {
			return fmt.Errorf("internal error: the Parquet writer wrote a page header that does not decode: %v", err)
		}
		// a page header and the footer both start with an i32 field 1;
		// field 2 is the page's size (i32) or the footer's schema (a list)
		if len(h.fields) < 2 || h.fields[0].id != 1 || h.fields[1].id != 2 {
			return fmt.Errorf("internal error: the Parquet writer wrote an unknown structure")
		}
		if h.fields[1].v.typ == tList {
			w.footer = true
			return nil
		}
		size, ok := h.int(3)
		if !ok || size < 0 {
			return fmt.Errorf("internal error: a page header without its size")
		}
		if int64(len(w.buf)) < int64(n)+size {
			return nil // the body is still to come
		}
		body := w.buf[n : int64(n)+size]
		h.set(4, tValue{typ: tI32, i: int64(int32(crc32.ChecksumIEEE(body)))})
		header := encodeStruct(h)
		if err := w.emit(header); err != nil {
			return err
		}
		if err := w.emit(body); err != nil {
			return err
		}
		before := int64(0)
		if k := len(w.pages); k > 0 {
			before = w.pages[k-1].before + w.pages[k-1].grow
		}
		w.pages = append(w.pages, writtenPage{at: w.in, length: int64(n) + size, grow: int64(len(header) - n), before: before, sum: pageSum(header, body)})
		w.consume(n + int(size))
	}
	return nil
}

func (w *parquetChecksums) emit(b []byte) error {
	_, err := w.out.Write(b)
	return err
}

func (w *parquetChecksums) consume(n int) {
	w.in += int64(n)
	w.buf = w.buf[n:]
	if len(w.buf) == 0 {
		w.buf = w.buf[:0:0] // let a large page's buffer go
	}
}

// Close writes the footer, rewritten (see parquetChecksums). arrow-go's
// writer calls it after writing its footer, length and magic.
func (w *parquetChecksums) Close() error {
	if w.err != nil {
		return w.err
	}
	w.err = w.finish()
	if w.err == nil {
		w.err = errClosed
		return nil
	}
	return w.err
}

var errClosed = fmt.Errorf("internal error: a Parquet file written after its footer")

func (w *parquetChecksums) finish() error {
	b := w.buf
	if !w.footer || len(b) < 8 || string(b[len(b)-4:]) != "PAR1" {
		return fmt.Errorf("internal error: the Parquet writer's footer is missing")
	}
	n := int(binary.LittleEndian.Uint32(b[len(b)-8:]))
	if n != len(b)-8 {
		return fmt.Errorf("internal error: the Parquet writer's footer has %d bytes, not %d", len(b)-8, n)
	}
	meta, used, err := decodeStruct(b[:n])
	if err != nil || used != n {
		return fmt.Errorf("internal error: the Parquet writer's footer does not decode: %v", err)
	}
	chunks, err := w.moveOffsets(meta)
	if err != nil {
		return err
	}
	placeholder := checksumsValue(0, chunks)
	kv := tValue{typ: tStructType, st: &tStruct{fields: []tField{
		{1, tValue{typ: tBinary, b: []byte(checksumsKey)}},
		{2, tValue{typ: tBinary, b: []byte(placeholder)}},
	}}}
	if list := meta.field(5); list != nil && list.typ == tList {
		list.items = append([]tValue{kv}, list.items...)
	} else {
		meta.set(5, tValue{typ: tList, elem: tStructType, items: []tValue{kv}})
	}
	meta.set(6, tValue{typ: tBinary, b: []byte(writtenBy)})
	footer := encodeStruct(meta)
	at := bytes.Index(footer, []byte(placeholder))
	if at < 0 {
		return fmt.Errorf("internal error: the checksums are not in the footer")
	}
	sum := crc32.ChecksumIEEE(footer)
	copy(footer[at+footerDigits:], fmt.Sprintf("%08x", sum))
	footer = binary.LittleEndian.AppendUint32(footer, uint32(len(footer)))
	footer = append(footer, "PAR1"...)
	return w.emit(footer)
}

// moved returns offset o (as the Parquet writer counted) where it is in
// the file: after the bytes the crc fields added to the pages before it.
func (w *parquetChecksums) moved(o int64) int64 {
	i := sort.Search(len(w.pages), func(i int) bool { return w.pages[i].at >= o })
	if i == 0 {
		return o
	}
	last := w.pages[i-1]
	return o + last.before + last.grow
}

// moveOffsets moves the footer's offsets and sizes to the pages' places
// and returns each column chunk's digest, in row-group then column order.
func (w *parquetChecksums) moveOffsets(meta *tStruct) ([]uint32, error) {
	rgs := meta.field(4)
	if rgs == nil || rgs.typ != tList {
		return nil, fmt.Errorf("internal error: the Parquet writer's footer has no row groups")
	}
	move := func(s *tStruct, id int16) {
		if v := s.field(id); v != nil && v.typ == tI64 {
			v.i = w.moved(v.i)
		}
	}
	grow := func(s *tStruct, id int16, by int64) {
		if v := s.field(id); v != nil && (v.typ == tI64 || v.typ == tI32) {
			v.i += by
		}
	}
	var digests []uint32
	for _, rg := range rgs.items {
		if rg.st == nil {
			return nil, fmt.Errorf("internal error: a row group is not a struct")
		}
		cols := rg.st.field(1)
		if cols == nil || cols.typ != tList {
			return nil, fmt.Errorf("internal error: a row group without columns")
		}
		var rgGrow int64
		for _, cc := range cols.items {
			if cc.st == nil {
				return nil, fmt.Errorf("internal error: a column chunk is not a struct")
			}
			md := cc.st.field(3)
			if md == nil || md.st == nil {
				return nil, fmt.Errorf("internal error: a column chunk without its metadata")
			}
			start, _ := md.st.int(9)
			if dict, ok := md.st.int(11); ok && dict > 0 && dict < start {
				start = dict
			}
			size, _ := md.st.int(7)
			d, g, err := w.chunk(start, size)
			if err != nil {
				return nil, err
			}
			digests = append(digests, d)
			rgGrow += g
			move(cc.st, 2)
			move(cc.st, 4)
			move(cc.st, 6)
			for _, id := range []int16{9, 10, 11, 14} {
				move(md.st, id)
			}
			grow(md.st, 6, g)
			grow(md.st, 7, g)
		}
		move(rg.st, 5)
		grow(rg.st, 2, rgGrow)
		grow(rg.st, 6, rgGrow)
	}
	return digests, nil
}

// chunk returns the digest of the pages of the column chunk of size bytes
// at start (as the writer counted) and the bytes their crcs added.
func (w *parquetChecksums) chunk(start, size int64) (uint32, int64, error) {
	i := sort.Search(len(w.pages), func(i int) bool { return w.pages[i].at >= start })
	var d chunkDigest
	var grow, length int64
	for ; i < len(w.pages) && w.pages[i].at < start+size; i++ {
		d.add(w.pages[i].sum)
		grow += w.pages[i].grow
		length += w.pages[i].length
	}
	if length != size {
		return 0, 0, fmt.Errorf("internal error: a column chunk of %d bytes at %d holds pages of %d", size, start, length)
	}
	return d.sum, grow, nil
}
