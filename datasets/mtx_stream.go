package datasets

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// MatrixMarketWriter writes a general coordinate Matrix Market file entry
// by entry, through a buffer, so that a result is written without first
// being copied into coordinates: memory stays that of the buffer. The
// header, written by NewMatrixMarketWriter, gives the entry count, so the
// caller counts first.
type MatrixMarketWriter struct {
	bw         *bufio.Writer
	rows, cols int
	order      int
	field      string
	want, n    int
	buf        []byte
}

// NewMatrixMarketWriter writes the header of a file holding nnz entries of
// a tensor of the given shape (order 1, written as a rows×1 matrix, or 2)
// and returns the writer of its entries. opts as for WriteMatrixMarket.
func NewMatrixMarketWriter(w io.Writer, shape []int, nnz int, opts *WriteOptions) (*MatrixMarketWriter, error) {
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
		return nil, fmt.Errorf("write matrix market: unknown field %q (want real, integer or pattern)", field)
	}
	mw := &MatrixMarketWriter{bw: bufio.NewWriterSize(w, 1<<20), order: len(shape), field: field, want: nnz, buf: make([]byte, 0, 64)}
	switch len(shape) {
	case 1:
		mw.rows, mw.cols = shape[0], 1
	case 2:
		mw.rows, mw.cols = shape[0], shape[1]
	default:
		return nil, fmt.Errorf("write matrix market: order %d tensor (want a vector or a matrix)", len(shape))
	}
	fmt.Fprintf(mw.bw, "%%%%MatrixMarket matrix coordinate %s general\n", field)
	for _, cm := range opts.Comments {
		for _, l := range strings.Split(cm, "\n") {
			fmt.Fprintf(mw.bw, "%%%s\n", l)
		}
	}
	fmt.Fprintf(mw.bw, "%d %d %d\n", mw.rows, mw.cols, nnz)
	return mw, nil
}

// Write writes one entry: its 0-based coordinates (one for a vector, two
// for a matrix) and value.
func (mw *MatrixMarketWriter) Write(idx []int, v float64) error {
	r, c := idx[0], 0
	if mw.order == 2 {
		c = idx[1]
	}
	if r < 0 || r >= mw.rows || c < 0 || c >= mw.cols {
		return fmt.Errorf("write matrix market: entry %d: index (%d, %d) out of range for %d x %d", mw.n, r, c, mw.rows, mw.cols)
	}
	if mw.n == mw.want {
		return fmt.Errorf("write matrix market: more than the %d entries of the header", mw.want)
	}
	buf := strconv.AppendInt(mw.buf[:0], int64(r)+1, 10)
	buf = append(buf, ' ')
	buf = strconv.AppendInt(buf, int64(c)+1, 10)
	switch mw.field {
	case "real":
		buf = append(buf, ' ')
		buf = appendReal(buf, v)
	case "integer":
		if v != math.Trunc(v) || math.Abs(v) > 1<<53 {
			return fmt.Errorf("write matrix market: entry %d: value %v is not an integer", mw.n, v)
		}
		buf = append(buf, ' ')
		buf = strconv.AppendInt(buf, int64(v), 10)
	}
	buf = append(buf, '\n')
	mw.buf = buf
	mw.n++
	_, err := mw.bw.Write(buf)
	return err
}

// Close flushes the buffer; it fails when fewer entries were written than
// the header announced.
func (mw *MatrixMarketWriter) Close() error {
	if mw.n != mw.want {
		return fmt.Errorf("write matrix market: %d entries written, the header announced %d", mw.n, mw.want)
	}
	return mw.bw.Flush()
}

// appendReal appends v in Go's shortest round-trip form, as
// strconv.AppendFloat(buf, v, 'g', -1, 64) does, taking a fast path for
// the integers it prints without an exponent (|v| < 1e6).
func appendReal(buf []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e6 && !(v == 0 && math.Signbit(v)) {
		return strconv.AppendInt(buf, int64(v), 10)
	}
	return strconv.AppendFloat(buf, v, 'g', -1, 64)
}
