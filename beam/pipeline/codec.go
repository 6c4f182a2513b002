package pipeline

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/ipc"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// The elements that go between the pipeline's stages are bytes in a
// small binary encoding of their own (Beam's coders only carry them): a
// group key, a chunk of a table's rows, a tensor, a group's result, a
// partial result. Integers are varints, reals their 8 bytes; a slice
// starts with its length, a nil slice (as a format's unused Pos and Idx
// levels are) with -1.

// encoder appends to a byte slice.
type encoder struct{ b []byte }

func (e *encoder) int(x int64)     { e.b = binary.AppendVarint(e.b, x) }
func (e *encoder) real(x float64)  { e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(x)) }
func (e *encoder) string(s string) { e.int(int64(len(s))); e.b = append(e.b, s...) }
func (e *encoder) bool(x bool)     { e.int(map[bool]int64{false: 0, true: 1}[x]) }
func (e *encoder) ints(xs []int)   { e.intsDelta(xs, false) }
func (e *encoder) reals(xs []float64) {
	if xs == nil {
		e.int(-1)
		return
	}
	e.int(int64(len(xs)))
	for _, x := range xs {
		e.real(x)
	}
}

// intsDelta writes ints, as differences from the previous one when delta
// is set (sorted coordinates: small numbers).
func (e *encoder) intsDelta(xs []int, delta bool) {
	if xs == nil {
		e.int(-1)
		return
	}
	e.int(int64(len(xs)))
	e.bool(delta)
	prev := 0
	for _, x := range xs {
		if delta {
			e.int(int64(x - prev))
			prev = x
		} else {
			e.int(int64(x))
		}
	}
}

// decoder reads what an encoder wrote; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

var errCorrupt = errors.New("internal error: nablasd-beam: a corrupt element")

func (d *decoder) int() int64 {
	if d.err != nil {
		return 0
	}
	x, n := binary.Varint(d.b)
	if n <= 0 {
		d.err = errCorrupt
		return 0
	}
	d.b = d.b[n:]
	return x
}

func (d *decoder) real() float64 {
	if d.err != nil || len(d.b) < 8 {
		d.err = errCorrupt
		return 0
	}
	x := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return x
}

func (d *decoder) string() string {
	n := d.int()
	if d.err != nil || n < 0 || n > int64(len(d.b)) {
		d.err = errCorrupt
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) bool() bool { return d.int() != 0 }

// length reads a slice's length: -1 for nil; it refuses lengths the
// remaining bytes cannot hold (at least one byte an element).
func (d *decoder) length() int {
	n := d.int()
	if d.err == nil && (n < -1 || n > int64(len(d.b))) {
		d.err = errCorrupt
	}
	if d.err != nil {
		return -1
	}
	return int(n)
}

func (d *decoder) ints() []int {
	n := d.length()
	if n < 0 {
		return nil
	}
	delta := d.bool()
	xs := make([]int, n)
	prev := int64(0)
	for i := range xs {
		x := d.int()
		if delta {
			x += prev
			prev = x
		}
		xs[i] = int(x)
	}
	return xs
}

func (d *decoder) reals() []float64 {
	n := d.length()
	if n < 0 {
		return nil
	}
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = d.real()
	}
	return xs
}

func (d *decoder) done() error {
	if d.err == nil && len(d.b) != 0 {
		d.err = errCorrupt
	}
	return d.err
}

// keyString is a group key as the string Beam groups by: "i" and the
// integer, or "s" and the string.
func keyString(k datasets.Key) string {
	if k.IsStr {
		return "s" + k.Str
	}
	return "i" + strconv.FormatInt(k.Int, 10)
}

func parseKey(s string) (datasets.Key, error) {
	if len(s) > 0 && s[0] == 's' {
		return datasets.Key{Str: s[1:], IsStr: true}, nil
	}
	if len(s) > 0 && s[0] == 'i' {
		n, err := strconv.ParseInt(s[1:], 10, 64)
		if err == nil {
			return datasets.Key{Int: n}, nil
		}
	}
	return datasets.Key{}, fmt.Errorf("internal error: nablasd-beam: a corrupt key %q", s)
}

func (e *encoder) key(k datasets.Key) {
	e.bool(k.IsStr)
	if k.IsStr {
		e.string(k.Str)
	} else {
		e.int(k.Int)
	}
}

func (d *decoder) key() datasets.Key {
	if d.bool() {
		return datasets.Key{Str: d.string(), IsStr: true}
	}
	return datasets.Key{Int: d.int()}
}

// chunk is a chunk of a table input's rows (datasets.Chunk), with the
// input's name.
type chunk struct {
	input string
	datasets.Chunk
}

func encodeChunk(c *chunk) []byte {
	e := &encoder{}
	e.string(c.input)
	e.key(c.Key)
	e.int(c.Row)
	e.int(int64(len(c.Idx)))
	for _, xs := range c.Idx {
		e.ints(xs)
	}
	e.reals(c.Val)
	return e.b
}

func decodeChunk(b []byte) (*chunk, error) {
	d := &decoder{b: b}
	c := &chunk{input: d.string()}
	c.Key = d.key()
	c.Row = d.int()
	n := d.length()
	for range max(n, 0) {
		c.Idx = append(c.Idx, d.ints())
	}
	c.Val = d.reals()
	return c, d.done()
}

// encodeTable encodes a tensor or a scalar: the format's name, shape and
// arrays.
func (e *encoder) table(tt *datasets.TableTensor) {
	if tt.Tensor == nil {
		e.bool(false)
		e.real(tt.Scalar)
		return
	}
	t := tt.Tensor
	e.bool(true)
	e.string(t.Format.Name())
	e.ints(t.Shape)
	for k := range t.Shape {
		e.intsDelta(t.Pos[k], true)
		e.ints(t.Idx[k])
	}
	e.reals(t.Val)
}

func (d *decoder) table() (*datasets.TableTensor, error) {
	if !d.bool() {
		return &datasets.TableTensor{Scalar: d.real()}, d.err
	}
	f, err := formats.ByName(d.string())
	if d.err != nil {
		return nil, d.err
	}
	if err != nil {
		return nil, fmt.Errorf("internal error: nablasd-beam: %v", err)
	}
	t := &formats.Tensor{Format: f, Shape: d.ints()}
	if d.err != nil || len(t.Shape) > 64 {
		return nil, errCorrupt
	}
	t.Pos = make([][]int, len(t.Shape))
	t.Idx = make([][]int, len(t.Shape))
	for k := range t.Shape {
		t.Pos[k] = d.ints()
		t.Idx[k] = d.ints()
	}
	t.Val = d.reals()
	return &datasets.TableTensor{Tensor: t}, d.err
}

// named is a broadcast input or a first group's input: a name and its
// tensor (or number).
type named struct {
	name  string
	first bool // one of the first group's inputs (to compile for), not a broadcast input
	value *datasets.TableTensor
}

func encodeNamed(n *named) []byte {
	e := &encoder{}
	e.string(n.name)
	e.bool(n.first)
	e.table(n.value)
	return e.b
}

func decodeNamed(b []byte) (*named, error) {
	d := &decoder{b: b}
	n := &named{name: d.string(), first: d.bool()}
	v, err := d.table()
	if err != nil {
		return nil, err
	}
	n.value = v
	return n, d.done()
}

// result is a group's result: a tensor, or a grouped fit's rows (an
// Arrow IPC stream of one record batch).
type result struct {
	key   datasets.Key
	value *datasets.TableTensor
	rows  []byte
}

func encodeResult(r *result) []byte {
	e := &encoder{}
	e.key(r.key)
	e.bool(r.rows != nil)
	if r.rows != nil {
		e.string(string(r.rows))
		return e.b
	}
	e.table(r.value)
	return e.b
}

func decodeResult(b []byte) (*result, error) {
	d := &decoder{b: b}
	r := &result{key: d.key()}
	if d.bool() {
		r.rows = []byte(d.string())
		return r, d.done()
	}
	v, err := d.table()
	if err != nil {
		return nil, err
	}
	r.value = v
	return r, d.done()
}

// encodeRows encodes a group's rows as an Arrow IPC stream.
func encodeRows(rec arrow.RecordBatch) ([]byte, error) {
	var buf bytes.Buffer
	w := ipc.NewWriter(&buf, ipc.WithSchema(rec.Schema()))
	if err := w.Write(rec); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeRows decodes what encodeRows wrote.
func decodeRows(b []byte) (arrow.RecordBatch, error) {
	r, err := ipc.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, fmt.Errorf("internal error: nablasd-beam: a group's rows: %v", err)
	}
	defer r.Release()
	if !r.Next() {
		return nil, fmt.Errorf("internal error: nablasd-beam: a group's rows: %v", r.Err())
	}
	rec := r.RecordBatch()
	rec.Retain()
	return rec, nil
}
