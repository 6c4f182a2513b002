package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/apache/arrow-go/v18/arrow/ipc"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// A verifier of the flatbuffers of Arrow IPC messages (format/Message.fbs,
// Schema.fbs): every table, vector and string a message refers to lies
// inside the message. arrow-go decodes them without these checks, and
// allocates what a corrupt vector length says (a 150 GB slice for 300
// bytes of input). The table layouts below list, for each table, its
// fields that refer to other data; scalar fields are only bounds-checked.

// fbKind is what a table field holds.
type fbKind uint8

const (
	fbScalar      fbKind = iota // size bytes inline
	fbString                    // offset to a string
	fbTable                     // offset to a table of layout sub
	fbUnion                     // offset to a table whose layout the union's type field picks
	fbVecTables                 // offset to a vector of offsets to tables of layout sub
	fbVecStructs                // offset to a vector of size-byte structs
	fbVecKeyValue               // offset to a vector of KeyValue tables
)

type fbField struct {
	kind fbKind
	size int // scalar or struct size
	sub  *fbTableLayout
	tag  int // for unions: the field holding the type tag
}

type fbTableLayout struct {
	name   string
	fields map[int]fbField // by field index
	union  func(tag byte) *fbTableLayout
}

var (
	fbKeyValue  = &fbTableLayout{name: "KeyValue", fields: map[int]fbField{0: {kind: fbString}, 1: {kind: fbString}}}
	fbScalars   = &fbTableLayout{name: "type"} // a type table of scalars only
	fbTimeType  = &fbTableLayout{name: "Timestamp", fields: map[int]fbField{0: {kind: fbScalar, size: 2}, 1: {kind: fbString}}}
	fbUnionType = &fbTableLayout{name: "Union", fields: map[int]fbField{0: {kind: fbScalar, size: 2}, 1: {kind: fbVecStructs, size: 4}}}
	fbInt       = &fbTableLayout{name: "Int", fields: map[int]fbField{0: {kind: fbScalar, size: 4}, 1: {kind: fbScalar, size: 1}}}
	fbDictEnc   = &fbTableLayout{name: "DictionaryEncoding", fields: map[int]fbField{
		0: {kind: fbScalar, size: 8}, 1: {kind: fbTable, sub: fbInt}, 2: {kind: fbScalar, size: 1}, 3: {kind: fbScalar, size: 2}}}
	fbFieldT  = &fbTableLayout{name: "Field"}
	fbSchema  = &fbTableLayout{name: "Schema"}
	fbBodyCmp = &fbTableLayout{name: "BodyCompression", fields: map[int]fbField{0: {kind: fbScalar, size: 1}, 1: {kind: fbScalar, size: 1}}}
	fbRecord  = &fbTableLayout{name: "RecordBatch", fields: map[int]fbField{
		0: {kind: fbScalar, size: 8},
		1: {kind: fbVecStructs, size: 16}, // FieldNode
		2: {kind: fbVecStructs, size: 16}, // Buffer
		3: {kind: fbTable, sub: fbBodyCmp},
		4: {kind: fbVecStructs, size: 8},
	}}
	fbDictBatch = &fbTableLayout{name: "DictionaryBatch", fields: map[int]fbField{
		0: {kind: fbScalar, size: 8}, 1: {kind: fbTable, sub: fbRecord}, 2: {kind: fbScalar, size: 1}}}
	fbMessage = &fbTableLayout{name: "Message", fields: map[int]fbField{
		0: {kind: fbScalar, size: 2},
		1: {kind: fbScalar, size: 1},
		2: {kind: fbUnion, tag: 1},
		3: {kind: fbScalar, size: 8},
		4: {kind: fbVecKeyValue},
	}, union: func(tag byte) *fbTableLayout {
		switch tag {
		case 1:
			return fbSchema
		case 2:
			return fbDictBatch
		case 3:
			return fbRecord
		}
		return nil // tensors: refused by arrow-go after decoding the header type
	}}
)

func init() {
	fbFieldT.fields = map[int]fbField{
		0: {kind: fbString},
		1: {kind: fbScalar, size: 1},
		2: {kind: fbScalar, size: 1},
		3: {kind: fbUnion, tag: 2},
		4: {kind: fbTable, sub: fbDictEnc},
		5: {kind: fbVecTables, sub: fbFieldT},
		6: {kind: fbVecKeyValue},
	}
	fbFieldT.union = func(tag byte) *fbTableLayout {
		switch tag {
		case 10: // Timestamp: a time zone
			return fbTimeType
		case 14: // Union: type ids
			return fbUnionType
		}
		return fbScalars // the other types' tables hold scalars only
	}
	fbSchema.fields = map[int]fbField{
		0: {kind: fbScalar, size: 2},
		1: {kind: fbVecTables, sub: fbFieldT},
		2: {kind: fbVecKeyValue},
		3: {kind: fbVecStructs, size: 8},
	}
}

// errFlatbuffer is a message whose flatbuffer refers outside itself.
var errFlatbuffer = errors.New("corrupt message metadata")

// fbVerifier checks one flatbuffer.
type fbVerifier struct {
	buf    []byte
	tables int // tables visited, bounded against shared sub-tables
}

// verifyMessage checks an IPC message's flatbuffer and returns its body
// length.
func verifyMessage(buf []byte) (bodyLen int64, err error) {
	v := &fbVerifier{buf: buf}
	root, err := v.uoffset(0)
	if err != nil {
		return 0, err
	}
	if err := v.table(root, fbMessage, 0); err != nil {
		return 0, err
	}
	if off, ok := v.field(root, 3); ok {
		bodyLen = int64(binary.LittleEndian.Uint64(buf[root+off:]))
	}
	if bodyLen < 0 {
		return 0, fmt.Errorf("%w: body length %d", errFlatbuffer, bodyLen)
	}
	return bodyLen, nil
}

func (v *fbVerifier) in(pos, n int) error {
	if pos < 0 || n < 0 || pos > len(v.buf) || n > len(v.buf)-pos {
		return fmt.Errorf("%w: %d bytes at %d past its %d bytes", errFlatbuffer, n, pos, len(v.buf))
	}
	return nil
}

// uoffset follows the unsigned offset stored at pos.
func (v *fbVerifier) uoffset(pos int) (int, error) {
	if err := v.in(pos, 4); err != nil {
		return 0, err
	}
	to := pos + int(binary.LittleEndian.Uint32(v.buf[pos:]))
	if err := v.in(to, 4); err != nil {
		return 0, err
	}
	return to, nil
}

// field returns the offset of field i of the table at pos (checked by
// table before), and whether it is present.
func (v *fbVerifier) field(pos, i int) (int, bool) {
	vt := pos - int(int32(binary.LittleEndian.Uint32(v.buf[pos:])))
	vlen := int(binary.LittleEndian.Uint16(v.buf[vt:]))
	if 4+2*i+2 > vlen {
		return 0, false
	}
	off := int(binary.LittleEndian.Uint16(v.buf[vt+4+2*i:]))
	return off, off != 0
}

// table checks the table at pos and what it refers to.
func (v *fbVerifier) table(pos int, lay *fbTableLayout, depth int) error {
	if v.tables++; v.tables > 1<<16 || depth > 64 {
		return fmt.Errorf("%w: too many or too deeply nested tables", errFlatbuffer)
	}
	if err := v.in(pos, 4); err != nil {
		return err
	}
	vt := pos - int(int32(binary.LittleEndian.Uint32(v.buf[pos:])))
	if err := v.in(vt, 4); err != nil {
		return err
	}
	vlen := int(binary.LittleEndian.Uint16(v.buf[vt:]))
	tlen := int(binary.LittleEndian.Uint16(v.buf[vt+2:]))
	if vlen < 4 || vlen%2 != 0 {
		return fmt.Errorf("%w: vtable of %d bytes", errFlatbuffer, vlen)
	}
	if err := v.in(vt, vlen); err != nil {
		return err
	}
	if err := v.in(pos, tlen); err != nil {
		return err
	}
	for i := 0; 4+2*i+2 <= vlen; i++ {
		off := int(binary.LittleEndian.Uint16(v.buf[vt+4+2*i:]))
		if off == 0 {
			continue
		}
		f, known := lay.fields[i]
		size := 4
		if !known || f.kind == fbScalar {
			size = max(f.size, 1)
		}
		if off+size > tlen {
			return fmt.Errorf("%w: field %d of a %s table past the table", errFlatbuffer, i, lay.name)
		}
		if !known || f.kind == fbScalar {
			continue
		}
		to, err := v.uoffset(pos + off)
		if err != nil {
			return err
		}
		if err := v.refer(to, pos, f, lay, depth); err != nil {
			return err
		}
	}
	return nil
}

// refer checks what a field of the table at pos refers to, at to.
func (v *fbVerifier) refer(to, pos int, f fbField, lay *fbTableLayout, depth int) error {
	switch f.kind {
	case fbString:
		n := int(binary.LittleEndian.Uint32(v.buf[to:]))
		return v.in(to+4, n)
	case fbTable:
		return v.table(to, f.sub, depth+1)
	case fbUnion:
		sub := fbScalars
		if off, ok := v.field(pos, f.tag); ok {
			sub = lay.union(v.buf[pos+off])
		}
		if sub == nil {
			return nil
		}
		return v.table(to, sub, depth+1)
	case fbVecStructs:
		n := int(binary.LittleEndian.Uint32(v.buf[to:]))
		if n > len(v.buf)/max(f.size, 1) {
			return fmt.Errorf("%w: a vector of %d entries", errFlatbuffer, n)
		}
		return v.in(to+4, n*f.size)
	case fbVecTables, fbVecKeyValue:
		sub := f.sub
		if f.kind == fbVecKeyValue {
			sub = fbKeyValue
		}
		n := int(binary.LittleEndian.Uint32(v.buf[to:]))
		if n > len(v.buf)/4 {
			return fmt.Errorf("%w: a vector of %d entries", errFlatbuffer, n)
		}
		if err := v.in(to+4, 4*n); err != nil {
			return err
		}
		for e := range n {
			t, err := v.uoffset(to + 4 + 4*e)
			if err != nil {
				return err
			}
			if err := v.table(t, sub, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// verifiedMessages reads the encapsulated messages of an Arrow IPC stream
// (or of the stream inside an IPC file) from r, which holds size bytes,
// verifying each message's flatbuffer and refusing lengths past the
// input before arrow-go decodes or allocates anything.
type verifiedMessages struct {
	r    io.Reader
	left int64 // bytes of the input not read yet
	msg  *ipc.Message
	refs int64
	// eos: the stream ended with its end-of-stream marker
	eos bool
	// meta and body are the last message's (validateBatch)
	meta, body []byte
}

func newVerifiedMessages(r io.Reader, size int64) *verifiedMessages {
	return &verifiedMessages{r: r, left: size, refs: 1}
}

func (m *verifiedMessages) read(n int64) ([]byte, error) {
	if n < 0 || n > m.left {
		return nil, fmt.Errorf("arrow/ipc: %d bytes past the end of the input: %w", n, io.ErrUnexpectedEOF)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(m.r, b); err != nil {
		return nil, fmt.Errorf("arrow/ipc: %w", err)
	}
	m.left -= n
	return b, nil
}

// Message returns the next message, or io.EOF at the end of the stream.
func (m *verifiedMessages) Message() (*ipc.Message, error) {
	if m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
	if m.left == 0 {
		return nil, io.EOF
	}
	head, err := m.read(4)
	if err != nil {
		return nil, err
	}
	n := binary.LittleEndian.Uint32(head)
	if n == 0xFFFFFFFF { // the continuation token, then the length
		if head, err = m.read(4); err != nil {
			return nil, err
		}
		n = binary.LittleEndian.Uint32(head)
	}
	if n == 0 {
		m.eos = true
		return nil, io.EOF // end of stream
	}
	meta, err := m.read(int64(n))
	if err != nil {
		return nil, err
	}
	bodyLen, err := verifyMessage(meta)
	if err != nil {
		return nil, err
	}
	body, err := m.read(bodyLen)
	if err != nil {
		return nil, err
	}
	if err := validateMessage(meta, body); err != nil {
		return nil, err
	}
	m.msg = ipc.NewMessage(memory.NewBufferBytes(meta), memory.NewBufferBytes(body))
	m.meta, m.body = meta, body
	return m.msg, nil
}

func (m *verifiedMessages) Retain() { m.refs++ }

func (m *verifiedMessages) Release() {
	if m.refs--; m.refs == 0 && m.msg != nil {
		m.msg.Release()
		m.msg = nil
	}
}
