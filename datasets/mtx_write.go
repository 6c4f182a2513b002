package datasets

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
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
	var rowIdx, colIdx []int
	switch c.Order() {
	case 1:
		rowIdx = c.Idx[0]
	case 2:
		rowIdx, colIdx = c.Idx[0], c.Idx[1]
	default:
		return fmt.Errorf("write matrix market: order %d tensor (want a vector or a matrix)", c.Order())
	}
	if len(rowIdx) != len(c.Val) || (colIdx != nil && len(colIdx) != len(c.Val)) {
		return fmt.Errorf("write matrix market: index and value counts differ")
	}
	mw, err := NewMatrixMarketWriter(w, c.Shape, len(c.Val), opts)
	if err != nil {
		return err
	}
	idx := make([]int, c.Order())
	for e, v := range c.Val {
		idx[0] = rowIdx[e]
		if colIdx != nil {
			idx[1] = colIdx[e]
		}
		if err := mw.Write(idx, v); err != nil {
			return err
		}
	}
	return mw.Close()
}

// SaveMatrixMarket writes c to the file at path with WriteMatrixMarket,
// gzip-compressed when path ends in ".gz". The file is replaced
// atomically (WriteFileAtomic).
func SaveMatrixMarket(path string, c *Coords, opts *WriteOptions) error {
	return WriteFileAtomic(path, func(w io.Writer) error {
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

// WriteFileAtomic writes the file at path with write, atomically: to a
// temporary file in the same directory, synced and renamed into place, so
// that a reader never sees half a file and a failed write leaves the old
// one. The file is created with mode 0644 under the process's umask, like
// a file written by os.WriteFile(path, data, 0o644).
func WriteFileAtomic(path string, write func(io.Writer) error) error {
	f, tmp, err := createTemp(path)
	if err != nil {
		return err
	}
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

// createTemp creates a new file beside path, named after it, with mode
// 0644 under the umask (os.CreateTemp's files are 0600 whatever the
// umask).
func createTemp(path string) (*os.File, string, error) {
	dir, base := filepath.Dir(path), filepath.Base(path)
	for try := 0; ; try++ {
		tmp := filepath.Join(dir, fmt.Sprintf(".%s.%d.%d.tmp", base, os.Getpid(), rand.Uint32()))
		f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
		if os.IsExist(err) && try < 100 {
			continue
		}
		return f, tmp, err
	}
}

// WriteMatrixMarketArray writes a dense vector or matrix of the given
// shape (order 1, written as rows×1, or 2) as a general real array
// Matrix Market file: the value at (i, j), at(i, j) (j 0 for a vector),
// column by column as the format orders them, in Go's shortest
// round-trip form. A file written so reads back as a dense tensor.
func WriteMatrixMarketArray(w io.Writer, shape []int, at func(i, j int) float64, opts *WriteOptions) error {
	rows, cols := 0, 1
	switch len(shape) {
	case 1:
		rows = shape[0]
	case 2:
		rows, cols = shape[0], shape[1]
	default:
		return fmt.Errorf("write matrix market: order %d tensor (want a vector or a matrix)", len(shape))
	}
	if opts != nil && opts.Field != "" && opts.Field != "real" {
		return fmt.Errorf("write matrix market: an array file of field %q: only real is written", opts.Field)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	fmt.Fprintf(bw, "%%%%MatrixMarket matrix array real general\n")
	if opts != nil {
		for _, cm := range opts.Comments {
			for _, l := range strings.Split(cm, "\n") {
				fmt.Fprintf(bw, "%%%s\n", l)
			}
		}
	}
	fmt.Fprintf(bw, "%d %d\n", rows, cols)
	buf := make([]byte, 0, 32)
	for j := 0; j < cols; j++ {
		for i := 0; i < rows; i++ {
			buf = append(appendReal(buf[:0], at(i, j)), '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}
