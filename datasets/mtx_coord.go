package datasets

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
)

// Coordinate entries are read in blocks of whole lines. A body that fits in
// the line reader's first buffer (1 MiB) is parsed on the calling
// goroutine; a larger one is cut into blocks of chunkSize bytes at line
// ends, parsed by up to maxWorkers goroutines into per-block slices and
// appended to the result in file order. Memory is the result plus at most
// 2*workers blocks in flight (each chunkSize of text and its entries), never
// the whole input: gzip and unknown-size inputs are streamed the same way.
const (
	chunkSize  = 1 << 20
	maxWorkers = 8
)

// coordOut holds parsed entries, 0-based.
type coordOut struct {
	I, J []int
	V    []float64
}

// readCoordinate reads the entry lines of a coordinate file.
func (p *mmParser) readCoordinate(size int64) (*Coords, error) {
	h := &p.h
	minLine := 6 // "1 1 1\n"
	if h.Field == "pattern" {
		minLine = 4
	}
	want := h.Entries
	sym := h.Symmetry != "general"
	if sym {
		want *= 2
	}
	n := initialCap(want, size, minLine)
	if sym {
		n = min(want, 2*n)
	}
	out := coordOut{make([]int, 0, n), make([]int, 0, n), make([]float64, 0, n)}

	lr := p.lr
	br := &bodyReader{src: lr.src, lr: lr, eof: lr.eof, err: lr.err}
	br.carry = lr.buf[lr.pos:lr.end]
	buf, text, tailErr, last := br.read(lr.buf)
	line, count := lr.line, 0
	workers := min(runtime.GOMAXPROCS(0), maxWorkers)
	if !last && workers > 1 {
		return p.readCoordinateParallel(br, buf, text, workers, out)
	}
	for {
		lines, c, err := p.parseCoordText(text, line, h.Entries-count, &out)
		if err != nil {
			return nil, err
		}
		line, count = line+lines, count+c
		if tailErr != nil {
			return nil, p.errorf(line+1, "%v", tailErr)
		}
		if last {
			break
		}
		buf, text, tailErr, last = br.read(buf)
	}
	return p.coordResult(out, line, count)
}

func (p *mmParser) coordResult(out coordOut, line, count int) (*Coords, error) {
	if count < p.h.Entries {
		return nil, p.errorf(line, "unexpected end of input after %d of %d entries", count, p.h.Entries)
	}
	return &Coords{Shape: []int{p.h.Rows, p.h.Cols}, Idx: [][]int{out.I, out.J}, Val: out.V}, nil
}

// coordJob is one block of lines parsed by a worker.
type coordJob struct {
	buf     []byte // backing buffer of text
	text    []byte
	tailErr error // a read error after text
	out     coordOut
	lines   int
	count   int
	err     error
	done    chan struct{}
}

func (p *mmParser) readCoordinateParallel(br *bodyReader, buf, text []byte, workers int, out coordOut) (*Coords, error) {
	h := &p.h
	jobs := make(chan *coordJob)
	defer close(jobs)
	for range workers {
		go func() {
			for j := range jobs {
				j.out.I, j.out.J, j.out.V = j.out.I[:0], j.out.J[:0], j.out.V[:0]
				// Line numbers and the entry limit are unknown here: a block
				// with an error or too many entries is parsed again below.
				j.lines, j.count, j.err = p.parseCoordText(j.text, 0, math.MaxInt, &j.out)
				close(j.done)
			}
		}()
	}
	var free, pending []*coordJob
	line, count := p.lr.line, 0
	// collect appends the oldest pending block's entries to out.
	collect := func() error {
		j := pending[0]
		pending = pending[1:]
		<-j.done
		if j.err != nil || j.count > h.Entries-count {
			var scratch coordOut
			_, _, err := p.parseCoordText(j.text, line, h.Entries-count, &scratch)
			return err
		}
		out.I = append(out.I, j.out.I...)
		out.J = append(out.J, j.out.J...)
		out.V = append(out.V, j.out.V...)
		line, count = line+j.lines, count+j.count
		if j.tailErr != nil {
			return p.errorf(line+1, "%v", j.tailErr)
		}
		free = append(free, j)
		return nil
	}
	var tailErr error
	last := false
	j := &coordJob{buf: buf, text: text}
	for {
		j.done = make(chan struct{})
		j.tailErr = tailErr
		jobs <- j
		pending = append(pending, j)
		if last {
			break
		}
		if len(pending) >= 2*workers {
			if err := collect(); err != nil {
				return nil, err
			}
		}
		if k := len(free); k > 0 {
			j = free[k-1]
			free = free[:k-1]
		} else {
			j = &coordJob{buf: make([]byte, chunkSize)}
		}
		j.buf, j.text, tailErr, last = br.read(j.buf)
	}
	for len(pending) > 0 {
		if err := collect(); err != nil {
			return nil, err
		}
	}
	return p.coordResult(out, line, count)
}

// bodyReader cuts its source into blocks of whole lines.
type bodyReader struct {
	src   io.Reader
	lr    *lineReader // for the wording of read errors
	carry []byte      // the start of an incomplete line, read before
	eof   bool
	err   error // a read error, reported after the lines before it
}

// read copies the carried incomplete line to the start of buf and fills
// buf from the source. It returns buf (grown once to hold a line longer than
// it) and text, the whole lines in it: the last one may lack its '\n' only
// at the end of the input. At a read error, or for a line longer than
// maxLineLen, tailErr is the error to report on the line after text. last
// is true when nothing follows.
func (br *bodyReader) read(buf []byte) (nbuf, text []byte, tailErr error, last bool) {
	m := copy(buf, br.carry)
	br.carry = nil
	for {
		for tries := 0; m < len(buf) && !br.eof; {
			k, err := br.src.Read(buf[m:])
			m += k
			if err != nil {
				br.eof = true
				if err != io.EOF {
					br.err = br.lr.readError(err)
				}
			} else if k == 0 {
				if tries++; tries == 100 {
					br.eof, br.err = true, io.ErrNoProgress
				}
			}
		}
		data := buf[:m]
		nl := bytes.LastIndexByte(data, '\n')
		switch {
		case br.eof && br.err == nil:
			return buf, data, nil, true
		case br.eof:
			return buf, data[:nl+1], br.err, true
		case nl >= 0:
			br.carry = data[nl+1:]
			return buf, data[:nl+1], nil, false
		case len(buf) > maxLineLen:
			return buf, nil, fmt.Errorf("line longer than %d bytes", maxLineLen), true
		}
		nb := make([]byte, 2*len(buf))
		copy(nb, data)
		buf = nb
	}
}

// parseCoordText parses the lines of text, appending their entries to out.
// line is the number of the line before text; at most limit entries are
// accepted. It returns the number of lines and of entries (symmetric
// mirrors not counted), or the first error.
func (p *mmParser) parseCoordText(text []byte, line, limit int, out *coordOut) (lines, count int, err error) {
	h := &p.h
	pattern, integer := h.Field == "pattern", h.Field == "integer"
	sym, skew := h.Symmetry != "general", h.Symmetry == "skew-symmetric"
	rows, cols := uint64(h.Rows), uint64(h.Cols)
	I, J, V := out.I, out.J, out.V
	b := text
	n := len(b)
	first := line
	for pos := 0; pos < n; {
		line++
		start := pos
		k := pos
		for k < n && (b[k] == ' ' || b[k] == '\t') {
			k++
		}
		// Fast path: row, column and value, blanks, an optional '\r', '\n'.
		var i, j uint64
		v := 1.0
		ok := false
		d0 := k
		i, k = scanRun(b, k, 0)
		if nd := k - d0; nd > 0 && nd <= 18 && k < n && (b[k] == ' ' || b[k] == '\t') {
			for k < n && (b[k] == ' ' || b[k] == '\t') {
				k++
			}
			d0 = k
			j, k = scanRun(b, k, 0)
			nd = k - d0
			ok = nd > 0 && nd <= 18
		}
		if ok && !pattern {
			ok = k < n && (b[k] == ' ' || b[k] == '\t')
			for k < n && (b[k] == ' ' || b[k] == '\t') {
				k++
			}
			if ok {
				if integer {
					v, k, ok = scanIntValue(b, k)
				} else {
					v, k, ok = scanFloat(b, k)
				}
			}
		}
		if ok {
			for k < n && (b[k] == ' ' || b[k] == '\t') {
				k++
			}
			if k < n && b[k] == '\r' {
				k++
			}
			if k < n {
				ok = b[k] == '\n'
				k++
			}
		}
		if ok && i-1 < rows && j-1 < cols {
			pos = k
		} else {
			// The line as the line reader gives it, with the old rules.
			e := bytes.IndexByte(b[start:], '\n')
			if e < 0 {
				pos = n
			} else {
				pos = start + e + 1
			}
			l := b[start:pos]
			if e >= 0 {
				l = l[:len(l)-1]
			}
			if m := len(l); m > 0 && l[m-1] == '\r' {
				l = l[:m-1]
			}
			k := skipBlanks(l, 0)
			if k == len(l) || l[k] == '%' {
				continue
			}
			if count < limit {
				if i, j, v, err = p.parseEntrySlow(l, line); err != nil {
					out.I, out.J, out.V = I, J, V
					return line - first, count, err
				}
			}
		}
		if count == limit {
			out.I, out.J, out.V = I, J, V
			return line - first, count, p.errorf(line, "more entries than the %d declared", h.Entries)
		}
		count++
		r, c := int(i-1), int(j-1)
		I, J, V = append(I, r), append(J, c), append(V, v)
		if sym && r != c {
			if skew {
				v = -v
			}
			I, J, V = append(I, c), append(J, r), append(V, v)
		} else if skew {
			out.I, out.J, out.V = I, J, V
			return line - first, count, p.errorf(line, "diagonal entry (%d, %d) in a skew-symmetric matrix", i, j)
		}
	}
	out.I, out.J, out.V = I, J, V
	return line - first, count, nil
}

// scanIntValue parses an optionally signed integer of at most 18 digits at
// b[k:] followed by the end of b, a blank, '\r' or '\n'.
func scanIntValue(b []byte, k int) (float64, int, bool) {
	neg := false
	if k < len(b) && (b[k] == '-' || b[k] == '+') {
		neg = b[k] == '-'
		k++
	}
	var x int64
	d0 := k
	for ; k < len(b); k++ {
		d := b[k] - '0'
		if d > 9 {
			break
		}
		x = x*10 + int64(d)
	}
	if nd := k - d0; nd == 0 || nd > 18 {
		return 0, k, false
	}
	if k < len(b) {
		if c := b[k]; c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return 0, k, false
		}
	}
	if neg {
		x = -x
	}
	return float64(x), k, true
}
