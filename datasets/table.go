package datasets

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/formats"
)

// The table convention (doc/formats.md): a tensor is a table with one
// integer column per mode, i0, i1, … (aliases row and col for a matrix, i
// for a vector), and one value column, val. One row is one stored entry;
// coordinates stored twice are summed, as for Matrix Market. A table with
// a val column and no coordinate columns is a scalar (one row). The shape
// comes from the schema metadata nablasd.shape ("5300,5300"), else from
// TableOptions.Shape, else it is one past the largest index of each mode.
//
// A grouped table also has a key column: each key's rows are one tensor.
// In a grouped table a row whose coordinates and value are all null marks
// a group without entries (so that the group exists); every other null is
// an error.

// Schema metadata keys nablasd reads and writes.
const (
	// MetaShape is the tensor's shape, extents separated by commas
	// ("5300,5300"; "" for a scalar).
	MetaShape = "nablasd.shape"
	// MetaFormat is the storage format the tensor was written from; it is
	// the default format when the table is read back.
	MetaFormat = "nablasd.format"
	// MetaProgram is the text of the program that computed the table.
	MetaProgram = "nablasd.program"
	// MetaKey names the key column of a grouped table written by nablasd.
	MetaKey = "nablasd.key"
)

// TableKind is the file format of a table.
type TableKind int

// The table file formats, by extension.
const (
	Parquet     TableKind = iota + 1 // .parquet
	ArrowFile                        // .arrow, the Arrow IPC file format (random access, footer)
	ArrowStream                      // .arrows, the Arrow IPC stream format
)

func (k TableKind) String() string {
	switch k {
	case Parquet:
		return "Parquet file"
	case ArrowFile:
		return "Arrow IPC file"
	case ArrowStream:
		return "Arrow IPC stream"
	}
	return "unknown table kind"
}

// TableKindOf returns the table format of a file name by its extension
// (.parquet, .arrow, .arrows, in any case); ok is false for other names.
func TableKindOf(path string) (kind TableKind, ok bool) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet":
		return Parquet, true
	case ".arrow":
		return ArrowFile, true
	case ".arrows":
		return ArrowStream, true
	}
	return 0, false
}

// TableOptions say how a table holds a tensor when it departs from the
// convention: the names of its coordinate and value columns, and its
// shape.
type TableOptions struct {
	// Index names the coordinate columns in mode order; nil means the
	// convention's names, found in the schema.
	Index []string
	// Val names the value column; "" means "val".
	Val string
	// Shape is the tensor's extents; nil means the schema metadata's, else
	// one past the largest index of each mode.
	Shape []int
}

// ParseTableOptions parses the options written after a table's format in
// a binding, e.g. "row=src,col=dst,val=w,shape=1000x1000": i= for a
// vector's column, row= and col= for a matrix's, i0=, i1=, … for any
// order, val= for the value column and shape= for the extents (AxBxC).
func ParseTableOptions(s string) (TableOptions, error) {
	var o TableOptions
	named := map[string]string{}
	var kinds []string
	for _, kv := range strings.Split(s, ",") {
		if kv == "" {
			continue
		}
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return o, fmt.Errorf("table option %q: want NAME=VALUE", kv)
		}
		if _, dup := named[k]; dup || (k == "shape" && o.Shape != nil) {
			return o, fmt.Errorf("table option %s is given twice", k)
		}
		switch {
		case k == "val":
			o.Val = v
		case k == "shape":
			shape, err := parseExtents(v, "x")
			if err != nil {
				return o, fmt.Errorf("table option shape=%s: %v", v, err)
			}
			o.Shape = shape
			continue
		case k == "i" || k == "row" || k == "col":
			kinds = append(kinds, k)
		case isModeName(k):
			kinds = append(kinds, "iN")
		default:
			return o, fmt.Errorf("unknown table option %q (want i, row, col, i0, i1, …, val or shape)", k)
		}
		named[k] = v
	}
	delete(named, "val")
	kinds = slices.Compact(slices.Sorted(slices.Values(kinds)))
	switch {
	case len(named) == 0:
	case slices.Equal(kinds, []string{"i"}):
		o.Index = []string{named["i"]}
	case slices.Equal(kinds, []string{"col", "row"}) || slices.Equal(kinds, []string{"row"}) || slices.Equal(kinds, []string{"col"}):
		if named["row"] == "" || named["col"] == "" {
			return o, fmt.Errorf("table options row= and col= go together (a matrix has both)")
		}
		o.Index = []string{named["row"], named["col"]}
	case slices.Equal(kinds, []string{"iN"}):
		for m := 0; m < len(named); m++ {
			c, ok := named["i"+strconv.Itoa(m)]
			if !ok {
				return o, fmt.Errorf("table options i0=, i1=, …: i%d= is missing (%d modes given)", m, len(named))
			}
			o.Index = append(o.Index, c)
		}
	default:
		return o, fmt.Errorf("table options mix %s: name a vector's column with i=, a matrix's with row= and col=, any order's with i0=, i1=, …",
			strings.Join(kinds, " and "))
	}
	if o.Shape != nil && o.Index != nil && len(o.Shape) != len(o.Index) {
		return o, fmt.Errorf("table options give %d coordinate columns but a shape of %d modes", len(o.Index), len(o.Shape))
	}
	return o, nil
}

// String writes the options back in ParseTableOptions' syntax.
func (o TableOptions) String() string {
	var parts []string
	switch len(o.Index) {
	case 0:
	case 1:
		parts = append(parts, "i="+o.Index[0])
	case 2:
		parts = append(parts, "row="+o.Index[0], "col="+o.Index[1])
	default:
		for m, c := range o.Index {
			parts = append(parts, fmt.Sprintf("i%d=%s", m, c))
		}
	}
	if o.Val != "" {
		parts = append(parts, "val="+o.Val)
	}
	if o.Shape != nil {
		parts = append(parts, "shape="+formatExtents(o.Shape, "x"))
	}
	return strings.Join(parts, ",")
}

func isModeName(s string) bool {
	if len(s) < 2 || s[0] != 'i' || (s[1] == '0' && len(s) > 2) {
		return false
	}
	_, err := strconv.ParseUint(s[1:], 10, 16)
	return err == nil
}

// parseExtents parses extents separated by sep ("1000x1000", "5300,5300");
// "" is the empty shape of a scalar.
func parseExtents(s, sep string) ([]int, error) {
	if s == "" {
		return []int{}, nil
	}
	var shape []int
	for _, p := range strings.Split(s, sep) {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 {
			return nil, fmt.Errorf("extent %q is not a non-negative integer", p)
		}
		shape = append(shape, n)
	}
	return shape, nil
}

func formatExtents(shape []int, sep string) string {
	parts := make([]string, len(shape))
	for m, n := range shape {
		parts[m] = strconv.Itoa(n)
	}
	return strings.Join(parts, sep)
}

// DefaultFormat is the format a tensor read from a table is stored in when
// the binding names none: the table's nablasd.format metadata when it
// names a format of the order, else COO for vectors, CSR for matrices and
// CSF for higher orders.
func DefaultFormat(order int, meta map[string]string) formats.Format {
	if f, err := formats.ByName(meta[MetaFormat]); err == nil && f.Supports(order) {
		return f
	}
	switch order {
	case 1:
		return formats.COO
	case 2:
		return formats.CSR
	}
	return formats.CSF
}

// TableError is bad data in a table: the file, and where known the column
// and the row (counted from 0, as Arrow and DuckDB's file_row_number do).
type TableError struct {
	File   string
	Column string // "" when the error is not about one column
	Row    int64  // -1 when the error is not about one row
	Msg    string
}

// Error formats the error as FILE: column C, row R: message.
func (e *TableError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	b.WriteString(": ")
	if e.Column != "" {
		b.WriteString("column ")
		b.WriteString(e.Column)
		if e.Row >= 0 {
			fmt.Fprintf(&b, ", row %d", e.Row)
		}
		b.WriteString(": ")
	} else if e.Row >= 0 {
		fmt.Fprintf(&b, "row %d: ", e.Row)
	}
	b.WriteString(e.Msg)
	return b.String()
}

func tableErrorf(file, column string, row int64, format string, args ...any) *TableError {
	return &TableError{File: file, Column: column, Row: row, Msg: fmt.Sprintf(format, args...)}
}

// TableColumns returns the names of a table file's columns.
func TableColumns(path string) ([]string, error) {
	t, err := openTable(path)
	if err != nil {
		return nil, err
	}
	defer t.close()
	return names(t.schema), nil
}
