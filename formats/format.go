package formats

import (
	"fmt"
	"sort"
	"strings"
)

// Naming of definition inputs
//
// A format's definition (see Definition) reads its container through inputs
// named NAME_suffix, NAME being the tensor's name, following the paper's
// Fig. 10 where it gives names (V_row, V_val, A_len, A_pos, A_idx, A_val):
//
//	NAME_len            the extent of the outermost loop: the first dense
//	                    level's extent (rows of CSR, columns of CSC, length
//	                    of a dense vector) or the entries of a top
//	                    compressed level (COO, DCSR, CSF)
//	NAME_rows, NAME_cols, NAME_tubes (NAME_dimsM for mode M >= 3)
//	                    extents of modes 0, 1, 2 for the other dense levels
//	                    and every level of a dense format of order >= 2
//	                    (the paper's M_rows, M_cols)
//	NAME_row, NAME_col, NAME_tube (NAME_dimM)
//	                    the coordinates of a mode stored by a singleton
//	                    level or by a top compressed level (V_row, COO's
//	                    A_row and A_col, the rows of DCSR)
//	NAME_pos, NAME_idx  pos and idx arrays of a compressed level below the
//	                    top; numbered by level, counting from 1
//	                    (NAME_pos2, NAME_idx2, ...), when the format has
//	                    several compressed levels (DCSR, CSF)
//	NAME_val            the values, one per stored position
//
// Loop variables are i, j, k, l, ... for the coordinates of modes 0, 1, 2,
// 3, ... and p (p1, p2, ... by level when there are several compressed
// levels) for positions; a vector's one position variable is i, as in the
// paper. Ints are bound as sdql.Int, pos and idx arrays as sdql.IntArray and
// values as sdql.RealArray (see Bind). The testdata file
// testdata/definitions lists every built-in format's definition.

// Layout is a format instantiated for one order: a list of levels, outermost
// first, and the mode stored at each level (ModeOrder[k] is the mode of
// level k; CSR is {0, 1}, CSC {1, 0}).
//
// A valid layout has a permutation as its mode order, does not start with a
// singleton level, puts only singleton levels after a non-unique level, and
// gives every singleton level a non-unique parent.
type Layout struct {
	Levels    []Level
	ModeOrder []int
	name      string // the format's name, for messages
}

// Order returns the number of modes (levels) of the layout.
func (l Layout) Order() int { return len(l.Levels) }

// UniqueCoords reports whether the layout promises unique coordinate tuples
// (its last level is unique). FromCoords sums duplicates for such layouts
// and keeps them, in input order, for the others.
func (l Layout) UniqueCoords() bool {
	return len(l.Levels) > 0 && l.Levels[len(l.Levels)-1].IsUnique()
}

// AllDense reports whether every level is dense.
func (l Layout) AllDense() bool {
	for _, lv := range l.Levels {
		if _, ok := lv.(DenseLevel); !ok {
			return false
		}
	}
	return true
}

// AllRows reports whether a tensor of this layout holds every key of its
// first mode, empty rows included (its logical dictionary has as many keys
// as the mode's extent): every level is dense, or the first level is a
// dense level over mode 0 (CSR).
func (l Layout) AllRows() bool {
	if l.AllDense() {
		return true
	}
	if len(l.Levels) == 0 {
		return false
	}
	_, dense := l.Levels[0].(DenseLevel)
	return dense && l.ModeOrder[0] == 0
}

// String describes the layout, e.g. "{dense, compressed} order {0, 1}".
func (l Layout) String() string {
	var b strings.Builder
	b.WriteByte('{')
	for k, lv := range l.Levels {
		if k > 0 {
			b.WriteString(", ")
		}
		b.WriteString(lv.String())
	}
	b.WriteString("} order {")
	for k, m := range l.ModeOrder {
		if k > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, m)
	}
	b.WriteByte('}')
	return b.String()
}

// check reports whether the layout is valid.
func (l Layout) check() error {
	n := len(l.Levels)
	if n == 0 {
		return fmt.Errorf("formats: %s: a layout needs at least one level", l.name)
	}
	if len(l.ModeOrder) != n {
		return fmt.Errorf("formats: %s: %d levels but a mode order of %d modes", l.name, n, len(l.ModeOrder))
	}
	seen := make([]bool, n)
	for _, m := range l.ModeOrder {
		if m < 0 || m >= n || seen[m] {
			return fmt.Errorf("formats: %s: mode order %v is not a permutation of 0..%d", l.name, l.ModeOrder, n-1)
		}
		seen[m] = true
	}
	for k, lv := range l.Levels {
		if lv == nil {
			return fmt.Errorf("formats: %s: level %d is nil", l.name, k)
		}
		_, single := lv.(SingletonLevel)
		switch {
		case single && k == 0:
			return fmt.Errorf("formats: %s: a singleton level cannot be the outermost level", l.name)
		case single && l.Levels[k-1].IsUnique():
			return fmt.Errorf("formats: %s: singleton level %d needs a non-unique parent", l.name, k)
		case !single && k > 0 && !l.Levels[k-1].IsUnique():
			return fmt.Errorf("formats: %s: only singleton levels may follow a non-unique level (level %d is %s)", l.name, k, lv)
		}
	}
	return nil
}

// Format is a storage format: a named family of layouts, one for each order
// the format supports (dense is a dense vector for order 1 and a row-major
// matrix for order 2). The zero Format is invalid. Formats compare equal
// with == when they are the same format value.
type Format struct {
	spec *formatSpec
}

type formatSpec struct {
	name   string
	layout func(order int) (Layout, bool)
}

// Name returns the format's lowercase name, as accepted by ByName.
func (f Format) Name() string {
	if f.spec == nil {
		return ""
	}
	return f.spec.name
}

// String returns the format's name.
func (f Format) String() string {
	if f.spec == nil {
		return "<invalid format>"
	}
	return f.spec.name
}

// Layout returns the format's layout for tensors of the given order, or an
// error when the format has no variant of that order.
func (f Format) Layout(order int) (Layout, error) {
	if f.spec == nil {
		return Layout{}, fmt.Errorf("formats: invalid (zero) format")
	}
	if order < 1 {
		return Layout{}, fmt.Errorf("formats: %s has no variant of order %d", f.spec.name, order)
	}
	l, ok := f.spec.layout(order)
	if !ok {
		return Layout{}, fmt.Errorf("formats: %s has no variant of order %d", f.spec.name, order)
	}
	l.name = f.spec.name
	return l, nil
}

// Supports reports whether the format has a variant of the given order.
func (f Format) Supports(order int) bool {
	_, err := f.Layout(order)
	return err == nil
}

func newFormat(name string, layout func(order int) (Layout, bool)) Format {
	return Format{&formatSpec{name: name, layout: layout}}
}

// Custom returns a format of one order with the given levels and mode
// order, named name, or an error when the layout is not valid.
func Custom(name string, levels []Level, modeOrder []int) (Format, error) {
	l := Layout{Levels: append([]Level(nil), levels...), ModeOrder: append([]int(nil), modeOrder...), name: name}
	if err := l.check(); err != nil {
		return Format{}, err
	}
	return newFormat(name, func(order int) (Layout, bool) {
		if order != len(l.Levels) {
			return Layout{}, false
		}
		return Layout{Levels: l.Levels, ModeOrder: l.ModeOrder}, true
	}), nil
}

func identity(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = i
	}
	return o
}

func reversed(n int) []int {
	o := make([]int, n)
	for i := range o {
		o[i] = n - 1 - i
	}
	return o
}

func repeat(l Level, n int) []Level {
	ls := make([]Level, n)
	for i := range ls {
		ls[i] = l
	}
	return ls
}

// The built-in formats. Each is a family of layouts selected by the order
// of the tensor (vector = order 1, matrix = order 2).
var (
	// Dense stores every position, row-major (last mode fastest): the
	// dense vector, the dense row-major matrix, and so on. Any order.
	Dense = newFormat("dense", func(n int) (Layout, bool) {
		return Layout{Levels: repeat(DenseLevel{}, n), ModeOrder: identity(n)}, n >= 1
	})
	// DenseCol stores every position, column-major (first mode fastest).
	// For a vector it is the dense vector. Any order.
	DenseCol = newFormat("dense_col", func(n int) (Layout, bool) {
		return Layout{Levels: repeat(DenseLevel{}, n), ModeOrder: reversed(n)}, n >= 1
	})
	// COO is the coordinate format: for a vector one unique compressed
	// level (the sparse vector, sorted unique indices); for order n >= 2
	// a non-unique compressed level and n-1 non-unique singleton levels:
	// tuples sorted lexicographically, duplicates allowed (their values
	// add up, as in the definition).
	COO = newFormat("coo", func(n int) (Layout, bool) {
		if n == 1 {
			return Layout{Levels: []Level{CompressedLevel{Unique: true}}, ModeOrder: identity(1)}, true
		}
		ls := append([]Level{CompressedLevel{Unique: false}}, repeat(SingletonLevel{Unique: false}, n-1)...)
		return Layout{Levels: ls, ModeOrder: identity(n)}, n >= 2
	})
	// CSR is compressed sparse rows: {dense, compressed}. Matrices only.
	CSR = newFormat("csr", func(n int) (Layout, bool) {
		return Layout{Levels: []Level{DenseLevel{}, CompressedLevel{Unique: true}}, ModeOrder: identity(2)}, n == 2
	})
	// CSC is compressed sparse columns: CSR with mode order {1, 0}.
	// Matrices only.
	CSC = newFormat("csc", func(n int) (Layout, bool) {
		return Layout{Levels: []Level{DenseLevel{}, CompressedLevel{Unique: true}}, ModeOrder: reversed(2)}, n == 2
	})
	// DCSR is doubly compressed sparse rows: {compressed, compressed},
	// storing only non-empty rows. Matrices only.
	DCSR = newFormat("dcsr", func(n int) (Layout, bool) {
		return Layout{Levels: repeat(CompressedLevel{Unique: true}, 2), ModeOrder: identity(2)}, n == 2
	})
	// CSF is compressed sparse fibers: every level unique compressed. For
	// order 3 it is the usual CSF tensor, for order 2 DCSR, for order 1
	// the sparse vector. Any order.
	CSF = newFormat("csf", func(n int) (Layout, bool) {
		return Layout{Levels: repeat(CompressedLevel{Unique: true}, n), ModeOrder: identity(n)}, n >= 1
	})
)

var builtins = []Format{Dense, DenseCol, COO, CSR, CSC, DCSR, CSF}

// All returns the built-in formats.
func All() []Format { return append([]Format(nil), builtins...) }

// ForOrder returns the built-in formats that have a variant of the order.
func ForOrder(order int) []Format {
	var fs []Format
	for _, f := range builtins {
		if f.Supports(order) {
			fs = append(fs, f)
		}
	}
	return fs
}

// ByName returns the built-in format with the given lowercase name: dense,
// dense_col, coo, csr, csc, dcsr or csf.
func ByName(name string) (Format, error) {
	for _, f := range builtins {
		if f.spec.name == name {
			return f, nil
		}
	}
	names := make([]string, len(builtins))
	for i, f := range builtins {
		names[i] = f.spec.name
	}
	sort.Strings(names)
	return Format{}, fmt.Errorf("formats: unknown format %q (want one of %s)", name, strings.Join(names, ", "))
}
