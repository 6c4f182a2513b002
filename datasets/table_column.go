package datasets

import (
	"math"
	"strconv"
	"unsafe"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// span is rows lo..hi-1 of one column of a record batch; row is the file
// row of lo.
type span struct {
	arr    arrow.Array
	lo, hi int
	row    int64
}

func spansLen(spans []span) int {
	n := 0
	for _, s := range spans {
		n += s.hi - s.lo
	}
	return n
}

// isIndexType reports whether an index column may have type t.
func isIndexType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64,
		arrow.UINT8, arrow.UINT16, arrow.UINT32, arrow.UINT64:
		return true
	}
	return false
}

// isValueType reports whether a value column may have type t.
func isValueType(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.FLOAT16, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL32, arrow.DECIMAL64, arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return isIndexType(t)
}

// asInts reinterprets int64s as ints without copying where int is 64 bits.
func asInts(v []int64) ([]int, bool) {
	if strconv.IntSize != 64 || len(v) == 0 {
		return nil, false
	}
	return unsafe.Slice((*int)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
}

// asInt64s is the inverse of asInts.
func asInt64s(v []int) ([]int64, bool) {
	if strconv.IntSize != 64 || len(v) == 0 {
		return nil, false
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(unsafe.SliceData(v))), len(v)), true
}

// indexCheck checks the indices of one column as they are converted.
type indexCheck struct {
	file, column string
	extent       int // -1: unknown (the shape comes from the largest index)
	max          int // the largest index seen, -1 before any
}

func (c *indexCheck) bad(s span, i int, x int64) error {
	row := s.row + int64(i-s.lo)
	if x < 0 {
		return tableErrorf(c.file, c.column, row, "index %d is negative", x)
	}
	if c.extent >= 0 {
		return tableErrorf(c.file, c.column, row, "index %d out of range 0..%d (the shape's extent is %d)", x, c.extent-1, c.extent)
	}
	return tableErrorf(c.file, c.column, row, "index %d is too large", x)
}

// limit is the largest index the check allows.
func (c *indexCheck) limit() int64 {
	if c.extent >= 0 {
		return int64(c.extent) - 1
	}
	return math.MaxInt32 * 64 // extents past this cannot be allocated or bound anyway
}

// ints converts the spans of an index column to ints, skipping the rows
// where keep is false (keep nil: every row), and checks every index. A
// single Int64 span with every row kept becomes the result without a copy.
func (c *indexCheck) ints(spans []span, keep []bool) ([]int, error) {
	lim := c.limit()
	if len(spans) == 1 && keep == nil {
		if a, ok := spans[0].arr.(*array.Int64); ok {
			s := spans[0]
			v := a.Int64Values()[s.lo:s.hi]
			for i, x := range v {
				if uint64(x) > uint64(lim) {
					return nil, c.bad(s, s.lo+i, x)
				}
				c.max = max(c.max, int(x))
			}
			if out, ok := asInts(v); ok {
				return out, nil
			}
		}
	}
	n := spansLen(spans)
	if keep != nil {
		n = 0
		for _, k := range keep {
			if k {
				n++
			}
		}
	}
	out := make([]int, 0, n)
	at := 0 // row of keep
	for _, s := range spans {
		for i := s.lo; i < s.hi; i, at = i+1, at+1 {
			if keep != nil && !keep[at] {
				continue
			}
			x, ok, tooBig := integerAt(s.arr, i)
			switch {
			case !ok:
				return nil, tableErrorf(c.file, c.column, -1, "type %s, want integers", s.arr.DataType())
			case tooBig:
				return nil, tableErrorf(c.file, c.column, s.row+int64(i-s.lo), "index %d is too large", s.arr.(*array.Uint64).Value(i))
			}
			if uint64(x) > uint64(lim) {
				return nil, c.bad(s, i, x)
			}
			c.max = max(c.max, int(x))
			out = append(out, int(x))
		}
	}
	return out, nil
}

// floats converts the spans of a value column to float64s, skipping the
// rows where keep is false; a single Float64 span with every row kept
// becomes the result without a copy.
func floats(file, column string, spans []span, keep []bool) ([]float64, error) {
	if len(spans) == 1 && keep == nil {
		if a, ok := spans[0].arr.(*array.Float64); ok {
			return a.Float64Values()[spans[0].lo:spans[0].hi], nil
		}
	}
	out := make([]float64, 0, spansLen(spans))
	at := 0
	for _, s := range spans {
		for i := s.lo; i < s.hi; i, at = i+1, at+1 {
			if keep != nil && !keep[at] {
				continue
			}
			x, ok := floatAt(s.arr, i)
			if !ok {
				return nil, tableErrorf(file, column, -1, "type %s, want numbers", s.arr.DataType())
			}
			out = append(out, x)
		}
	}
	return out, nil
}

// integerAt is the value at row i of an integer column of any width,
// signed or not; ok is false for a column of another type, tooBig true for
// an unsigned 64-bit value past math.MaxInt64.
func integerAt(arr arrow.Array, i int) (x int64, ok, tooBig bool) {
	switch a := arr.(type) {
	case *array.Int64:
		return a.Value(i), true, false
	case *array.Int32:
		return int64(a.Value(i)), true, false
	case *array.Int16:
		return int64(a.Value(i)), true, false
	case *array.Int8:
		return int64(a.Value(i)), true, false
	case *array.Uint64:
		u := a.Value(i)
		return int64(u), true, u > math.MaxInt64
	case *array.Uint32:
		return int64(a.Value(i)), true, false
	case *array.Uint16:
		return int64(a.Value(i)), true, false
	case *array.Uint8:
		return int64(a.Value(i)), true, false
	}
	return 0, false, false
}

// floatAt is the value at row i of a numeric column as a float64: floats
// of any width, decimals at their scale, and integers (integerAt); ok is
// false for a column of another type.
func floatAt(arr arrow.Array, i int) (float64, bool) {
	// kept beside integerAt's like-shaped switch: a type switch takes one case per Arrow type, which a generic cannot range over
	switch a := arr.(type) {
	case *array.Float64:
		return a.Value(i), true
	case *array.Float32:
		return float64(a.Value(i)), true
	case *array.Float16:
		return float64(a.Value(i).Float32()), true
	case *array.Decimal32:
		return a.Value(i).ToFloat64(scaleOf(a)), true
	case *array.Decimal64:
		return a.Value(i).ToFloat64(scaleOf(a)), true
	case *array.Decimal128:
		return a.Value(i).ToFloat64(scaleOf(a)), true
	case *array.Decimal256:
		return a.Value(i).ToFloat64(scaleOf(a)), true
	}
	if x, ok, _ := integerAt(arr, i); ok {
		if u, isU := arr.(*array.Uint64); isU {
			return float64(u.Value(i)), true
		}
		return float64(x), true
	}
	return 0, false
}

func scaleOf(a arrow.Array) int32 {
	if d, ok := a.DataType().(arrow.DecimalType); ok {
		return d.GetScale()
	}
	return 0
}

// nullRows returns, for rows with a null in any of the columns, which rows
// to keep: a row whose columns are all null is a group marker (dropped
// when markers are allowed); any other null is an error naming the first
// null column and row. keep is nil when no column has a null.
func nullRows(file string, names []string, cols [][]span, markers bool) (keep []bool, markersSeen int, err error) {
	any := false
	for _, spans := range cols {
		for _, s := range spans {
			if s.arr.NullN() > 0 {
				any = true
			}
		}
	}
	if !any {
		return nil, 0, nil
	}
	n := spansLen(cols[0])
	nulls := make([]uint16, n)
	firstCol := make([]int, n)
	for c, spans := range cols {
		at := 0
		for _, s := range spans {
			for i := s.lo; i < s.hi; i, at = i+1, at+1 {
				if s.arr.IsNull(i) {
					if nulls[at] == 0 {
						firstCol[at] = c
					}
					nulls[at]++
				}
			}
		}
	}
	keep = make([]bool, n)
	at := 0
	for _, s := range cols[0] {
		for i := s.lo; i < s.hi; i, at = i+1, at+1 {
			switch {
			case nulls[at] == 0:
				keep[at] = true
			case markers && int(nulls[at]) == len(cols):
				markersSeen++
			default:
				msg := "null value"
				if markers {
					msg = "null value (a row of a grouped table may be all null, to mark a group without entries, but not partly null)"
				}
				return nil, 0, tableErrorf(file, names[firstCol[at]], s.row+int64(i-s.lo), "%s", msg)
			}
		}
	}
	return keep, markersSeen, nil
}
