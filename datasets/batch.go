package datasets

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/nablasd/nablasd/formats"
)

// Grouped batches
//
// A batch job runs one program per key of a key column (one graph, user or
// day per key). Groups reads its table inputs split by the key: every
// input with the key column is grouped, and each group holds that input's
// rows with the group's key as one tensor (an empty tensor when the input
// has no rows with the key); the inputs without the column are read whole
// once and shared by every group.
//
// The grouped inputs are streamed: each is read record batch by record
// batch (a Parquet file by row groups, in the order of their key ranges
// when the file's statistics give them), and a group is handed out as soon
// as every input has moved past its key. The tables must be sorted by the
// key (ORDER BY the key column), which is checked as they are read. So the
// memory a job holds is its largest group and its shared inputs, plus one
// record batch of each input, not the tables.
//
// The shape of a grouped input is the same for every group: its schema's
// nablasd.shape, else the options', else one past the largest index in the
// whole table (from Parquet statistics, or a first pass over the
// coordinate columns).

// GroupInput is a table input of a grouped job.
type GroupInput struct {
	Name    string // the input's name (its binding), for Group.Inputs
	Path    string
	Options TableOptions
	Format  formats.Format // the zero Format: DefaultFormat
}

// Groups reads table inputs split by a key column; see OpenGroups.
type Groups struct {
	key     string
	keyType arrow.DataType
	grouped []*groupedInput
	shared  map[string]*TableTensor
	rows    int64
}

// Group is one group of a batch job: its key and each grouped input's
// tensor for it.
type Group struct {
	Key    Key
	Inputs map[string]*TableTensor
	// Rows is the number of table rows the group was read from.
	Rows int64
}

// groupedInput is one grouped input being streamed.
type groupedInput struct {
	in     GroupInput
	t      *tableFile
	cols   *columns
	format formats.Format
	shape  []int
	br     batchReader
	cur    batch
	pos    int  // next row of cur
	have   bool // cur holds rows from pos on
	eof    bool
	head   *run // the next group's rows, nil at the end
	taken  bool // head was handed out: read the next run
	last   Key
	seen   bool
}

// run is the rows of one key in one input: spans of each column read
// (coordinates, value, key).
type run struct {
	key  Key
	cols [][]span
	rows int64
}

// OpenGroups opens the inputs of a job grouped by the column key. Inputs
// without that column are read whole (ReadTable) and shared. At least one
// input must have it, of the same type in every input that has it. The
// caller must Close the Groups.
func OpenGroups(key string, inputs []GroupInput) (_ *Groups, err error) {
	g := &Groups{key: key, shared: map[string]*TableTensor{}}
	defer func() {
		if err != nil {
			g.Close()
		}
	}()
	var keyFile string
	for _, in := range inputs {
		t, err := openTable(in.Path)
		if err != nil {
			return nil, err
		}
		if len(t.schema.FieldIndices(key)) == 0 {
			t.close()
			tt, err := ReadTable(in.Path, in.Options, in.Format)
			if err != nil {
				return nil, err
			}
			g.shared[in.Name] = tt
			continue
		}
		gi := &groupedInput{in: in, t: t}
		g.grouped = append(g.grouped, gi)
		c, err := findColumns(in.Path, t.schema, t.meta, in.Options, key)
		if err != nil {
			return nil, err
		}
		gi.cols = c
		kt := t.schema.Field(c.key).Type
		if !isKeyType(kt) {
			return nil, tableErrorf(in.Path, key, -1, "type %s cannot be a group key (want integers, dates, timestamps or strings)", kt)
		}
		if g.keyType == nil {
			g.keyType, keyFile = kt, in.Path
		} else if !arrow.TypeEqual(g.keyType, kt) {
			return nil, tableErrorf(in.Path, key, -1, "type %s, but %s in %s: the key column must have one type in every input (cast one of them)",
				kt, g.keyType, keyFile)
		}
	}
	if len(g.grouped) == 0 {
		var names []string
		for _, in := range inputs {
			names = append(names, in.Path)
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("no table input to group by %s", key)
		}
		return nil, fmt.Errorf("no input table has a column %s (tables: %s)", key, strings.Join(names, ", "))
	}
	g.rows = 0
	for _, gi := range g.grouped {
		if err := gi.start(); err != nil {
			return nil, err
		}
		if gi.t.rows < 0 || g.rows < 0 {
			g.rows = -1
		} else {
			g.rows += gi.t.rows
		}
	}
	return g, nil
}

// KeyField returns the key column's field (name and type).
func (g *Groups) KeyField() arrow.Field { return arrow.Field{Name: g.key, Type: g.keyType} }

// Shared returns the inputs without the key column, by name.
func (g *Groups) Shared() map[string]*TableTensor { return g.shared }

// Grouped returns the names of the grouped inputs.
func (g *Groups) Grouped() []string {
	var names []string
	for _, gi := range g.grouped {
		names = append(names, gi.in.Name)
	}
	return names
}

// Shape returns the shape of a grouped input's tensors (nil for a scalar
// input or an unknown name), and its format.
func (g *Groups) Shape(name string) ([]int, formats.Format) {
	for _, gi := range g.grouped {
		if gi.in.Name == name {
			return gi.shape, gi.format
		}
	}
	return nil, formats.Format{}
}

// Rows returns the number of rows of the grouped inputs, or -1 when some
// input's count is not known before reading it.
func (g *Groups) Rows() int64 { return g.rows }

// Close closes the input files.
func (g *Groups) Close() {
	for _, gi := range g.grouped {
		if gi.br != nil {
			gi.br.close()
		}
		gi.t.close()
	}
}

// Next returns the next group in key order, or io.EOF after the last.
// Groups whose key skip reports true are read past without building their
// tensors (and returned with Inputs nil); skip may be nil.
func (g *Groups) Next(skip func(Key) bool) (*Group, error) {
	// Read the next runs of the inputs the last group took from only now,
	// so that between calls the Groups holds no group's rows.
	for _, gi := range g.grouped {
		if gi.taken {
			gi.taken = false
			if err := gi.advance(); err != nil {
				return nil, err
			}
		}
	}
	var lo *Key
	for _, gi := range g.grouped {
		if gi.head != nil && (lo == nil || gi.head.key.Compare(*lo) < 0) {
			lo = &gi.head.key
		}
	}
	if lo == nil {
		return nil, io.EOF
	}
	grp := &Group{Key: *lo}
	skipped := skip != nil && skip(grp.Key)
	if !skipped {
		grp.Inputs = map[string]*TableTensor{}
	}
	for _, gi := range g.grouped {
		var r *run
		if gi.head != nil && gi.head.key == grp.Key {
			r, gi.head, gi.taken = gi.head, nil, true
			grp.Rows += r.rows
		}
		if skipped {
			continue
		}
		tt, err := gi.tensor(r)
		if err != nil {
			return nil, err
		}
		grp.Inputs[gi.in.Name] = tt
	}
	return grp, nil
}

// start fixes the input's shape and format, orders its Parquet row groups
// by key, and reads its first run.
func (gi *groupedInput) start() error {
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
	}
	br, err := gi.t.batches(c.fields(), gi.rowGroupOrder())
	if err != nil {
		return err
	}
	gi.br = br
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

// advance reads the input's next run into head (nil at the end).
func (gi *groupedInput) advance() error {
	gi.head = nil
	if !gi.have {
		if gi.eof {
			return nil
		}
		if err := gi.nextBatch(); err != nil || gi.eof {
			return err
		}
	}
	c := gi.cols
	ki := len(c.fields()) - 1 // the key is the last column read
	keyCol := gi.cur.rec.Column(ki)
	k, err := gi.keyAt(keyCol, gi.pos)
	if err != nil {
		return err
	}
	if gi.seen && k.Compare(gi.last) <= 0 {
		what := fmt.Sprintf("key %s after key %s", k, gi.last)
		if k == gi.last {
			what = fmt.Sprintf("key %s again after other keys", k)
		}
		name := gi.t.schema.Field(c.key).Name
		return tableErrorf(c.file, name, gi.cur.row+int64(gi.pos), "%s: the table is not sorted by %s (sort it, e.g. ORDER BY %s)", what, name, name)
	}
	gi.last, gi.seen = k, true
	r := &run{key: k, cols: make([][]span, ki)}
	for {
		n := int(gi.cur.rec.NumRows())
		end := runEnd(gi.cur.rec.Column(ki), gi.pos, k)
		for i := range ki {
			r.cols[i] = append(r.cols[i], span{arr: gi.cur.rec.Column(i), lo: gi.pos, hi: end, row: gi.cur.row + int64(gi.pos)})
		}
		r.rows += int64(end - gi.pos)
		gi.pos = end
		if end < n {
			break
		}
		// the batch is used up: does the run go on in the next one?
		if err := gi.nextBatch(); err != nil {
			return err
		}
		if gi.eof {
			break
		}
		k2, err := gi.keyAt(gi.cur.rec.Column(ki), 0)
		if err != nil {
			return err
		}
		if k2 != k {
			break
		}
	}
	gi.head = r
	return nil
}

func (gi *groupedInput) keyAt(a arrow.Array, i int) (Key, error) {
	k, ok := keyAt(a, i)
	if !ok {
		name := gi.t.schema.Field(gi.cols.key).Name
		if a.IsNull(i) {
			return Key{}, tableErrorf(gi.cols.file, name, gi.cur.row+int64(i), "null key")
		}
		return Key{}, tableErrorf(gi.cols.file, name, gi.cur.row+int64(i), "key too large")
	}
	return k, nil
}

// nextBatch reads the input's next record batch into cur.
func (gi *groupedInput) nextBatch() error {
	b, err := gi.br.next()
	if errors.Is(err, io.EOF) {
		gi.eof, gi.have = true, false
		gi.cur = batch{}
		return nil
	}
	if err != nil {
		return err
	}
	gi.cur, gi.pos, gi.have = b, 0, true
	return nil
}

// tensor builds the input's tensor for one group from its run (nil: the
// input has no rows with the key, an empty tensor).
func (gi *groupedInput) tensor(r *run) (*TableTensor, error) {
	c := gi.cols
	if r == nil {
		if c.order() == 0 {
			return &TableTensor{Meta: gi.t.meta}, nil
		}
		t, err := formats.FromSortedCoords(gi.shape, make([][]int, c.order()), nil, gi.format)
		if err != nil {
			return nil, tableErrorf(c.file, "", -1, "%v", strings.TrimPrefix(err.Error(), "formats: "))
		}
		return &TableTensor{Tensor: t, Meta: gi.t.meta}, nil
	}
	e, err := c.convert(r.cols, true)
	if err != nil {
		return nil, err
	}
	if c.order() == 0 && len(e.val) == 0 {
		return &TableTensor{Meta: gi.t.meta}, nil
	}
	return c.tensor(e, gi.format, gi.t.meta)
}
