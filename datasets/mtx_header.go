package datasets

import (
	"fmt"
	"strings"
)

// Header is what a Matrix Market file declares before its entries.
type Header struct {
	Format   string   // "coordinate" or "array"
	Field    string   // "real", "integer" or "pattern"
	Symmetry string   // "general", "symmetric" or "skew-symmetric"
	Rows     int      // number of rows
	Cols     int      // number of columns
	Entries  int      // stored entries: the count on the size line, or the values of an array file
	Comments []string // the comment lines between the banner and the size line, without the leading '%'
}

// Limits on what a Matrix Market header may declare. A declared size only
// bounds what is read: storage grows as entries actually arrive.
const (
	// MaxDim is the largest number of rows or columns accepted.
	MaxDim = 1<<31 - 1
	// MaxEntries is the largest number of stored entries a coordinate file may declare.
	MaxEntries = 1 << 40
	// MaxArrayEntries is the largest number of values an array file may declare.
	MaxArrayEntries = 1<<31 - 1
)

// ParseError is a problem with Matrix Market input, at a 1-based line
// (0 when the problem is not on one line).
type ParseError struct {
	File string
	Line int
	Msg  string
}

// Error formats the error as FILE:LINE: message.
func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return e.File + ": " + e.Msg
}

// parseBanner parses the %%MatrixMarket line into h.
func parseBanner(line string, h *Header) string {
	f := strings.Fields(line)
	if len(f) == 0 || !strings.EqualFold(f[0], "%%MatrixMarket") {
		return "missing %%MatrixMarket header"
	}
	if len(f) != 5 {
		return fmt.Sprintf("header: want %%%%MatrixMarket matrix FORMAT FIELD SYMMETRY, got %d words", len(f))
	}
	object, format := strings.ToLower(f[1]), strings.ToLower(f[2])
	field, sym := strings.ToLower(f[3]), strings.ToLower(f[4])
	if object != "matrix" {
		return fmt.Sprintf("unsupported object %q (want matrix)", f[1])
	}
	switch format {
	case "coordinate", "array":
	default:
		return fmt.Sprintf("unknown format %q (want coordinate or array)", f[2])
	}
	switch field {
	case "real", "integer", "pattern":
	case "double":
		field = "real"
	case "complex":
		return "complex matrices are not supported"
	default:
		return fmt.Sprintf("unknown field %q (want real, integer or pattern)", f[3])
	}
	switch sym {
	case "general", "symmetric", "skew-symmetric":
	case "hermitian":
		return "hermitian matrices are not supported"
	default:
		return fmt.Sprintf("unknown symmetry %q (want general, symmetric or skew-symmetric)", f[4])
	}
	if format == "array" && field == "pattern" {
		return "pattern field is not allowed in array format"
	}
	if field == "pattern" && sym == "skew-symmetric" {
		return "pattern field is not allowed with skew-symmetric symmetry"
	}
	h.Format, h.Field, h.Symmetry = format, field, sym
	return ""
}

// checkSize validates the declared dimensions and entry count of h.
func checkSize(h *Header) string {
	if h.Rows > MaxDim {
		return fmt.Sprintf("row count %d exceeds the limit %d", h.Rows, MaxDim)
	}
	if h.Cols > MaxDim {
		return fmt.Sprintf("column count %d exceeds the limit %d", h.Cols, MaxDim)
	}
	if h.Symmetry != "general" && h.Rows != h.Cols {
		return fmt.Sprintf("%s matrix must be square, got %d x %d", h.Symmetry, h.Rows, h.Cols)
	}
	// capacity is the number of positions the file can store.
	r, c := uint64(h.Rows), uint64(h.Cols)
	capacity := r * c
	switch h.Symmetry {
	case "symmetric":
		capacity = r * (r + 1) / 2
	case "skew-symmetric":
		capacity = r * (r - 1) / 2
		if r == 0 {
			capacity = 0
		}
	}
	if h.Format == "array" {
		if capacity > MaxArrayEntries {
			return fmt.Sprintf("%d x %d array is too large (%d values, limit %d)", h.Rows, h.Cols, capacity, MaxArrayEntries)
		}
		h.Entries = int(capacity)
		return ""
	}
	if h.Entries > MaxEntries {
		return fmt.Sprintf("entry count %d exceeds the limit %d", h.Entries, MaxEntries)
	}
	// Duplicate coordinates are summed, so a file may declare more
	// entries than its matrix has positions; only a matrix without any
	// position cannot hold one. (Memory follows the file's size, not the
	// declared count: see initialCap.)
	if capacity == 0 && h.Entries > 0 {
		kind := ""
		if h.Symmetry != "general" {
			kind = h.Symmetry + " "
		}
		return fmt.Sprintf("%d x %d %smatrix cannot hold %d stored entries", h.Rows, h.Cols, kind, h.Entries)
	}
	return ""
}
