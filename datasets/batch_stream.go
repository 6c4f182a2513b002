package datasets

import (
	"errors"
	"io"
	"strings"

	"github.com/nablasd/nablasd/formats"
)

// groupedInput is one grouped input being streamed, through cursors over
// the same rows: one reads the key column alone and finds each group's
// rows (a run of one key), another reads the coordinate and value columns
// and converts a group's rows straight into its tensor's arrays, sized by
// the run; for a group of several batches a third, reading the column of
// the format's first stored mode, counts its rows first, so that the
// second places each entry where the tensor keeps it (table_buckets.go).
// So a group spanning many record batches holds its tensor and a batch of
// each cursor, never all its batches at once.
type groupedInput struct {
	in     GroupInput
	t      *tableFile
	cols   *columns
	format formats.Format
	shape  []int
	keys   cursor // the key column
	data   cursor // the coordinate and value columns
	// count reads the column of the format's first stored mode, for
	// groups built in two passes (table_buckets.go): it counts a group's
	// rows before data places them (nil br: no group is)
	count    cursor
	counting bool // count is open
	lay      formats.Layout
	head     *run // the next group's key and rows, nil at the end
	last     Key  // the key of the last run, for the order check
	seen     bool
	// sp is the input sorted by its key in a temporary file, when the
	// table is not sorted (batch_spill.go); keys and data are unused then
	sp *spill
	// first, with GroupOptions.FirstOnly, is the first group of a table
	// not sorted (batch_first.go), instead of sp
	first    *firstRows
	firstFor bool // FirstOnly was asked: only the first group is read
}

// run is the rows of one key in one input.
type run struct {
	key  Key
	rows int64
}

// cursor walks the rows of a batch reader.
type cursor struct {
	br  batchReader
	cur batch
	pos int // next row of cur
	eof bool
}

// fill makes cur hold the row at pos, reading batches as needed, unless
// the rows are used up (eof: the reader is closed then, and its buffers
// are free while the job writes its output).
func (c *cursor) fill() error {
	for !c.eof && (c.cur.rec == nil || c.pos >= int(c.cur.rec.NumRows())) {
		b, err := c.br.next()
		if errors.Is(err, io.EOF) {
			c.eof, c.cur = true, batch{}
			c.close()
			return nil
		}
		if err != nil {
			return err
		}
		c.cur, c.pos = b, 0
	}
	return nil
}

func (c *cursor) close() {
	if c.br != nil {
		c.br.close()
		c.br = nil
	}
}

func (gi *groupedInput) close() {
	gi.keys.close()
	gi.data.close()
	gi.count.close()
	gi.t.close()
	if gi.sp != nil {
		gi.sp.close()
	}
}

// start fixes the input's shape and format, orders its Parquet row groups
// by key, sorts a table that is not sorted by key in a temporary file
// (spillSort, with the options o), and reads its first run.
func (gi *groupedInput) start(o *GroupOptions) error {
	c := gi.cols
	shape := c.shape
	if shape == nil && c.order() > 0 {
		var err error
		if shape, err = gi.scanShape(); err != nil {
			return err
		}
	}
	gi.shape = shape
	c.shape = shape
	gi.format = gi.in.Format
	if c.order() > 0 {
		if gi.format == (formats.Format{}) {
			gi.format = DefaultFormat(c.order(), gi.t.meta)
		}
		if !gi.format.Supports(c.order()) {
			return tableErrorf(gi.in.Path, "", -1, "format %s has no variant of order %d", gi.format, c.order())
		}
		var err error
		if gi.lay, err = gi.format.Layout(c.order()); err != nil {
			return err
		}
	}
	order := gi.rowGroupOrder()
	sorted, err := gi.sortedByKey(order)
	if err != nil {
		return err
	}
	if !sorted && o != nil && o.FirstOnly {
		gi.firstFor = true
		if gi.first, err = gatherFirst(gi); err != nil {
			return err
		}
		return gi.advance()
	}
	if !sorted {
		if gi.sp, err = spillSort(gi, o); err != nil {
			return err
		}
		return gi.advance()
	}
	if gi.keys.br, err = gi.t.batches([]int{c.key}, order); err != nil {
		return err
	}
	if gi.data.br, err = gi.t.batches(c.fields()[:c.order()+1], order); err != nil {
		return err
	}
	if c.order() > 0 && bucketable(gi.shape, gi.lay, max(gi.t.rows, 0)) {
		if gi.count.br, err = gi.t.batches([]int{c.index[gi.lay.ModeOrder[0]]}, order); err != nil {
			return err
		}
		gi.counting = true
	}
	return gi.advance()
}

// scanShape returns one past the largest index of each coordinate column
// over the whole table: from the Parquet statistics when every row group
// has them, else by reading the coordinate columns once.
func (gi *groupedInput) scanShape() ([]int, error) {
	c := gi.cols
	shape := make([]int, c.order())
	if gi.t.kind == Parquet {
		ok := true
		for m, f := range c.index {
			for rg := range gi.t.pq.NumRowGroups() {
				if gi.t.pq.MetaData().RowGroup(rg).NumRows() == 0 {
					continue
				}
				_, hi, has := gi.t.statsMinMax(f, rg)
				if !has {
					ok = false
					break
				}
				shape[m] = max(shape[m], int(min(hi, 1<<40))+1)
			}
		}
		if ok {
			return shape, nil
		}
	}
	br, err := gi.t.batches(c.index, nil)
	if err != nil {
		return nil, err
	}
	defer br.close()
	rows := int64(0)
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n := int(b.rec.NumRows())
		rows += int64(n)
		for m := range c.index {
			chk := &indexCheck{file: c.file, column: c.names[m], extent: -1, max: -1}
			a := b.rec.Column(m)
			for lo := 0; lo < n; {
				// skip nulls here: the main pass reports them
				for lo < n && a.IsNull(lo) {
					lo++
				}
				hi := lo
				for hi < n && !a.IsNull(hi) {
					hi++
				}
				if hi > lo {
					if _, err := chk.ints([]span{{arr: a, lo: lo, hi: hi, row: b.row + int64(lo)}}, nil); err != nil {
						return nil, err
					}
				}
				lo = hi
			}
			shape[m] = max(shape[m], chk.max+1)
		}
	}
	gi.t.rows = rows
	return shape, nil
}

// rowGroupOrder returns a Parquet file's row groups in the order of their
// key ranges, when the statistics give every one (integer keys), else nil
// (file order).
func (gi *groupedInput) rowGroupOrder() []int {
	t := gi.t
	if t.kind != Parquet || t.pq.NumRowGroups() < 2 {
		return nil
	}
	type rng struct {
		rg     int
		lo, hi int64
	}
	var rs []rng
	for rg := range t.pq.NumRowGroups() {
		lo, hi, ok := t.statsMinMax(gi.cols.key, rg)
		if !ok {
			return nil
		}
		rs = append(rs, rng{rg, lo, hi})
	}
	sorted := true
	for i := 1; i < len(rs); i++ {
		if rs[i].lo < rs[i-1].lo || (rs[i].lo == rs[i-1].lo && rs[i].hi < rs[i-1].hi) {
			sorted = false
		}
	}
	if sorted {
		return nil
	}
	order := make([]int, len(rs))
	for i := range rs {
		order[i] = i
	}
	// insertion sort: few row groups
	for i := 1; i < len(order); i++ {
		for j := i; j > 0; j-- {
			a, b := rs[order[j-1]], rs[order[j]]
			if a.lo < b.lo || (a.lo == b.lo && a.hi <= b.hi) {
				break
			}
			order[j-1], order[j] = order[j], order[j-1]
		}
	}
	return order
}

// sortedByKey reports whether the key column ascends, read in the order
// of the row groups order (nil: file order); it stops at the first key
// that does not. A null key, or one too large, is an error naming its
// row.
func (gi *groupedInput) sortedByKey(order []int) (bool, error) {
	br, err := gi.t.batches([]int{gi.cols.key}, order)
	if err != nil {
		return false, err
	}
	defer br.close()
	var last Key
	seen := false
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		for i := 0; i < int(b.rec.NumRows()); {
			k, err := gi.keyAt(b, i)
			if err != nil {
				return false, err
			}
			if seen && k.Compare(last) < 0 {
				return false, nil
			}
			last, seen = k, true
			i = runEnd(b.rec.Column(0), i, k)
		}
	}
}

// advance finds the input's next run (nil at the end) by reading the key
// column, checking that the keys ascend.
func (gi *groupedInput) advance() error {
	gi.head = nil
	if gi.firstFor {
		gi.advanceFirst()
		return nil
	}
	if gi.sp != nil {
		var err error
		gi.head, err = gi.sp.next()
		return err
	}
	k := &gi.keys
	if err := k.fill(); err != nil || k.eof {
		return err
	}
	key, err := gi.keyAt(k.cur, k.pos)
	if err != nil {
		return err
	}
	if gi.seen && key.Compare(gi.last) <= 0 {
		// sortedByKey found the keys ascending: the file changed since
		name := gi.t.schema.Field(gi.cols.key).Name
		return tableErrorf(gi.cols.file, name, k.cur.row+int64(k.pos), "key %s after key %s: the file changed while it was read", key, gi.last)
	}
	gi.last, gi.seen = key, true
	r := &run{key: key}
	for {
		end := runEnd(k.cur.rec.Column(0), k.pos, key)
		r.rows += int64(end - k.pos)
		k.pos = end
		if end < int(k.cur.rec.NumRows()) {
			break
		}
		// the batch is used up: does the run go on in the next one?
		if err := k.fill(); err != nil {
			return err
		}
		if k.eof {
			break
		}
		next, err := gi.keyAt(k.cur, k.pos)
		if err != nil {
			return err
		}
		if next != key {
			break
		}
	}
	gi.head = r
	return nil
}

func (gi *groupedInput) keyAt(b batch, i int) (Key, error) {
	a := b.rec.Column(0)
	k, ok := keyAt(a, i)
	if !ok {
		name := gi.t.schema.Field(gi.cols.key).Name
		if a.IsNull(i) {
			return Key{}, tableErrorf(gi.cols.file, name, b.row+int64(i), "null key")
		}
		return Key{}, tableErrorf(gi.cols.file, name, b.row+int64(i), "key too large")
	}
	return k, nil
}

// take reads the next n rows of the coordinate and value columns: the
// group's tensor (an empty one when n is 0), or nothing when build is
// false (a group kept from an earlier run).
func (gi *groupedInput) take(n int64, build bool) (*TableTensor, error) {
	c := gi.cols
	if gi.firstFor {
		return gi.takeFirst(n, build)
	}
	if gi.sp != nil {
		return gi.takeSorted(n, build)
	}
	d := &gi.data
	if gi.counting {
		// a group of several batches is built in two passes (the count
		// cursor reads past the others' rows)
		var bb *bucketBuild
		if build && n > 0 {
			if err := d.fill(); err != nil {
				return nil, err
			}
			inOne := !d.eof && d.cur.rec.NumRows()-int64(d.pos) >= n
			if !inOne && bucketable(gi.shape, gi.lay, n) {
				bb = newBucketBuild(gi.shape, gi.format, gi.lay, tableErrorf(c.file, "", -1, "the file changed while it was read"))
			}
		}
		if err := gi.countRows(n, bb); err != nil {
			return nil, err
		}
		if bb != nil {
			return gi.takeBuckets(n, bb)
		}
	}
	var parts [][][]span // one batch's spans of each column, when they are not converted at once
	var dst *entries
	for left := n; left > 0; {
		if err := d.fill(); err != nil {
			return nil, err
		}
		if d.eof {
			return nil, tableErrorf(c.file, "", -1, "corrupt file: the key column has more rows than the others")
		}
		m := min(left, d.cur.rec.NumRows()-int64(d.pos))
		part := make([][]span, c.order()+1)
		for i := range part {
			part[i] = []span{{arr: d.cur.rec.Column(i), lo: d.pos, hi: d.pos + int(m), row: d.cur.row + int64(d.pos)}}
		}
		d.pos += int(m)
		left -= m
		switch {
		case !build:
		case m == n:
			parts = append(parts, part) // the whole group in one batch: converted without a copy where it can be
		default:
			if dst == nil {
				dst = &entries{idx: make([][]int, c.order()), max: make([]int, c.order()), owned: true}
				for i := range dst.idx {
					dst.idx[i] = make([]int, 0, n)
					dst.max[i] = -1
				}
				dst.val = make([]float64, 0, n)
			}
			e, err := c.convert(part, true)
			if err != nil {
				return nil, err
			}
			for i := range dst.idx {
				dst.idx[i] = append(dst.idx[i], e.idx[i]...)
				dst.max[i] = max(dst.max[i], e.max[i])
			}
			dst.val = append(dst.val, e.val...)
			dst.markers += e.markers
		}
	}
	if !build {
		return nil, nil
	}
	if n == 0 {
		return gi.empty()
	}
	if dst == nil {
		var err error
		if dst, err = c.convert(parts[0], true); err != nil {
			return nil, err
		}
	}
	if c.order() == 0 && len(dst.val) == 0 {
		return &TableTensor{Meta: gi.t.meta}, nil
	}
	return c.tensor(dst, gi.format, gi.t.meta)
}

// countRows reads the next n rows of the first mode's column, counting
// them in bb (nil: only reading past them).
func (gi *groupedInput) countRows(n int64, bb *bucketBuild) error {
	k := &gi.count
	for left := n; left > 0; {
		if err := k.fill(); err != nil {
			return err
		}
		if k.eof {
			return tableErrorf(gi.cols.file, "", -1, "corrupt file: the key column has more rows than the others")
		}
		m := min(left, k.cur.rec.NumRows()-int64(k.pos))
		if bb != nil {
			bb.countColumn(k.cur.rec.Column(0), k.pos, k.pos+int(m))
		}
		k.pos += int(m)
		left -= m
	}
	return nil
}

// takeBuckets is take's second pass for a group counted in bb: the next n
// rows of the coordinate and value columns, converted a batch at a time
// and placed.
func (gi *groupedInput) takeBuckets(n int64, bb *bucketBuild) (*TableTensor, error) {
	c := gi.cols
	d := &gi.data
	bb.alloc()
	for left := n; left > 0; {
		if err := d.fill(); err != nil {
			return nil, err
		}
		if d.eof {
			return nil, tableErrorf(c.file, "", -1, "corrupt file: the key column has more rows than the others")
		}
		m := min(left, d.cur.rec.NumRows()-int64(d.pos))
		part := make([][]span, c.order()+1)
		for i := range part {
			part[i] = []span{{arr: d.cur.rec.Column(i), lo: d.pos, hi: d.pos + int(m), row: d.cur.row + int64(d.pos)}}
		}
		d.pos += int(m)
		left -= m
		e, err := c.convert(part, true)
		if err != nil {
			return nil, err
		}
		if err := bb.place(e); err != nil {
			return nil, err
		}
	}
	return bb.table(c, gi.t.meta)
}

// empty is the input's tensor for a group it has no rows for.
func (gi *groupedInput) empty() (*TableTensor, error) {
	c := gi.cols
	if c.order() == 0 {
		return &TableTensor{Meta: gi.t.meta}, nil
	}
	t, err := formats.FromSortedCoords(gi.shape, make([][]int, c.order()), nil, gi.format)
	if err != nil {
		return nil, tableErrorf(c.file, "", -1, "%v", strings.TrimPrefix(err.Error(), "formats: "))
	}
	return &TableTensor{Tensor: t, Meta: gi.t.meta}, nil
}

// spillBucketRows is the entries past which a group of an input sorted
// in a temporary file is built in two passes (its blocks read twice); a
// smaller one is read once and sorted, in little memory (a test sets it
// to 0).
var spillBucketRows = streamBatchRows

// takeSorted is take for an input sorted in a temporary file: the group
// whose run advance found, of n rows.
func (gi *groupedInput) takeSorted(n int64, build bool) (*TableTensor, error) {
	if n == 0 {
		if !build {
			return nil, nil
		}
		return gi.empty()
	}
	c := gi.cols
	if build && c.order() > 0 && gi.sp.entries() > spillBucketRows && bucketable(gi.shape, gi.lay, n) {
		bb := newBucketBuild(gi.shape, gi.format, gi.lay, gi.sp.ioErr(errors.New("the temporary file changed while it was read")))
		if err := gi.sp.takeBuckets(bb); err != nil {
			return nil, err
		}
		return bb.table(c, gi.t.meta)
	}
	e, err := gi.sp.take(build)
	if err != nil || !build {
		return nil, err
	}
	if c.order() == 0 && len(e.val) == 0 {
		return &TableTensor{Meta: gi.t.meta}, nil
	}
	return c.tensor(e, gi.format, gi.t.meta)
}
