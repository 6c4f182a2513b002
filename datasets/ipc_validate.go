package datasets

import (
	"encoding/binary"
	"fmt"
	"math/bits"

	"github.com/apache/arrow-go/v18/arrow"
)

// validateBatch checks the structure of record batch n of an Arrow IPC
// stream as its message (m's last, verified by verifyMessage) describes
// it, beyond what arrow-go checks as it decodes: every buffer lies inside
// the message's body, buffers do not overlap, the record batch's length is
// every column's, null counts are within the lengths and agree with the
// validity bitmaps (arrow-go drops a bitmap whose null count says 0, which
// would turn a corrupted null count into values), and the value buffers
// of fixed-width and binary columns hold the rows they must. Columns of
// nested types get the buffers' and lengths' checks only.
func validateBatch(name string, m *verifiedMessages, rec arrow.RecordBatch, n int64) error {
	fail := func(format string, args ...any) error {
		return tableErrorf(name, "", -1, "record batch %d: corrupt Arrow IPC data: %s", n, fmt.Sprintf(format, args...))
	}
	if m == nil || m.meta == nil {
		return nil
	}
	v := &fbVerifier{buf: m.meta}
	root, err := v.uoffset(0)
	if err != nil {
		return fail("%v", err)
	}
	if off, ok := v.field(root, 1); !ok || v.buf[root+off] != 3 {
		return nil // not a record batch (arrow-go refused it already)
	}
	off, ok := v.field(root, 2)
	if !ok {
		return fail("a record batch without its header")
	}
	hdr, err := v.uoffset(root + off)
	if err != nil {
		return fail("%v", err)
	}
	length := int64(0)
	if o, ok := v.field(hdr, 0); ok {
		length = int64(binary.LittleEndian.Uint64(v.buf[hdr+o:]))
	}
	if length < 0 || length != rec.NumRows() {
		return fail("a length of %d rows", length)
	}
	nodes := fbStructs(v, hdr, 1, 16)
	bufs := fbStructs(v, hdr, 2, 16)
	_, compressed := v.field(hdr, 3)
	body := int64(len(m.body))
	end := int64(0)
	for i, b := range bufs {
		o, l := int64(binary.LittleEndian.Uint64(b)), int64(binary.LittleEndian.Uint64(b[8:]))
		if o < 0 || l < 0 || o > body || l > body-o {
			return fail("buffer %d (%d bytes at %d) lies outside the body of %d bytes", i, l, o, body)
		}
		if l > 0 {
			if o < end {
				return fail("buffer %d (%d bytes at %d) overlaps the one before", i, l, o)
			}
			end = o + l
		}
	}
	for i, nd := range nodes {
		nl, nn := int64(binary.LittleEndian.Uint64(nd)), int64(binary.LittleEndian.Uint64(nd[8:]))
		if nl < 0 || nn < 0 || nn > nl {
			return fail("field node %d: %d nulls in %d rows", i, nn, nl)
		}
	}
	fields := rec.Schema().Fields()
	flat := len(nodes) == len(fields)
	for _, f := range fields {
		if _, nested := f.Type.(arrow.NestedType); nested {
			flat = false
		}
	}
	if !flat || compressed {
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
			if w < 0 { // bits
				need = (rows + 7) / 8
			}
			if k == 0 && layout.offsets && rows == 0 {
				need = 0 // an empty binary column may leave its offsets out
			} else if layout.offsets && k == 0 {
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
