package datasets

import (
	"cmp"
	"math"
	"strconv"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Key is the key of a group: an integer (from any Arrow integer, date or
// timestamp column, as its integer value) or a string.
type Key struct {
	Int   int64
	Str   string
	IsStr bool
}

// String returns the key as a number or a quoted string, for messages.
func (k Key) String() string {
	if k.IsStr {
		return strconv.Quote(k.Str)
	}
	return strconv.FormatInt(k.Int, 10)
}

// Compare orders keys: integers numerically, strings bytewise (as the
// key column must be sorted).
func (k Key) Compare(o Key) int {
	if k.IsStr {
		return cmp.Compare(k.Str, o.Str)
	}
	return cmp.Compare(k.Int, o.Int)
}

// isKeyType reports whether a key column may have type t.
func isKeyType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.DATE32, arrow.DATE64, arrow.TIMESTAMP, arrow.STRING, arrow.LARGE_STRING:
		return true
	}
	return isIndexType(t)
}

// keyAt returns the key in row i of a key column; ok is false for a null
// or an unsigned value past the int64 range.
func keyAt(a arrow.Array, i int) (k Key, ok bool) {
	if a.IsNull(i) {
		return Key{}, false
	}
	switch a := a.(type) {
	case *array.Int64:
		return Key{Int: a.Value(i)}, true
	case *array.Int32:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Int16:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Int8:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Uint64:
		u := a.Value(i)
		return Key{Int: int64(u)}, u <= math.MaxInt64
	case *array.Uint32:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Uint16:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Uint8:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Date32:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Date64:
		return Key{Int: int64(a.Value(i))}, true
	case *array.Timestamp:
		return Key{Int: int64(a.Value(i))}, true
	case *array.String:
		return Key{Str: a.Value(i), IsStr: true}, true
	case *array.LargeString:
		return Key{Str: a.Value(i), IsStr: true}, true
	}
	return Key{}, false
}

// runEnd returns the end of the run of rows equal to key k starting at
// row i of a key column: the first row j > i whose key differs (or the
// array's length). Int64 columns, the common case, take a fast loop.
func runEnd(a arrow.Array, i int, k Key) int {
	n := a.Len()
	if a64, ok := a.(*array.Int64); ok && a.NullN() == 0 {
		v := a64.Int64Values()
		j := i + 1
		for j < n && v[j] == k.Int {
			j++
		}
		return j
	}
	j := i + 1
	for j < n {
		x, ok := keyAt(a, j)
		if !ok || x != k {
			break
		}
		j++
	}
	return j
}

// keyArray returns a column of n copies of key k, of type t.
func keyArray(t arrow.DataType, k Key, n int) arrow.Array {
	b := array.NewBuilder(goAlloc, t)
	defer b.Release()
	b.Reserve(n)
	for range n {
		switch b := b.(type) {
		case *array.Int64Builder:
			b.Append(k.Int)
		case *array.Int32Builder:
			b.Append(int32(k.Int))
		case *array.Int16Builder:
			b.Append(int16(k.Int))
		case *array.Int8Builder:
			b.Append(int8(k.Int))
		case *array.Uint64Builder:
			b.Append(uint64(k.Int))
		case *array.Uint32Builder:
			b.Append(uint32(k.Int))
		case *array.Uint16Builder:
			b.Append(uint16(k.Int))
		case *array.Uint8Builder:
			b.Append(uint8(k.Int))
		case *array.Date32Builder:
			b.Append(arrow.Date32(k.Int))
		case *array.Date64Builder:
			b.Append(arrow.Date64(k.Int))
		case *array.TimestampBuilder:
			b.Append(arrow.Timestamp(k.Int))
		case *array.StringBuilder:
			b.Append(k.Str)
		case *array.LargeStringBuilder:
			b.Append(k.Str)
		default:
			panic("internal error: datasets: key column of type " + t.String())
		}
	}
	return b.NewArray()
}
