package datasets

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// ReadMatrixMarket reads a Matrix Market matrix from r; name is the input's
// name in error messages. The input may be gzip-compressed: it is recognised
// by its magic bytes, whatever its name.
//
// Formats coordinate and array, fields real, integer and pattern (values 1)
// and symmetries general, symmetric and skew-symmetric are read; complex and
// hermitian matrices are refused. A symmetric file's off-diagonal entries
// are stored twice, at (i, j) and (j, i), the mirror negated for
// skew-symmetric files. Explicit zeros are kept as stored entries;
// duplicate coordinates are passed through as they are.
//
// The result always has shape [rows, cols], also for a file with one column:
// callers that want a vector (the CLI does) drop the second mode.
// Errors are *ParseError values naming the input and the line.
func ReadMatrixMarket(r io.Reader, name string) (*Coords, *Header, error) {
	return readMatrixMarket(r, name, inputSize(r))
}

// LoadMatrixMarket reads the Matrix Market file at path (.mtx or .mtx.gz).
// The coordinates are the file's: a one-column file is an n×1 matrix
// here, while nablasd.Load and the command line bind it as a vector.
func LoadMatrixMarket(path string) (*Coords, *Header, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return readMatrixMarket(f, filepath.Base(path), inputSize(f))
}

// inputSize returns the number of bytes r holds, or -1 if unknown.
func inputSize(r io.Reader) int64 {
	switch r := r.(type) {
	case interface{ Len() int }:
		return int64(r.Len())
	case *os.File:
		if st, err := r.Stat(); err == nil && st.Mode().IsRegular() {
			return st.Size()
		}
	}
	return -1
}

// mmParser holds the state of one read.
type mmParser struct {
	name string
	lr   *lineReader
	h    Header
}

func (p *mmParser) errorf(line int, format string, args ...any) error {
	return &ParseError{File: p.name, Line: line, Msg: fmt.Sprintf(format, args...)}
}

// readErr turns the line reader's read error, if any, into a positioned error.
func (p *mmParser) readErr() error {
	if p.lr.err == nil {
		return nil
	}
	return p.errorf(p.lr.line+1, "%v", p.lr.err)
}

func readMatrixMarket(r io.Reader, name string, size int64) (*Coords, *Header, error) {
	return readMatrixMarketHashed(r, name, size, nil)
}

// readMatrixMarketHashed reads like ReadMatrixMarket and, if h is not nil,
// writes the Matrix Market text (decompressed) to h as it is read.
func readMatrixMarketHashed(r io.Reader, name string, size int64, h io.Writer) (*Coords, *Header, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var src io.Reader = br
	gz := false
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, &ParseError{File: name, Msg: "corrupt gzip data: " + strings.TrimPrefix(err.Error(), "gzip: ")}
		}
		src, gz, size = zr, true, -1
	}
	if h != nil {
		src = io.TeeReader(src, h)
	}
	p := &mmParser{name: name, lr: newLineReader(src, gz)}
	if err := p.readHeader(); err != nil {
		return nil, nil, err
	}
	var c *Coords
	var err error
	if p.h.Format == "array" {
		c, err = p.readArray(size)
	} else {
		c, err = p.readCoordinate(size)
	}
	if err != nil {
		return nil, nil, err
	}
	return c, &p.h, nil
}

// readHeader reads the banner, the comments and the size line.
func (p *mmParser) readHeader() error {
	line, ok := p.lr.next()
	if !ok {
		if err := p.readErr(); err != nil {
			return err
		}
		return &ParseError{File: p.name, Msg: "empty input, want a %%MatrixMarket header"}
	}
	if msg := parseBanner(string(line), &p.h); msg != "" {
		if strings.HasSuffix(msg, "are not supported") {
			return &ParseError{File: p.name, Msg: msg}
		}
		return p.errorf(1, "%s", msg)
	}
	for {
		line, ok = p.lr.next()
		if !ok {
			if err := p.readErr(); err != nil {
				return err
			}
			return p.errorf(p.lr.line+1, "unexpected end of input, want the size line")
		}
		t := trimSpace(line)
		if len(t) == 0 {
			continue
		}
		if t[0] == '%' {
			p.h.Comments = append(p.h.Comments, string(line[1:]))
			continue
		}
		return p.parseSizeLine(string(t))
	}
}

func (p *mmParser) parseSizeLine(s string) error {
	f := strings.Fields(s)
	want, what := 3, "rows columns entries"
	if p.h.Format == "array" {
		want, what = 2, "rows columns"
	}
	if len(f) != want {
		return p.errorf(p.lr.line, "size line: want %q, got %q", what, s)
	}
	names := []string{"row count", "column count", "entry count"}
	var v [3]int
	for k := range f {
		n, err := strconv.ParseInt(f[k], 10, 64)
		if err != nil && !strings.HasPrefix(f[k], "-") {
			if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
				return p.errorf(p.lr.line, "%s %s is too large", names[k], f[k])
			}
		}
		if err != nil {
			return p.errorf(p.lr.line, "invalid %s %q", names[k], f[k])
		}
		if n < 0 {
			return p.errorf(p.lr.line, "negative %s %d", names[k], n)
		}
		if n > MaxEntries {
			return p.errorf(p.lr.line, "%s %d is too large", names[k], n)
		}
		v[k] = int(n)
	}
	p.h.Rows, p.h.Cols, p.h.Entries = v[0], v[1], v[2]
	if msg := checkSize(&p.h); msg != "" {
		return p.errorf(p.lr.line, "%s", msg)
	}
	return nil
}

// initialCap is the capacity to reserve for want entries: never more than
// the input can hold at minLine bytes an entry, nor more than a modest
// amount when the input's size is unknown.
func initialCap(want int, size int64, minLine int) int {
	limit := int64(1 << 16)
	if size >= 0 {
		limit = size/int64(minLine) + 1
	}
	if int64(want) > limit {
		return int(limit)
	}
	return want
}

func trimSpace(b []byte) []byte {
	i, j := 0, len(b)
	for i < j && (b[i] == ' ' || b[i] == '\t') {
		i++
	}
	for j > i && (b[j-1] == ' ' || b[j-1] == '\t') {
		j--
	}
	return b[i:j]
}

func skipBlanks(b []byte, k int) int {
	for k < len(b) && (b[k] == ' ' || b[k] == '\t') {
		k++
	}
	return k
}
