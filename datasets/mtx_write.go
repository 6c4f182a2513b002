package datasets

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// WriteOptions tune WriteMatrixMarket. The zero value writes a real
// general coordinate file without comments.
type WriteOptions struct {
	// Field is "real" (the default when empty), "integer" (every value must
	// be integral) or "pattern" (values are left out).
	Field string
	// Comments are written as '%' lines after the banner, one per element.
	Comments []string
}

// WriteMatrixMarket writes c, a tensor of order 1 or 2, as a general
// coordinate Matrix Market file, entries in c's order. A vector of length
// n is written as an n x 1 matrix. Reals are written in Go's shortest
// round-trip form, so reading the file back gives the same values.
func WriteMatrixMarket(w io.Writer, c *Coords, opts *WriteOptions) error {
	if opts == nil {
		opts = &WriteOptions{}
	}
	field := opts.Field
	if field == "" {
		field = "real"
	}
	switch field {
	case "real", "integer", "pattern":
	default:
		return fmt.Errorf("write matrix market: unknown field %q (want real, integer or pattern)", field)
	}
	var rowIdx, colIdx []int
	var rows, cols int
	switch c.Order() {
	case 1:
		rows, cols = c.Shape[0], 1
		rowIdx = c.Idx[0]
	case 2:
		rows, cols = c.Shape[0], c.Shape[1]
		rowIdx, colIdx = c.Idx[0], c.Idx[1]
	default:
		return fmt.Errorf("write matrix market: order %d tensor (want a vector or a matrix)", c.Order())
	}
	if len(rowIdx) != len(c.Val) || (colIdx != nil && len(colIdx) != len(c.Val)) {
		return fmt.Errorf("write matrix market: index and value counts differ")
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix coordinate %s general\n", field)
	for _, cm := range opts.Comments {
		for _, l := range strings.Split(cm, "\n") {
			fmt.Fprintf(bw, "%%%s\n", l)
		}
	}
	fmt.Fprintf(bw, "%d %d %d\n", rows, cols, len(c.Val))
	buf := make([]byte, 0, 64)
	for e, v := range c.Val {
		r, col := rowIdx[e], 0
		if colIdx != nil {
			col = colIdx[e]
		}
		if r < 0 || r >= rows || col < 0 || col >= cols {
			return fmt.Errorf("write matrix market: entry %d: index (%d, %d) out of range for %d x %d", e, r, col, rows, cols)
		}
		buf = strconv.AppendInt(buf[:0], int64(r)+1, 10)
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(col)+1, 10)
		switch field {
		case "real":
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, v, 'g', -1, 64)
		case "integer":
			if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
				return fmt.Errorf("write matrix market: entry %d: value %v is not an integer", e, v)
			}
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(v), 10)
		}
		buf = append(buf, '\n')
		if _, err := bw.Write(buf); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// SaveMatrixMarket writes c to the file at path with WriteMatrixMarket,
// gzip-compressed when path ends in ".gz". The file is replaced
// atomically: it is written to a temporary file in the same directory and
// renamed into place.
func SaveMatrixMarket(path string, c *Coords, opts *WriteOptions) error {
	return writeFileAtomic(path, func(w io.Writer) error {
		if !strings.HasSuffix(path, ".gz") {
			return WriteMatrixMarket(w, c, opts)
		}
		zw := gzip.NewWriter(w)
		if err := WriteMatrixMarket(zw, c, opts); err != nil {
			return err
		}
		return zw.Close()
	})
}

// writeFileAtomic writes path through a temporary file and a rename.
func writeFileAtomic(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	err = write(f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
	}
	return err
}
