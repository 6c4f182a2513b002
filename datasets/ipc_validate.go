package datasets

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
)

// validateMessage checks a record batch message (its flatbuffer verified
// by verifyMessage) against its body before arrow-go decodes it: every
// buffer lies inside the body and buffers do not overlap, and every field
// node has as many nulls as rows at most. Other messages pass.
func validateMessage(meta, body []byte) error {
	b, ok := batchHeader(meta)
	if !ok {
		return nil
	}
	end := int64(0)
	for i, buf := range b.bufs {
		o, l := int64(binary.LittleEndian.Uint64(buf)), int64(binary.LittleEndian.Uint64(buf[8:]))
		if o < 0 || l < 0 || o > int64(len(body)) || l > int64(len(body))-o {
			return fmt.Errorf("%w: buffer %d (%d bytes at %d) lies outside the body of %d bytes", errFlatbuffer, i, l, o, len(body))
		}
		if l > 0 {
			if o < end {
				return fmt.Errorf("%w: buffer %d (%d bytes at %d) overlaps the one before", errFlatbuffer, i, l, o)
			}
			end = o + l
		}
	}
	if b.length < 0 {
		return fmt.Errorf("%w: a record batch of %d rows", errFlatbuffer, b.length)
	}
	for i, nd := range b.nodes {
		nl, nn := int64(binary.LittleEndian.Uint64(nd)), int64(binary.LittleEndian.Uint64(nd[8:]))
		if nl < 0 || nn < 0 || nn > nl {
			return fmt.Errorf("%w: field node %d: %d nulls in %d rows", errFlatbuffer, i, nn, nl)
		}
	}
	return nil
}

// batchMessage is a record batch message's header.
type batchMessage struct {
	length      int64
	nodes, bufs [][]byte // FieldNode and Buffer structs, 16 bytes each
	compressed  bool
}

// batchHeader reads the header of a record batch message (verified by
// verifyMessage); ok is false for another message.
func batchHeader(meta []byte) (batchMessage, bool) {
	var b batchMessage
	v := &fbVerifier{buf: meta}
	root, err := v.uoffset(0)
	if err != nil {
		return b, false
	}
	if off, ok := v.field(root, 1); !ok || v.buf[root+off] != 3 {
		return b, false
	}
	off, ok := v.field(root, 2)
	if !ok {
		return b, false
	}
	hdr, err := v.uoffset(root + off)
	if err != nil {
		return b, false
	}
	if o, ok := v.field(hdr, 0); ok {
		b.length = int64(binary.LittleEndian.Uint64(v.buf[hdr+o:]))
	}
	b.nodes, b.bufs = fbStructs(v, hdr, 1, 16), fbStructs(v, hdr, 2, 16)
	_, b.compressed = v.field(hdr, 3)
	return b, true
}

// validateBatch checks record batch n of an Arrow IPC stream, as arrow-go
// decoded it, against its message (m's last, checked by validateMessage):
// the record batch's length is every column's, the null counts agree with
// the validity bitmaps (arrow-go drops a bitmap whose null count says 0,
// which would turn a corrupted null count into values), and the value
// buffers of fixed-width and binary columns hold the rows they must.
// Columns of nested types, and compressed buffers, are left to arrow-go.
func validateBatch(name string, m *verifiedMessages, rec arrow.RecordBatch, n int64) error {
	fail := func(format string, args ...any) error {
		return tableErrorf(name, "", -1, "record batch %d: corrupt Arrow IPC data: %s", n, fmt.Sprintf(format, args...))
	}
	if m == nil || m.meta == nil {
		return nil
	}
	b, ok := batchHeader(m.meta)
	if !ok {
		return nil
	}
	length, nodes, bufs := b.length, b.nodes, b.bufs
	if length != rec.NumRows() {
		return fail("a length of %d rows", length)
	}
	fields := rec.Schema().Fields()
	flat := len(nodes) == len(fields)
	for _, f := range fields {
		if _, nested := f.Type.(arrow.NestedType); nested {
			flat = false
		}
	}
	if !flat || b.compressed {
		return nil
	}
	bi := 0
	for i, f := range fields {
		nd := nodes[i]
		rows, nulls := int64(binary.LittleEndian.Uint64(nd)), int64(binary.LittleEndian.Uint64(nd[8:]))
		if rows != length {
			return fail("column %s has %d rows, the batch %d", f.Name, rows, length)
		}
		layout, known := bufferLayout(f.Type)
		if !known {
			return nil // the buffers of the rest cannot be told apart
		}
		if layout.validity {
			if bi >= len(bufs) {
				return fail("column %s lacks its buffers", f.Name)
			}
			if err := checkValidity(m.body, bufs[bi], rows, nulls); err != nil {
				return fail("column %s: %v", f.Name, err)
			}
			bi++
		} else if nulls != 0 && f.Type.ID() != arrow.NULL {
			return fail("column %s: %d nulls", f.Name, nulls)
		}
		for k, w := range layout.widths {
			if bi >= len(bufs) {
				return fail("column %s lacks its buffers", f.Name)
			}
			l := int64(binary.LittleEndian.Uint64(bufs[bi][8:]))
			need := rows * int64(w)
			switch {
			case w < 0: // bits
				need = (rows + 7) / 8
			case k == 0 && layout.offsets && rows == 0:
				need = 0 // an empty binary column may leave its offsets out
			case k == 0 && layout.offsets:
				need = (rows + 1) * int64(w)
			}
			if l < need {
				return fail("column %s: a buffer of %d bytes for %d rows (want %d)", f.Name, l, rows, need)
			}
			bi++
		}
	}
	if bi != len(bufs) {
		return fail("%d buffers for %d", len(bufs), bi)
	}
	return nil
}

// layout are the buffers of a flat column after its validity bitmap:
// each buffer's bytes per row (-1: bits), offsets first for binary types.
type layout struct {
	validity bool
	widths   []int
	offsets  bool // widths[0] are offsets (one more than the rows), then data
}

// bufferLayout says the IPC buffers of a flat type; known is false for a
// type whose buffers it does not know.
func bufferLayout(t arrow.DataType) (layout, bool) {
	switch t.ID() {
	case arrow.NULL:
		return layout{}, true
	case arrow.BOOL:
		return layout{validity: true, widths: []int{-1}}, true
	case arrow.STRING, arrow.BINARY:
		return layout{validity: true, widths: []int{4, 0}, offsets: true}, true
	case arrow.LARGE_STRING, arrow.LARGE_BINARY:
		return layout{validity: true, widths: []int{8, 0}, offsets: true}, true
	case arrow.DICTIONARY:
		d := t.(*arrow.DictionaryType)
		return layout{validity: true, widths: []int{d.IndexType.(arrow.FixedWidthDataType).BitWidth() / 8}}, true
	}
	if fw, ok := t.(arrow.FixedWidthDataType); ok && fw.BitWidth()%8 == 0 && fw.BitWidth() > 0 {
		return layout{validity: true, widths: []int{fw.BitWidth() / 8}}, true
	}
	return layout{}, false
}

// checkValidity checks a validity bitmap (a Buffer struct) against its
// column's rows and null count.
func checkValidity(body, buf []byte, rows, nulls int64) error {
	o, l := int64(binary.LittleEndian.Uint64(buf)), int64(binary.LittleEndian.Uint64(buf[8:]))
	if l == 0 {
		if nulls != 0 {
			return fmt.Errorf("%d nulls without a validity bitmap", nulls)
		}
		return nil
	}
	if l < (rows+7)/8 {
		return fmt.Errorf("a validity bitmap of %d bytes for %d rows", l, rows)
	}
	bm := body[o : o+l]
	valid := int64(0)
	for i := int64(0); i < rows/8; i++ {
		valid += int64(bits.OnesCount8(bm[i]))
	}
	if r := rows % 8; r != 0 {
		valid += int64(bits.OnesCount8(bm[rows/8] & (1<<r - 1)))
	}
	if rows-valid != nulls {
		return fmt.Errorf("a null count of %d, but its bitmap has %d nulls", nulls, rows-valid)
	}
	return nil
}

// fbStructs returns the entries of the vector of size-byte structs in
// field id of the table at pos (verified), or none.
func fbStructs(v *fbVerifier, pos, id, size int) [][]byte {
	off, ok := v.field(pos, id)
	if !ok {
		return nil
	}
	to := pos + off + int(binary.LittleEndian.Uint32(v.buf[pos+off:]))
	n := int(binary.LittleEndian.Uint32(v.buf[to:]))
	out := make([][]byte, n)
	for i := range out {
		out[i] = v.buf[to+4+i*size : to+4+(i+1)*size]
	}
	return out
}
