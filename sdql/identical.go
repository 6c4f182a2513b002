package sdql

import (
	"fmt"
	"math"
	"strings"
)

// Identical reports whether a and b are equal as dictionaries: the same
// keys at every level (a key whose value is zero or {} counts, unlike in
// Equal) and equal scalars, reals compared with Equal's relative tolerance
// of 1e-9. Scalars of different semi-rings compare by value (the int 2
// equals the real 2). It is how every executor and optimization level of
// one binding must agree (doc/spec.md, "Structure").
func Identical(a, b Value) bool { return DiffDicts(a, b, 1e-9) == "" }

// DiffDicts returns "" when a and b are Identical up to the relative
// tolerance tol, else a description of the first difference, with the
// path of keys where it is ("at [2][0]: 1.5 against 1.25",
// "at [3]: key only in the first").
func DiffDicts(a, b Value, tol float64) string {
	var path []int
	where := func() string {
		var s strings.Builder
		s.WriteString("at ")
		if len(path) == 0 {
			s.WriteString("the top")
		}
		for _, k := range path {
			fmt.Fprintf(&s, "[%d]", k)
		}
		return s.String()
	}
	var diff func(a, b Value) string
	diff = func(a, b Value) string {
		as, aScalar := scalarOf(a)
		bs, bScalar := scalarOf(b)
		switch {
		case a == nil && b == nil:
			return ""
		case aScalar && bScalar && a != nil && b != nil:
			if !closeReals(as, bs, tol) {
				return fmt.Sprintf("%s: %s against %s", where(), FormatValue(a), FormatValue(b))
			}
			return ""
		case aScalar || bScalar:
			return fmt.Sprintf("%s: %s against %s", where(), formatOrNone(a), formatOrNone(b))
		}
		var out string
		Entries(a, func(k int, x Value) bool {
			y, found := Lookup(b, k)
			path = append(path, k)
			if !found {
				out = fmt.Sprintf("%s: key only in the first (%s)", where(), FormatValue(x))
			} else {
				out = diff(x, y)
			}
			path = path[:len(path)-1]
			return out == ""
		})
		if out != "" {
			return out
		}
		Entries(b, func(k int, y Value) bool {
			if _, found := Lookup(a, k); !found {
				path = append(path, k)
				out = fmt.Sprintf("%s: key only in the second (%s)", where(), FormatValue(y))
				path = path[:len(path)-1]
			}
			return out == ""
		})
		return out
	}
	return diff(a, b)
}

func formatOrNone(v Value) string {
	if v == nil {
		return "nothing"
	}
	return FormatValue(v)
}

// closeReals compares two reals as ApproxEqual does.
func closeReals(x, y, tol float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	if math.IsInf(x, 0) || math.IsInf(y, 0) {
		return x == y
	}
	return math.Abs(x-y) <= tol*math.Max(1, math.Max(math.Abs(x), math.Abs(y)))
}
