package datasets

import (
	"bufio"
	"cmp"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// Unsorted grouped inputs: an external merge sort
//
// Groups streams a table sorted by its key. A table that is not (DuckDB
// writes a GROUP BY's input in any order) is sorted first, in bounded
// memory: its rows are read in file order, converted and checked as a
// sorted table's are (the same messages, with the file's row numbers),
// and gathered into runs of GroupOptions.SortMemory bytes; each run is
// sorted by key, stably, and written to a temporary file as blocks, a
// block a key (the key, its entries' and its marker rows' counts, then
// its entries, row after row). Runs are merged, at most fanIn at a time,
// into longer ones until one merge can hand out the groups: the blocks of
// a key, one from each run, in run order. So a group's entries come in
// file order, as they would from the table sorted stably by its key, and
// its tensor is the one the sorted table gives, to the bit (coordinates
// stored twice are summed in the same order).
//
// The temporary files are removed as soon as they are created (Linux
// keeps an open file's blocks until it is closed), so that nothing is
// left behind, whatever ends the process; where a file cannot be removed
// while open, Groups.Close removes it.

// GroupOptions configure OpenGroupsWith.
type GroupOptions struct {
	// SortMemory is the memory an unsorted input's external sort may
	// take, in bytes, in each of its phases (its runs; its merge's read
	// buffers); 0 means DefaultSortMemory.
	SortMemory int64
	// TempDir is where the sort's runs are kept: "" means os.TempDir()
	// ($TMPDIR, else /tmp).
	TempDir string
	// FirstOnly says only the first group will be read: a table not
	// sorted by the key is not sorted, but read once for the rows of its
	// smallest key (batch_first.go), and Next gives io.EOF after the
	// first group.
	FirstOnly bool
}

// DefaultSortMemory is GroupOptions.SortMemory's default.
const DefaultSortMemory = 16 << 20

// sortProbe, when set (tests), is called when a run's rows are gathered,
// before it is sorted and written: the sort's peak of memory.
var sortProbe func()

// spill is a grouped input sorted into a temporary file: its runs, then
// the merge that hands out its groups.
type spill struct {
	file    string // the input, for messages
	order   int    // coordinate modes
	strKeys bool
	tmp     *os.File
	removed bool // tmp was removed when created
	readBuf int
	fanIn   int
	runs    []span64
	bytes   int64 // written to the temporary files in all
	// the final merge
	h       runHeap
	pending []*runReader // the runs holding the current group's blocks
}

// span64 is a run: bytes off to off+n of the temporary file.
type span64 struct{ off, n int64 }

// runBuffer is a run's rows while they are gathered.
type runBuffer struct {
	keys   []Key
	idx    [][]int
	val    []float64
	marker []bool
}

func (b *runBuffer) len() int { return len(b.keys) }

func (b *runBuffer) reset() {
	b.keys, b.val, b.marker = b.keys[:0], b.val[:0], b.marker[:0]
	for m := range b.idx {
		b.idx[m] = b.idx[m][:0]
	}
}

// spillSort sorts a grouped input by its key into runs in a temporary
// file and merges them until one merge remains.
func spillSort(gi *groupedInput, o *GroupOptions) (_ *spill, err error) {
	c := gi.cols
	mem := int64(DefaultSortMemory)
	dir := ""
	if o != nil {
		if o.SortMemory > 0 {
			mem = o.SortMemory
		}
		dir = o.TempDir
	}
	s := &spill{file: c.file, order: c.order(), strKeys: gi.keyIsString()}
	s.readBuf = int(min(max(mem/64, 4<<10), 64<<10))
	s.fanIn = int(min(max(mem/int64(s.readBuf), 4), 256))
	if s.tmp, s.removed, err = createSpill(dir); err != nil {
		return nil, fmt.Errorf("%s: the sort's temporary file: %v", c.file, err)
	}
	defer func() {
		if err != nil {
			s.close()
		}
	}()
	// a row in the buffer: its key (40 bytes), coordinates, value, marker
	rowBytes := int64(41 + 8*(s.order+1))
	runRows := int(max(mem/rowBytes, 16))
	buf := &runBuffer{idx: make([][]int, s.order)}
	w := bufio.NewWriterSize(s.tmp, s.readBuf)
	var off int64
	flush := func() error {
		if buf.len() == 0 {
			return nil
		}
		if sortProbe != nil {
			sortProbe()
		}
		n, err := s.writeRun(w, buf)
		if err != nil {
			return err
		}
		s.runs = append(s.runs, span64{off, n})
		off += n
		buf.reset()
		return nil
	}
	br, err := gi.t.batches(c.fields(), nil) // file order: the sort is stable
	if err != nil {
		return nil, err
	}
	defer br.close()
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if err := gi.gather(buf, b); err != nil {
			return nil, err
		}
		if buf.len() >= runRows {
			if err := flush(); err != nil {
				return nil, err
			}
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, s.ioErr(err)
	}
	s.bytes = off
	for len(s.runs) > s.fanIn {
		if err := s.mergePass(dir); err != nil {
			return nil, err
		}
	}
	return s, s.startMerge()
}

// createSpill creates a temporary file in dir and removes it at once
// where the system allows (removed).
func createSpill(dir string) (*os.File, bool, error) {
	f, err := os.CreateTemp(dir, "nablasd-sort-*")
	if err != nil {
		return nil, false, err
	}
	return f, os.Remove(f.Name()) == nil, nil
}

func (s *spill) ioErr(err error) error {
	return fmt.Errorf("%s: sorting by the key in a temporary file: %v", s.file, err)
}

// keyIsString reports whether the input's key column holds strings.
func (gi *groupedInput) keyIsString() bool {
	switch gi.t.schema.Field(gi.cols.key).Type.ID() {
	case arrow.STRING, arrow.LARGE_STRING:
		return true
	}
	return false
}

// gather appends a batch's rows (coordinates, value, key columns) to
// the run buffer, converted and checked: a row all null but for its key
// marks its key's group (it has no entry).
func (gi *groupedInput) gather(buf *runBuffer, b batch) error {
	c := gi.cols
	n := int(b.rec.NumRows())
	part := make([][]span, c.order()+1)
	for i := range part {
		part[i] = []span{{arr: b.rec.Column(i), lo: 0, hi: n, row: b.row}}
	}
	keep, _, err := nullRows(c.file, c.names, part, true)
	if err != nil {
		return err
	}
	e, err := c.convert(part, true)
	if err != nil {
		return err
	}
	keys := b.rec.Column(c.order() + 1)
	name := gi.t.schema.Field(c.key).Name
	j := 0
	for r := range n {
		k, ok := keyAt(keys, r)
		if !ok {
			if keys.IsNull(r) {
				return tableErrorf(c.file, name, b.row+int64(r), "null key")
			}
			return tableErrorf(c.file, name, b.row+int64(r), "key too large")
		}
		buf.keys = append(buf.keys, k)
		if keep != nil && !keep[r] {
			buf.marker = append(buf.marker, true)
			continue
		}
		buf.marker = append(buf.marker, false)
		for m := range buf.idx {
			buf.idx[m] = append(buf.idx[m], e.idx[m][j])
		}
		buf.val = append(buf.val, e.val[j])
		j++
	}
	return nil
}

// writeRun sorts the buffer's rows by key, stably, and writes them as a
// run of blocks; it returns the run's bytes.
func (s *spill) writeRun(w *bufio.Writer, buf *runBuffer) (int64, error) {
	n := buf.len()
	perm := make([]int, n)
	for i := range perm {
		perm[i] = i
	}
	// by key, then by row: stable, in O(n log n) (a stable sort's merges
	// cost a factor log n more)
	if s.strKeys {
		slices.SortFunc(perm, func(a, b int) int {
			if c := strings.Compare(buf.keys[a].Str, buf.keys[b].Str); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	} else {
		ints := make([]int64, n)
		for i, k := range buf.keys {
			ints[i] = k.Int
		}
		slices.SortFunc(perm, func(a, b int) int {
			if c := cmp.Compare(ints[a], ints[b]); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
	}
	// where each row's entry is in idx and val: markers hold none
	entry := make([]int, n)
	for i, e := 0, 0; i < n; i++ {
		entry[i] = e
		if !buf.marker[i] {
			e++
		}
	}
	cw := &spillCounter{w: w}
	rb := s.rowBytes()
	chunk := make([]byte, 0, 512*rb) // entries, written a chunk at a time
	for lo := 0; lo < n; {
		k := buf.keys[perm[lo]]
		hi := lo + 1
		for hi < n && buf.keys[perm[hi]] == k {
			hi++
		}
		data, markers := 0, 0
		for _, p := range perm[lo:hi] {
			if buf.marker[p] {
				markers++
			} else {
				data++
			}
		}
		if err := s.writeHeader(cw, k, data, markers); err != nil {
			return 0, err
		}
		for _, p := range perm[lo:hi] {
			if buf.marker[p] {
				continue
			}
			if len(chunk)+rb > cap(chunk) {
				if _, err := cw.Write(chunk); err != nil {
					return 0, s.ioErr(err)
				}
				chunk = chunk[:0]
			}
			e, at := entry[p], len(chunk)
			chunk = chunk[:at+rb]
			for m := range buf.idx {
				binary.LittleEndian.PutUint64(chunk[at+8*m:], uint64(buf.idx[m][e]))
			}
			binary.LittleEndian.PutUint64(chunk[at+8*s.order:], math.Float64bits(buf.val[e]))
		}
		if _, err := cw.Write(chunk); err != nil {
			return 0, s.ioErr(err)
		}
		chunk = chunk[:0]
		lo = hi
	}
	return cw.n, nil
}

// spillCounter counts the bytes written through it.
type spillCounter struct {
	w io.Writer
	n int64
}

func (c *spillCounter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeHeader writes a block's header: the key (an int64, or a string's
// length and bytes), its entries and its marker rows.
func (s *spill) writeHeader(w io.Writer, k Key, data, markers int) error {
	var b []byte
	if s.strKeys {
		b = binary.AppendUvarint(b, uint64(len(k.Str)))
		b = append(b, k.Str...)
	} else {
		b = binary.LittleEndian.AppendUint64(b, uint64(k.Int))
	}
	b = binary.AppendUvarint(b, uint64(data))
	b = binary.AppendUvarint(b, uint64(markers))
	if _, err := w.Write(b); err != nil {
		return s.ioErr(err)
	}
	return nil
}

// rowBytes is the bytes of an entry in a block.
func (s *spill) rowBytes() int { return 8 * (s.order + 1) }

// runReader reads a run's blocks: cur is the next block's header.
type runReader struct {
	s     *spill
	run   int // its place among the runs: ties go to the earlier
	r     *bufio.Reader
	sec   *io.SectionReader // what r reads
	base  int64             // where sec starts in the file
	cur   Key
	data  int
	marks int
	eof   bool
}

func (s *spill) openRun(i int, sp span64) (*runReader, error) {
	sec := io.NewSectionReader(s.tmp, sp.off, sp.n)
	rr := &runReader{s: s, run: i, r: bufio.NewReaderSize(sec, s.readBuf), sec: sec, base: sp.off}
	return rr, rr.header()
}

// offset is where in the file the next byte r gives is.
func (rr *runReader) offset() int64 {
	at, _ := rr.sec.Seek(0, io.SeekCurrent) // a SectionReader's Seek does not fail
	return rr.base + at - int64(rr.r.Buffered())
}

// header reads the next block's header (eof at the run's end).
func (rr *runReader) header() error {
	if _, err := rr.r.Peek(1); errors.Is(err, io.EOF) {
		rr.eof = true
		return nil
	}
	var err error
	if rr.s.strKeys {
		var n uint64
		if n, err = binary.ReadUvarint(rr.r); err == nil {
			b := make([]byte, n)
			if _, err = io.ReadFull(rr.r, b); err == nil {
				rr.cur = Key{Str: string(b), IsStr: true}
			}
		}
	} else {
		var b [8]byte
		if _, err = io.ReadFull(rr.r, b[:]); err == nil {
			rr.cur = Key{Int: int64(binary.LittleEndian.Uint64(b[:]))}
		}
	}
	var d, m uint64
	if err == nil {
		d, err = binary.ReadUvarint(rr.r)
	}
	if err == nil {
		m, err = binary.ReadUvarint(rr.r)
	}
	if err != nil {
		return rr.s.ioErr(fmt.Errorf("a run cut short: %v", err))
	}
	rr.data, rr.marks = int(d), int(m)
	return nil
}

// mergePass merges the runs, fanIn at a time, into longer runs in a new
// temporary file, which replaces the old one.
func (s *spill) mergePass(dir string) error {
	out, removed, err := createSpill(dir)
	if err != nil {
		return s.ioErr(err)
	}
	w := bufio.NewWriterSize(out, s.readBuf)
	cw := &spillCounter{w: w}
	var runs []span64
	for lo := 0; lo < len(s.runs); lo += s.fanIn {
		start := cw.n
		var h runHeap
		for i, sp := range s.runs[lo:min(lo+s.fanIn, len(s.runs))] {
			rr, err := s.openRun(i, sp)
			if err != nil {
				out.Close()
				return err
			}
			if !rr.eof {
				h = append(h, rr)
			}
		}
		heap.Init(&h)
		for len(h) > 0 {
			group := popKey(&h)
			data, marks := 0, 0
			for _, rr := range group {
				data, marks = data+rr.data, marks+rr.marks
			}
			if err := s.writeHeader(cw, group[0].cur, data, marks); err != nil {
				out.Close()
				return err
			}
			for _, rr := range group {
				if _, err := io.CopyN(cw, rr.r, int64(rr.data*s.rowBytes())); err != nil {
					out.Close()
					return s.ioErr(err)
				}
				if err := rr.header(); err != nil {
					out.Close()
					return err
				}
				if !rr.eof {
					heap.Push(&h, rr)
				}
			}
		}
		runs = append(runs, span64{start, cw.n - start})
	}
	if err := w.Flush(); err != nil {
		out.Close()
		return s.ioErr(err)
	}
	s.closeTmp()
	s.tmp, s.removed, s.runs = out, removed, runs
	s.bytes += cw.n
	return nil
}

// popKey pops every run whose next block has the least key, in run
// order.
func popKey(h *runHeap) []*runReader {
	first := heap.Pop(h).(*runReader)
	group := []*runReader{first}
	for len(*h) > 0 && (*h)[0].cur == first.cur {
		group = append(group, heap.Pop(h).(*runReader))
	}
	return group
}

// startMerge opens the final merge.
func (s *spill) startMerge() error {
	for i, sp := range s.runs {
		rr, err := s.openRun(i, sp)
		if err != nil {
			return err
		}
		if !rr.eof {
			s.h = append(s.h, rr)
		}
	}
	heap.Init(&s.h)
	return nil
}

// next returns the next group's key and table rows (nil after the last);
// take reads its entries.
func (s *spill) next() (*run, error) {
	if len(s.h) == 0 {
		s.pending = nil
		return nil, nil
	}
	s.pending = popKey(&s.h)
	r := &run{key: s.pending[0].cur}
	for _, rr := range s.pending {
		r.rows += int64(rr.data + rr.marks)
	}
	return r, nil
}

// entries is the number of entries of the current group.
func (s *spill) entries() int {
	n := 0
	for _, rr := range s.pending {
		n += rr.data
	}
	return n
}

// take reads the current group's entries (nil when build is false: they
// are read past), and moves its runs to their next blocks.
func (s *spill) take(build bool) (*entries, error) {
	if !build {
		return nil, s.readPending(nil)
	}
	n := s.entries()
	e := &entries{idx: make([][]int, s.order), max: make([]int, s.order), val: make([]float64, 0, n), owned: true}
	for m := range e.idx {
		e.idx[m] = make([]int, 0, n)
		e.max[m] = -1
	}
	for _, rr := range s.pending {
		e.markers += rr.marks
	}
	err := s.readPending(func(row []byte) error {
		for m := range e.idx {
			x := int(binary.LittleEndian.Uint64(row[8*m:]))
			e.idx[m] = append(e.idx[m], x)
			e.max[m] = max(e.max[m], x)
		}
		e.val = append(e.val, math.Float64frombits(binary.LittleEndian.Uint64(row[8*s.order:])))
		return nil
	})
	return e, err
}

// takeBuckets reads the current group's entries twice into bb (a
// two-pass build, table_buckets.go): the first pass reads its blocks
// where they are in the file and counts them, the second reads them in
// turn and places them; then its runs move to their next blocks.
func (s *spill) takeBuckets(bb *bucketBuild) error {
	rb := s.rowBytes()
	buf := make([]byte, max(s.readBuf/rb, 1)*rb)
	for _, rr := range s.pending {
		off := rr.offset()
		for left := int64(rr.data) * int64(rb); left > 0; {
			k := min(left, int64(len(buf)))
			if _, err := s.tmp.ReadAt(buf[:k], off); err != nil {
				return s.ioErr(err)
			}
			for p := 0; p < int(k); p += rb {
				bb.count(int(binary.LittleEndian.Uint64(buf[p+8*bb.first:])))
			}
			off += k
			left -= k
		}
	}
	bb.alloc()
	const chunk = 1024
	e := &entries{idx: make([][]int, s.order), val: make([]float64, 0, chunk)}
	for m := range e.idx {
		e.idx[m] = make([]int, 0, chunk)
	}
	place := func() error {
		err := bb.place(e)
		for m := range e.idx {
			e.idx[m] = e.idx[m][:0]
		}
		e.val = e.val[:0]
		return err
	}
	err := s.readPending(func(row []byte) error {
		for m := range e.idx {
			e.idx[m] = append(e.idx[m], int(binary.LittleEndian.Uint64(row[8*m:])))
		}
		e.val = append(e.val, math.Float64frombits(binary.LittleEndian.Uint64(row[8*s.order:])))
		if len(e.val) == chunk {
			return place()
		}
		return nil
	})
	if err != nil {
		return err
	}
	return place()
}

// readPending reads the current group's blocks, calling row with each
// entry's bytes (row nil: they are read past), and moves its runs to
// their next blocks.
func (s *spill) readPending(row func([]byte) error) error {
	buf := make([]byte, s.rowBytes())
	for _, rr := range s.pending {
		if row == nil {
			if _, err := rr.r.Discard(rr.data * s.rowBytes()); err != nil {
				return s.ioErr(err)
			}
		} else {
			for range rr.data {
				if _, err := io.ReadFull(rr.r, buf); err != nil {
					return s.ioErr(err)
				}
				if err := row(buf); err != nil {
					return err
				}
			}
		}
		if err := rr.header(); err != nil {
			return err
		}
		if !rr.eof {
			heap.Push(&s.h, rr)
		}
	}
	s.pending = nil
	return nil
}

func (s *spill) closeTmp() {
	if s.tmp != nil {
		s.tmp.Close()
		if !s.removed {
			os.Remove(s.tmp.Name())
		}
		s.tmp = nil
	}
}

// close closes and removes the temporary file.
func (s *spill) close() { s.closeTmp() }

// runHeap orders runs by their next block's key, then by their place.
type runHeap []*runReader

func (h runHeap) Len() int { return len(h) }
func (h runHeap) Less(i, j int) bool {
	if c := h[i].cur.Compare(h[j].cur); c != 0 {
		return c < 0
	}
	return h[i].run < h[j].run
}
func (h runHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *runHeap) Push(x any)   { *h = append(*h, x.(*runReader)) }
func (h *runHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
