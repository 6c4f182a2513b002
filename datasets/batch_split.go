package datasets

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/nablasd/nablasd/formats"
)

// Splits: a table read in parts, each on its own
//
// A distributed job (nablasd-beam) reads its table inputs in splits, each
// split on whichever worker gets it: a Parquet file's row groups, or a
// whole Arrow IPC file or stream. Reading a split yields chunks: runs of
// rows with one key, converted and checked as Groups converts a group's
// rows (the same messages, with the file's row numbers); without a key
// column, one chunk a record batch. A group's tensor is then built from
// its chunks, gathered from every split in any order, by
// SplitTable.Tensor: the chunks are put back in file order, so the tensor
// is the one Groups.Next gives for the group, to the bit (coordinates
// stored twice are summed in the same order). Splits need no sorted
// table.

// SplitInput is a table input read in splits, with what the job fixed
// before it started: its key column and its tensors' shape.
type SplitInput struct {
	GroupInput
	// Key is the key column; "" reads the table without one (each chunk
	// then has the zero Key).
	Key string
	// Shape is the shape of the tensors (Groups.Shape, or TableShape);
	// nil for a scalar table.
	Shape []int
}

// SplitTable is a table input opened for reading its splits.
type SplitTable struct {
	in     SplitInput
	t      *tableFile
	cols   *columns
	format formats.Format
}

// Chunk is rows of one key read from one split: their coordinates (one
// slice a mode) and values, in file order, all-null marker rows dropped.
type Chunk struct {
	Key Key
	Row int64 // the file row of the chunk's first row
	Idx [][]int
	Val []float64
}

// OpenSplits opens a table input for reading its splits. It checks the
// columns as OpenGroups does (and the key column's presence and type when
// in.Key is set).
func OpenSplits(in SplitInput) (_ *SplitTable, err error) {
	t, err := openTable(in.Path)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			t.close()
		}
	}()
	c, err := findColumns(in.Path, t.schema, t.meta, in.Options, in.Key)
	if err != nil {
		return nil, err
	}
	if in.Key != "" {
		if c.key < 0 {
			return nil, tableErrorf(in.Path, "", -1, "no column %s (columns: %s)", in.Key, c.all)
		}
		if kt := t.schema.Field(c.key).Type; !isKeyType(kt) {
			return nil, tableErrorf(in.Path, in.Key, -1, "type %s cannot be a group key (want integers, dates, timestamps or strings)", kt)
		}
	} else {
		c.key = -1
	}
	if len(in.Shape) != c.order() {
		return nil, tableErrorf(in.Path, "", -1, "a shape of %d modes for a table of %d coordinate columns", len(in.Shape), c.order())
	}
	if c.order() > 0 {
		c.shape = append([]int(nil), in.Shape...)
	}
	s := &SplitTable{in: in, t: t, cols: c, format: in.Format}
	if c.order() > 0 {
		if s.format == (formats.Format{}) {
			s.format = DefaultFormat(c.order(), t.meta)
		}
		if !s.format.Supports(c.order()) {
			return nil, tableErrorf(in.Path, "", -1, "format %s has no variant of order %d", s.format, c.order())
		}
	}
	return s, nil
}

// Close closes the file.
func (s *SplitTable) Close() { s.t.close() }

// Splits returns the number of splits: a Parquet file's row groups (at
// least one), one for an Arrow IPC file or stream.
func (s *SplitTable) Splits() int {
	if s.t.kind == Parquet {
		return max(s.t.pq.NumRowGroups(), 1)
	}
	return 1
}

// Rows returns the number of rows of a split, or -1 when it is not known
// before reading it (Arrow IPC).
func (s *SplitTable) Rows(split int) int64 {
	if s.t.kind != Parquet || split >= s.t.pq.NumRowGroups() {
		return -1
	}
	return s.t.pq.MetaData().RowGroup(split).NumRows()
}

// Bytes returns the size in bytes of a split as stored: a Parquet row
// group's column chunks (compressed), or an Arrow file's size.
func (s *SplitTable) Bytes(split int) int64 {
	if s.t.kind != Parquet {
		return s.t.size
	}
	if split >= s.t.pq.NumRowGroups() {
		return 0
	}
	return s.t.pq.MetaData().RowGroup(split).TotalCompressedSize()
}

// KeyField returns the key column's field (the zero Field without a key).
func (s *SplitTable) KeyField() arrow.Field {
	if s.cols.key < 0 {
		return arrow.Field{}
	}
	return s.t.schema.Field(s.cols.key)
}

// Order returns the order of the table's tensors (0: scalars).
func (s *SplitTable) Order() int { return s.cols.order() }

// Format returns the storage format of the tensors Tensor builds.
func (s *SplitTable) Format() formats.Format { return s.format }

// Read reads split number split and calls emit with each chunk, in file
// order: a run of rows with one key (the longest within the split: a run
// going on past a record batch is one chunk), or without a key column one
// record batch's rows. Bad rows are errors naming the file, the column
// and the row.
func (s *SplitTable) Read(split int, emit func(*Chunk) error) (err error) {
	if split < 0 || split >= s.Splits() {
		return fmt.Errorf("internal error: datasets: split %d of %d", split, s.Splits())
	}
	var groups []int
	if s.t.kind == Parquet {
		if s.t.pq.NumRowGroups() == 0 {
			return nil
		}
		groups = []int{split}
	}
	c := s.cols
	br, err := s.t.batches(c.fields(), groups)
	if err != nil {
		return err
	}
	defer br.close()
	var cur *Chunk
	flush := func() error {
		if cur == nil {
			return nil
		}
		ch := cur
		cur = nil
		return emit(ch)
	}
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			return flush()
		}
		if err != nil {
			return err
		}
		n := int(b.rec.NumRows())
		if c.key < 0 {
			e, err := s.convert(b, 0, n)
			if err != nil {
				return err
			}
			if err := emit(&Chunk{Row: b.row, Idx: e.idx, Val: e.val}); err != nil {
				return err
			}
			continue
		}
		keys := b.rec.Column(c.order() + 1)
		for lo := 0; lo < n; {
			k, ok := keyAt(keys, lo)
			if !ok {
				name := s.t.schema.Field(c.key).Name
				if keys.IsNull(lo) {
					return tableErrorf(c.file, name, b.row+int64(lo), "null key")
				}
				return tableErrorf(c.file, name, b.row+int64(lo), "key too large")
			}
			hi := runEnd(keys, lo, k)
			e, err := s.convert(b, lo, hi)
			if err != nil {
				return err
			}
			if cur != nil && cur.Key != k {
				if err := flush(); err != nil {
					return err
				}
			}
			if cur == nil {
				cur = &Chunk{Key: k, Row: b.row + int64(lo), Idx: e.idx, Val: e.val}
			} else {
				for m := range cur.Idx {
					cur.Idx[m] = append(cur.Idx[m], e.idx[m]...)
				}
				cur.Val = append(cur.Val, e.val...)
			}
			lo = hi
		}
	}
}

// convert converts rows [lo, hi) of a batch's coordinate and value
// columns into entries, their slices clipped: they may alias the batch's
// buffers, and appending to them must not write into those.
func (s *SplitTable) convert(b batch, lo, hi int) (*entries, error) {
	c := s.cols
	part := make([][]span, c.order()+1)
	for i := range part {
		part[i] = []span{{arr: b.rec.Column(i), lo: lo, hi: hi, row: b.row + int64(lo)}}
	}
	e, err := c.convert(part, c.key >= 0) // all-null rows mark empty groups
	if err != nil {
		return nil, err
	}
	for m := range e.idx {
		e.idx[m] = slices.Clip(e.idx[m])
	}
	e.val = slices.Clip(e.val)
	return e, nil
}

// Tensor builds one group's tensor from its chunks, from any splits in
// any order: the one Groups.Next builds for the group (an empty tensor
// for no chunks). The chunks are sorted by their file row.
func (s *SplitTable) Tensor(chunks []*Chunk) (*TableTensor, error) {
	return s.TensorAs(chunks, s.format)
}

// TensorAs is Tensor in format f instead of the input's.
func (s *SplitTable) TensorAs(chunks []*Chunk, f formats.Format) (*TableTensor, error) {
	c := s.cols
	if len(chunks) == 0 {
		if c.order() == 0 {
			return &TableTensor{Meta: s.t.meta}, nil
		}
		t, err := formats.FromSortedCoords(s.in.Shape, make([][]int, c.order()), nil, f)
		if err != nil {
			return nil, tableErrorf(c.file, "", -1, "%v", strings.TrimPrefix(err.Error(), "formats: "))
		}
		return &TableTensor{Tensor: t, Meta: s.t.meta}, nil
	}
	slices.SortStableFunc(chunks, func(a, b *Chunk) int { return compareInt64(a.Row, b.Row) })
	e := &entries{idx: make([][]int, c.order()), max: make([]int, c.order())}
	n := 0
	for _, ch := range chunks {
		if len(ch.Idx) != c.order() {
			return nil, fmt.Errorf("internal error: datasets: a chunk of order %d for a table of order %d", len(ch.Idx), c.order())
		}
		n += len(ch.Val)
	}
	for m := range e.idx {
		e.idx[m] = make([]int, 0, n)
		e.max[m] = -1
	}
	e.val = make([]float64, 0, n)
	for _, ch := range chunks {
		for m := range e.idx {
			e.idx[m] = append(e.idx[m], ch.Idx[m]...)
			for _, x := range ch.Idx[m] {
				e.max[m] = max(e.max[m], x)
			}
		}
		e.val = append(e.val, ch.Val...)
	}
	if c.order() == 0 && len(e.val) == 0 {
		return &TableTensor{Meta: s.t.meta}, nil
	}
	return c.tensor(e, f, s.t.meta)
}

func compareInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TableShape returns the shape of the tensor a table holds (nil for a
// scalar table): its schema's nablasd.shape, else the options', else one
// past the largest index of each mode, from Parquet statistics or a pass
// over the coordinate columns. It checks the columns as ReadTable does.
func TableShape(path string, o TableOptions) ([]int, error) {
	t, err := openTable(path)
	if err != nil {
		return nil, err
	}
	defer t.close()
	c, err := findColumns(path, t.schema, t.meta, o, "")
	if err != nil {
		return nil, err
	}
	if c.order() == 0 {
		return nil, nil
	}
	if c.shape != nil {
		return c.shape, nil
	}
	gi := &groupedInput{t: t, cols: c}
	return gi.scanShape()
}
