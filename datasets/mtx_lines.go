package datasets

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
)

const (
	readBufSize = 1 << 20 // bytes read from the source at a time
	maxLineLen  = 1 << 20 // longest line accepted
)

// lineReader splits its source into lines over one large buffer, without
// copying or allocating per line.
type lineReader struct {
	src      io.Reader
	gz       bool // the source is a gzip stream (for error messages)
	buf      []byte
	pos, end int
	eof      bool
	line     int   // number of the line last returned
	err      error // a read error other than io.EOF
}

func newLineReader(src io.Reader, gz bool) *lineReader {
	return &lineReader{src: src, gz: gz, buf: make([]byte, readBufSize)}
}

// next returns the next line without its line ending, or ok=false at the
// end of the input or on a read error (then lr.err is set). The line is
// valid until the next call.
func (lr *lineReader) next() (line []byte, ok bool) {
	for {
		if i := bytes.IndexByte(lr.buf[lr.pos:lr.end], '\n'); i >= 0 {
			line = lr.buf[lr.pos : lr.pos+i]
			lr.pos += i + 1
			lr.line++
			if n := len(line); n > 0 && line[n-1] == '\r' {
				line = line[:n-1]
			}
			return line, true
		}
		if lr.eof {
			if lr.pos < lr.end && lr.err == nil {
				line = lr.buf[lr.pos:lr.end]
				lr.pos = lr.end
				lr.line++
				if n := len(line); n > 0 && line[n-1] == '\r' {
					line = line[:n-1]
				}
				return line, true
			}
			return nil, false
		}
		lr.fill()
	}
}

// fill reads more input after the unread bytes.
func (lr *lineReader) fill() {
	if lr.pos > 0 {
		lr.end = copy(lr.buf, lr.buf[lr.pos:lr.end])
		lr.pos = 0
	}
	if lr.end == len(lr.buf) {
		if len(lr.buf) >= maxLineLen+1 {
			lr.err = fmt.Errorf("line longer than %d bytes", maxLineLen)
			lr.eof = true
			lr.pos, lr.end = 0, 0
			return
		}
		nb := make([]byte, 2*len(lr.buf))
		copy(nb, lr.buf[:lr.end])
		lr.buf = nb
	}
	for tries := 0; tries < 100; tries++ {
		n, err := lr.src.Read(lr.buf[lr.end:])
		lr.end += n
		if err != nil {
			lr.eof = true
			if err != io.EOF {
				lr.err = lr.readError(err)
			}
			return
		}
		if n > 0 {
			return
		}
	}
	lr.eof = true
	lr.err = io.ErrNoProgress
}

// readError words a read error of the source.
func (lr *lineReader) readError(err error) error {
	if lr.gz {
		switch {
		case errors.Is(err, io.ErrUnexpectedEOF):
			return errors.New("truncated gzip data: unexpected end of input")
		case errors.Is(err, gzip.ErrChecksum):
			return errors.New("corrupt gzip data: checksum mismatch")
		case errors.Is(err, gzip.ErrHeader):
			return errors.New("corrupt gzip data: invalid header")
		}
		return fmt.Errorf("corrupt gzip data: %v", err)
	}
	return err
}
