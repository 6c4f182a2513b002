package sdql

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Value is a run-time value of the reference interpreter: Real, Int, Bool,
// *Dict (a semi-ring dictionary with int keys), or one of the physical arrays
// IntArray, RealArray and Range (dictionaries with dense int keys).
type Value interface {
	isValue()
}

// Real is a value of type real.
type Real float64

// Int is a value of type int.
type Int int

// Bool is a value of type bool.
type Bool bool

// IntArray is a physical array of ints, a {dense_int -> int} dictionary
// whose keys are 0..len-1. It is bound to a format's slices without copying.
type IntArray []int

// RealArray is a physical array of reals, a {dense_int -> real} dictionary
// whose keys are 0..len-1.
type RealArray []float64

// Range is the value of (Lo:Hi): the dense array of the ints Lo..Hi-1.
// Iterating it binds each int as both key and value.
type Range struct{ Lo, Hi int }

// SubArray is the value of arr(Lo:Hi): the positions Lo..Hi-1 of an array,
// keyed by their position in the whole array.
type SubArray struct {
	Arr    Value // IntArray or RealArray
	Lo, Hi int
}

func (Real) isValue()      {}
func (Int) isValue()       {}
func (Bool) isValue()      {}
func (*Dict) isValue()     {}
func (IntArray) isValue()  {}
func (RealArray) isValue() {}
func (Range) isValue()     {}
func (SubArray) isValue()  {}

// Dict is a semi-ring dictionary with int keys. It keeps every key it was
// built with, also where the value is zero (a tensor's stored positions), in
// insertion order; Keys returns them sorted.
type Dict struct {
	keys  []int
	vals  []Value
	index map[int]int // key -> position; nil while the dictionary is small
}

const dictIndexThreshold = 8

// NewDict returns an empty dictionary.
func NewDict() *Dict { return &Dict{} }

// Len returns the number of stored keys.
func (d *Dict) Len() int {
	if d == nil {
		return 0
	}
	return len(d.keys)
}

func (d *Dict) find(k int) int {
	if d.index != nil {
		if i, ok := d.index[k]; ok {
			return i
		}
		return -1
	}
	for i, kk := range d.keys {
		if kk == k {
			return i
		}
	}
	return -1
}

// Get returns the value stored at k.
func (d *Dict) Get(k int) (Value, bool) {
	if d == nil {
		return nil, false
	}
	if i := d.find(k); i >= 0 {
		return d.vals[i], true
	}
	return nil, false
}

// Set stores v at k, replacing any previous value.
func (d *Dict) Set(k int, v Value) {
	if i := d.find(k); i >= 0 {
		d.vals[i] = v
		return
	}
	d.keys = append(d.keys, k)
	d.vals = append(d.vals, v)
	if d.index != nil {
		d.index[k] = len(d.keys) - 1
	} else if len(d.keys) > dictIndexThreshold {
		d.index = make(map[int]int, 2*len(d.keys))
		for i, kk := range d.keys {
			d.index[kk] = i
		}
	}
}

// Keys returns the stored keys in ascending order.
func (d *Dict) Keys() []int {
	if d == nil {
		return nil
	}
	ks := append([]int(nil), d.keys...)
	sort.Ints(ks)
	return ks
}

// Range calls f for every entry in insertion order until f returns false.
func (d *Dict) Range(f func(k int, v Value) bool) {
	if d == nil {
		return
	}
	for i, k := range d.keys {
		if !f(k, d.vals[i]) {
			return
		}
	}
}

// FormatValue prints v as a canonical SDQL literal: keys ascending, nested
// for higher orders, reals in Go's shortest round-trip form.
func FormatValue(v Value) string {
	var b strings.Builder
	writeValue(&b, v)
	return b.String()
}

// FormatReal prints a real in Go's shortest round-trip form.
func FormatReal(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// AppendReal appends FormatReal(f) to b, without allocating.
func AppendReal(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, "nan"...)
	case math.IsInf(f, 1):
		return append(b, "inf"...)
	case math.IsInf(f, -1):
		return append(b, "-inf"...)
	}
	return strconv.AppendFloat(b, f, 'g', -1, 64)
}

func writeValue(b *strings.Builder, v Value) {
	switch v := v.(type) {
	case nil:
		b.WriteString("0")
	case Real:
		b.WriteString(FormatReal(float64(v)))
	case Int:
		b.WriteString(strconv.Itoa(int(v)))
	case Bool:
		b.WriteString(strconv.FormatBool(bool(v)))
	case *Dict:
		b.WriteByte('{')
		for i, k := range v.Keys() {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(k))
			b.WriteString(" -> ")
			x, _ := v.Get(k)
			writeValue(b, x)
		}
		b.WriteByte('}')
	default:
		n, key, at := arrayView(v)
		b.WriteByte('{')
		for i := 0; i < n; i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Itoa(key(i)))
			b.WriteString(" -> ")
			writeValue(b, at(i))
		}
		b.WriteByte('}')
	}
}

// arrayView gives the physical arrays a uniform view: n entries, the key of
// the i-th, and the value of the i-th.
func arrayView(v Value) (n int, key func(int) int, at func(int) Value) {
	switch v := v.(type) {
	case IntArray:
		return len(v), func(i int) int { return i }, func(i int) Value { return Int(v[i]) }
	case RealArray:
		return len(v), func(i int) int { return i }, func(i int) Value { return Real(v[i]) }
	case Range:
		n := v.Hi - v.Lo
		if n < 0 {
			n = 0
		}
		return n, func(i int) int { return v.Lo + i }, func(i int) Value { return Int(v.Lo + i) }
	case SubArray:
		n := v.Hi - v.Lo
		if n < 0 {
			n = 0
		}
		_, _, at := arrayView(v.Arr)
		return n, func(i int) int { return v.Lo + i }, func(i int) Value { return at(v.Lo + i) }
	}
	panic(fmt.Sprintf("internal error: arrayView of %T", v))
}

// Entries calls f for every stored entry of a dictionary-like value (a *Dict
// or a physical array) in iteration order, until f returns false. It reports
// whether v is dictionary-like.
func Entries(v Value, f func(k int, x Value) bool) bool {
	switch v := v.(type) {
	case *Dict:
		v.Range(f)
		return true
	case IntArray, RealArray, Range, SubArray:
		n, key, at := arrayView(v)
		for i := 0; i < n; i++ {
			if !f(key(i), at(i)) {
				break
			}
		}
		return true
	}
	return false
}

// Lookup returns the value of a dictionary-like value at k, and whether k is
// stored there.
func Lookup(v Value, k int) (Value, bool) {
	switch v := v.(type) {
	case *Dict:
		return v.Get(k)
	case IntArray:
		if k >= 0 && k < len(v) {
			return Int(v[k]), true
		}
	case RealArray:
		if k >= 0 && k < len(v) {
			return Real(v[k]), true
		}
	case Range:
		if k >= v.Lo && k < v.Hi {
			return Int(k), true
		}
	case SubArray:
		if k >= v.Lo && k < v.Hi {
			return Lookup(v.Arr, k)
		}
	}
	return nil, false
}

// IsZero reports whether v is a zero of its semi-ring: 0, false, or a
// dictionary all of whose values are zero.
func IsZero(v Value) bool {
	switch v := v.(type) {
	case nil:
		return true
	case Real:
		return v == 0
	case Int:
		return v == 0
	case Bool:
		return !bool(v)
	}
	zero := true
	Entries(v, func(_ int, x Value) bool {
		if !IsZero(x) {
			zero = false
		}
		return zero
	})
	return zero
}

// Equal reports whether a and b agree as functions: a missing key equals
// zero, so {1 -> 0.0} equals {}. Reals are compared with a relative
// tolerance of 1e-9.
func Equal(a, b Value) bool { return ApproxEqual(a, b, 1e-9) }

// ApproxEqual is Equal with a given relative tolerance for reals
// (|x-y| <= tol*max(1,|x|,|y|)).
func ApproxEqual(a, b Value, tol float64) bool {
	as, aScalar := scalarOf(a)
	bs, bScalar := scalarOf(b)
	switch {
	case aScalar && bScalar:
		if math.IsNaN(as) || math.IsNaN(bs) {
			return math.IsNaN(as) && math.IsNaN(bs)
		}
		if math.IsInf(as, 0) || math.IsInf(bs, 0) {
			return as == bs
		}
		return math.Abs(as-bs) <= tol*math.Max(1, math.Max(math.Abs(as), math.Abs(bs)))
	case aScalar:
		return as == 0 && IsZero(b)
	case bScalar:
		return bs == 0 && IsZero(a)
	}
	ok := true
	Entries(a, func(k int, x Value) bool {
		y, _ := Lookup(b, k)
		ok = ApproxEqual(x, y, tol)
		return ok
	})
	if !ok {
		return false
	}
	Entries(b, func(k int, y Value) bool {
		if _, found := Lookup(a, k); !found {
			ok = IsZero(y)
		}
		return ok
	})
	return ok
}

// scalarOf returns v as a float64 when v is a scalar (nil counts as 0).
func scalarOf(v Value) (float64, bool) {
	switch v := v.(type) {
	case nil:
		return 0, true
	case Real:
		return float64(v), true
	case Int:
		return float64(v), true
	case Bool:
		if v {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}

// FormatBytes prints a size in bytes with binary units, for messages:
// "512 B", "1.5 KiB", "19.2 GiB", "7.3 TiB".
func FormatBytes(b float64) string {
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for b >= 1024 && i < len(units)-1 {
		b /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%.0f B", b)
	}
	return fmt.Sprintf("%.1f %s", b, units[i])
}

// Number is the number a scalar value holds: a real or an int as it is,
// true as 1 and false as 0; 0 for anything else. The back ends store
// every scalar as a float64 this way.
func Number(v Value) float64 {
	switch x := v.(type) {
	case Real:
		return float64(x)
	case Int:
		return float64(x)
	case Bool:
		if x {
			return 1
		}
	}
	return 0
}
