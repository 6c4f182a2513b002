package datasets

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// A reader and writer of Thrift's compact protocol, for the Parquet
// structures nablasd reads and rewrites itself (page headers and the file
// footer: parquet_checksum.go) where arrow-go has no hook: generic
// structs of numbered fields, decoded without a schema and encoded back
// byte for byte as Thrift's own encoder writes them.

// The compact protocol's types. In a field header, a bool's value is its
// type (tTrue, tFalse).
const (
	tStop       = 0
	tTrue       = 1
	tFalse      = 2
	tByte       = 3
	tI16        = 4
	tI32        = 5
	tI64        = 6
	tDouble     = 7
	tBinary     = 8
	tList       = 9
	tSet        = 10
	tMap        = 11
	tStructType = 12
	tUUID       = 13
)

// tValue is one decoded value of compact type typ.
type tValue struct {
	typ byte
	// i holds the integers (i8 to i64), a bool (1 true, 0 false; a list's
	// bool element keeps its byte) and a double's bits
	i int64
	// b is a binary's bytes, at offset pos of the decoded buffer
	b   []byte
	pos int
	// elem is a list's or set's element type, or a map's key type (kv
	// its value type); items are the elements, or the keys and values in
	// turn
	elem, kv byte
	items    []tValue
	st       *tStruct
}

// tField is a struct's field.
type tField struct {
	id int16
	v  tValue
}

// tStruct is a decoded struct: its fields in the order they came.
type tStruct struct {
	fields []tField
}

// field returns the field id, or nil.
func (s *tStruct) field(id int16) *tValue {
	for i := range s.fields {
		if s.fields[i].id == id {
			return &s.fields[i].v
		}
	}
	return nil
}

// set replaces the value of field id, or adds the field in id order.
func (s *tStruct) set(id int16, v tValue) {
	for i := range s.fields {
		switch {
		case s.fields[i].id == id:
			s.fields[i].v = v
			return
		case s.fields[i].id > id:
			s.fields = append(s.fields[:i], append([]tField{{id, v}}, s.fields[i:]...)...)
			return
		}
	}
	s.fields = append(s.fields, tField{id, v})
}

// int returns the integer of field id, and whether the field is an
// integer.
func (s *tStruct) int(id int16) (int64, bool) {
	v := s.field(id)
	if v == nil {
		return 0, false
	}
	switch v.typ {
	case tByte, tI16, tI32, tI64:
		return v.i, true
	}
	return 0, false
}

// errThrift is a structure that does not decode.
var errThrift = errors.New("corrupt Thrift structure")

// errShort is a structure cut off by the end of the bytes given (which
// may be a window of a longer input).
var errShort = fmt.Errorf("%w: cut off", errThrift)

// tDecoder decodes from buf.
type tDecoder struct {
	buf   []byte
	pos   int
	depth int
}

// decodeStruct decodes the struct at the start of buf and returns it
// with its length in bytes.
func decodeStruct(buf []byte) (*tStruct, int, error) {
	d := &tDecoder{buf: buf}
	s, err := d.structure()
	if err != nil {
		return nil, 0, err
	}
	return s, d.pos, nil
}

func (d *tDecoder) byte() (byte, error) {
	if d.pos >= len(d.buf) {
		return 0, errShort
	}
	b := d.buf[d.pos]
	d.pos++
	return b, nil
}

func (d *tDecoder) uvarint() (uint64, error) {
	var x uint64
	for shift := 0; shift < 64; shift += 7 {
		b, err := d.byte()
		if err != nil {
			return 0, err
		}
		x |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return x, nil
		}
	}
	return 0, fmt.Errorf("%w: a varint over 64 bits", errThrift)
}

func (d *tDecoder) zigzag() (int64, error) {
	u, err := d.uvarint()
	return int64(u>>1) ^ -int64(u&1), err
}

// size reads a length that must fit in the bytes left, each element
// taking at least min bytes.
func (d *tDecoder) size(n uint64, min int) (int, error) {
	if n > uint64(len(d.buf)-d.pos)/uint64(min) {
		if n > 1<<31 {
			return 0, fmt.Errorf("%w: a length of %d", errThrift, n)
		}
		return 0, errShort // the rest may be still to come
	}
	return int(n), nil
}

func (d *tDecoder) structure() (*tStruct, error) {
	if d.depth++; d.depth > 64 {
		return nil, fmt.Errorf("%w: nested too deeply", errThrift)
	}
	defer func() { d.depth-- }()
	s := &tStruct{}
	var last int16
	for {
		h, err := d.byte()
		if err != nil {
			return nil, err
		}
		if h == tStop {
			return s, nil
		}
		typ := h & 0x0f
		id := last + int16(h>>4)
		if h>>4 == 0 {
			z, err := d.zigzag()
			if err != nil {
				return nil, err
			}
			if z < math.MinInt16 || z > math.MaxInt16 {
				return nil, fmt.Errorf("%w: field id %d", errThrift, z)
			}
			id = int16(z)
		}
		var v tValue
		if typ == tTrue || typ == tFalse {
			v = tValue{typ: typ}
			if typ == tTrue {
				v.i = 1
			}
		} else if v, err = d.value(typ); err != nil {
			return nil, err
		}
		s.fields = append(s.fields, tField{id, v})
		last = id
	}
}

func (d *tDecoder) value(typ byte) (tValue, error) {
	v := tValue{typ: typ}
	var err error
	switch typ {
	case tTrue, tFalse: // a list's bool: one byte
		var b byte
		b, err = d.byte()
		v.i = int64(b)
	case tByte:
		var b byte
		b, err = d.byte()
		v.i = int64(int8(b))
	case tI16, tI32, tI64:
		v.i, err = d.zigzag()
	case tDouble:
		if len(d.buf)-d.pos < 8 {
			return v, errShort
		}
		v.i = int64(binary.LittleEndian.Uint64(d.buf[d.pos:]))
		d.pos += 8
	case tUUID:
		if len(d.buf)-d.pos < 16 {
			return v, errShort
		}
		v.pos, v.b = d.pos, d.buf[d.pos:d.pos+16]
		d.pos += 16
	case tBinary:
		var n uint64
		if n, err = d.uvarint(); err != nil {
			return v, err
		}
		var m int
		if m, err = d.size(n, 1); err != nil {
			return v, err
		}
		v.pos, v.b = d.pos, d.buf[d.pos:d.pos+m]
		d.pos += m
	case tList, tSet:
		var h byte
		if h, err = d.byte(); err != nil {
			return v, err
		}
		n := uint64(h >> 4)
		if n == 15 {
			if n, err = d.uvarint(); err != nil {
				return v, err
			}
		}
		v.elem = h & 0x0f
		var m int
		if m, err = d.size(n, 1); err != nil {
			return v, err
		}
		v.items = make([]tValue, 0, m)
		for range m {
			var x tValue
			if x, err = d.value(v.elem); err != nil {
				return v, err
			}
			v.items = append(v.items, x)
		}
	case tMap:
		var n uint64
		if n, err = d.uvarint(); err != nil || n == 0 {
			return v, err
		}
		var m int
		if m, err = d.size(n, 2); err != nil {
			return v, err
		}
		var h byte
		if h, err = d.byte(); err != nil {
			return v, err
		}
		v.elem, v.kv = h>>4, h&0x0f
		for range m {
			for _, t := range []byte{v.elem, v.kv} {
				var x tValue
				if x, err = d.value(t); err != nil {
					return v, err
				}
				v.items = append(v.items, x)
			}
		}
	case tStructType:
		v.st, err = d.structure()
	default:
		err = fmt.Errorf("%w: type %d", errThrift, typ)
	}
	return v, err
}

// tEncoder encodes onto buf as Thrift's compact protocol writes.
type tEncoder struct {
	buf []byte
}

func encodeStruct(s *tStruct) []byte {
	e := &tEncoder{}
	e.structure(s)
	return e.buf
}

func (e *tEncoder) uvarint(x uint64) { e.buf = binary.AppendUvarint(e.buf, x) }

func (e *tEncoder) zigzag(x int64) { e.uvarint(uint64(x<<1) ^ uint64(x>>63)) }

func (e *tEncoder) structure(s *tStruct) {
	var last int16
	for _, f := range s.fields {
		typ := f.v.typ
		if typ == tTrue || typ == tFalse {
			typ = tFalse
			if f.v.i != 0 {
				typ = tTrue
			}
		}
		if delta := int(f.id) - int(last); delta > 0 && delta <= 15 {
			e.buf = append(e.buf, byte(delta)<<4|typ)
		} else {
			e.buf = append(e.buf, typ)
			e.zigzag(int64(f.id))
		}
		if typ != tTrue && typ != tFalse {
			e.value(f.v)
		}
		last = f.id
	}
	e.buf = append(e.buf, tStop)
}

func (e *tEncoder) value(v tValue) {
	switch v.typ {
	case tTrue, tFalse:
		e.buf = append(e.buf, byte(v.i))
	case tByte:
		e.buf = append(e.buf, byte(v.i))
	case tI16, tI32, tI64:
		e.zigzag(v.i)
	case tDouble:
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(v.i))
	case tUUID:
		e.buf = append(e.buf, v.b...)
	case tBinary:
		e.uvarint(uint64(len(v.b)))
		e.buf = append(e.buf, v.b...)
	case tList, tSet:
		if n := len(v.items); n < 15 {
			e.buf = append(e.buf, byte(n)<<4|v.elem)
		} else {
			e.buf = append(e.buf, 0xf0|v.elem)
			e.uvarint(uint64(n))
		}
		for _, x := range v.items {
			e.value(x)
		}
	case tMap:
		e.uvarint(uint64(len(v.items) / 2))
		if len(v.items) > 0 {
			e.buf = append(e.buf, v.elem<<4|v.kv)
		}
		for _, x := range v.items {
			e.value(x)
		}
	case tStructType:
		e.structure(v.st)
	}
}
