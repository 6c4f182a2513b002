package datasets

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/nablasd/nablasd/formats"
)

// TableTensor is a tensor read from a table: Tensor, or for a table of
// order 0 (a val column and no coordinate columns) the Scalar.
type TableTensor struct {
	Tensor *formats.Tensor // nil for a scalar
	Scalar float64
	// Meta is the table's metadata: the Arrow schema's, or for Parquet
	// the file's key-value metadata (nablasd.shape, nablasd.format, …).
	Meta map[string]string
}

// Order returns the tensor's order, 0 for a scalar.
func (t *TableTensor) Order() int {
	if t.Tensor == nil {
		return 0
	}
	return t.Tensor.Order()
}

// columns is how a table holds a tensor: the schema fields of its
// coordinate columns (in mode order), of its value column and of its key
// column (-1: none), and its shape when the metadata or the options fix it.
type columns struct {
	file  string
	all   string // the table's column names, for messages
	index []int
	names []string // index column names, then the value column's
	val   int
	key   int
	shape []int // nil: one past the largest index
}

func (c *columns) order() int { return len(c.index) }

// fields returns the schema fields to read: coordinates, value, and the
// key when there is one.
func (c *columns) fields() []int {
	fs := append(append([]int(nil), c.index...), c.val)
	if c.key >= 0 {
		fs = append(fs, c.key)
	}
	return fs
}

// findColumns applies the convention and the options to a table's schema.
// key names the group key column ("" for none; a table without it is
// read whole).
func findColumns(file string, sc *arrow.Schema, meta map[string]string, o TableOptions, key string) (*columns, error) {
	c := &columns{file: file, key: -1}
	defer func() { c.all = strings.Join(names(sc), ", ") }()
	have := func(name string) int {
		if is := sc.FieldIndices(name); len(is) > 0 {
			return is[0]
		}
		return -1
	}
	list := strings.Join(names(sc), ", ")
	if list == "" {
		list = "none"
	}
	if key != "" {
		c.key = have(key)
	}
	idx := o.Index
	if idx == nil {
		switch {
		case have("i0") >= 0:
			for m := 0; have(fmt.Sprintf("i%d", m)) >= 0; m++ {
				idx = append(idx, fmt.Sprintf("i%d", m))
			}
		case have("row") >= 0 || have("col") >= 0:
			if have("row") < 0 || have("col") < 0 {
				return nil, tableErrorf(file, "", -1, "a matrix table has columns row and col; found only one of them (columns: %s)", list)
			}
			idx = []string{"row", "col"}
		case have("i") >= 0:
			idx = []string{"i"}
		}
	}
	for _, name := range idx {
		f := have(name)
		if f < 0 {
			return nil, tableErrorf(file, "", -1, "no column %s (columns: %s)", name, list)
		}
		if f == c.key {
			return nil, tableErrorf(file, name, -1, "the key column cannot also be a coordinate column")
		}
		if t := sc.Field(f).Type; !isIndexType(t) {
			return nil, tableErrorf(file, name, -1, "type %s, want integers (a coordinate column)", t)
		}
		c.index = append(c.index, f)
	}
	valName := o.Val
	if valName == "" {
		valName = "val"
	}
	if c.val = have(valName); c.val < 0 {
		hint := ""
		if o.Val == "" {
			hint = "; name the value column with ?val=NAME"
		}
		return nil, tableErrorf(file, "", -1, "no column %s (columns: %s)%s", valName, list, hint)
	}
	if t := sc.Field(c.val).Type; !isValueType(t) {
		return nil, tableErrorf(file, valName, -1, "type %s, want numbers (the value column)", t)
	}
	if slices.Contains(c.index, c.val) || c.val == c.key {
		return nil, tableErrorf(file, valName, -1, "the value column cannot also be a coordinate or key column")
	}
	c.names = append(append([]string(nil), idx...), valName)
	if len(idx) == 0 && len(sc.Fields()) > 1+btoi(c.key >= 0) {
		return nil, tableErrorf(file, "", -1, "no coordinate columns: want i0, i1, … (row and col for a matrix, i for a vector), or only %s for a scalar; name them with ?i=…, ?row=…,col=… or ?i0=…,i1=…,… (columns: %s)",
			valName, list)
	}
	// The shape: metadata, options, else inferred.
	from := ""
	if s, ok := meta[MetaShape]; ok {
		from = fmt.Sprintf("the metadata's %s=%q", MetaShape, s)
		shape, err := parseExtents(s, ",")
		if err != nil {
			return nil, tableErrorf(file, "", -1, "metadata %s=%q: %v", MetaShape, s, err)
		}
		if o.Index != nil && len(shape) != len(idx) {
			if sub, ok := conventionExtents(sc, shape, idx); ok {
				shape = sub
			}
		}
		c.shape = shape
	}
	if o.Shape != nil {
		if c.shape != nil && !slices.Equal(c.shape, o.Shape) {
			return nil, tableErrorf(file, "", -1, "shape=%s disagrees with the table's metadata %s=%q",
				formatExtents(o.Shape, "x"), MetaShape, meta[MetaShape])
		}
		c.shape = o.Shape
		from = "shape=" + formatExtents(o.Shape, "x")
	}
	if c.shape != nil && len(c.shape) != len(c.index) {
		cols := strings.Join(idx, ", ")
		if cols == "" {
			cols = "none"
		}
		return nil, tableErrorf(file, "", -1, "%s has %d modes but the table has %d coordinate columns (%s)",
			from, len(c.shape), len(c.index), cols)
	}
	return c, nil
}

// conventionExtents returns the extents of the columns cols, when the
// metadata's shape gives those of the table's coordinate columns by the
// convention (i0, i1, … of the shape's length, or row and col) and cols
// are among them: a table read by other columns than the convention's
// (the options' names: ?i=i0 of a matrix table, grouped by its i1) takes
// the extents of the columns it reads. ok is false otherwise.
func conventionExtents(sc *arrow.Schema, shape []int, cols []string) ([]int, bool) {
	extent := map[string]int{}
	for m, n := range shape {
		name := fmt.Sprintf("i%d", m)
		if len(sc.FieldIndices(name)) == 0 {
			extent = nil
			break
		}
		extent[name] = n
	}
	if extent == nil && len(shape) == 2 && len(sc.FieldIndices("row")) > 0 && len(sc.FieldIndices("col")) > 0 {
		extent = map[string]int{"row": shape[0], "col": shape[1]}
	}
	if extent == nil {
		return nil, false
	}
	out := make([]int, len(cols))
	for i, c := range cols {
		n, ok := extent[c]
		if !ok {
			return nil, false
		}
		out[i] = n
	}
	return out, true
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func names(sc *arrow.Schema) []string {
	var ns []string
	for _, f := range sc.Fields() {
		ns = append(ns, f.Name)
	}
	return ns
}

// entries are the coordinates and values of some rows of a table.
type entries struct {
	idx     [][]int
	val     []float64
	max     []int // the largest index of each mode, -1 when none
	markers int   // all-null rows dropped (group markers)
	// owned: the arrays are the entries' own (not a column's memory), so
	// building a tensor may sort them in place
	owned bool
}

// convert turns spans of the columns (index columns, then the value
// column) into entries, checking every index against the shape (when
// known) and refusing nulls (but for group markers when markers is set).
func (c *columns) convert(cols [][]span, markers bool) (*entries, error) {
	keep, nm, err := nullRows(c.file, c.names, cols, markers)
	if err != nil {
		return nil, err
	}
	e := &entries{idx: make([][]int, c.order()), max: make([]int, c.order()), markers: nm}
	for m := range c.index {
		chk := &indexCheck{file: c.file, column: c.names[m], extent: -1, max: -1}
		if c.shape != nil {
			chk.extent = c.shape[m]
		}
		if e.idx[m], err = chk.ints(cols[m], keep); err != nil {
			return nil, err
		}
		e.max[m] = chk.max
	}
	if e.val, err = floats(c.file, c.names[c.order()], cols[c.order()], keep); err != nil {
		return nil, err
	}
	return e, nil
}

// inferShape returns the shape: c.shape when fixed, else one past the
// largest index of each mode.
func (c *columns) inferShape(max []int) []int {
	if c.shape != nil {
		return append([]int(nil), c.shape...)
	}
	shape := make([]int, len(max))
	for m, x := range max {
		shape[m] = x + 1
	}
	return shape
}

// ReadTable reads a table file (.parquet, .arrow or .arrows, see
// TableKindOf) holding one tensor, by the convention and the options, and
// stores it in format f (the zero Format: DefaultFormat). A scalar table
// has one row. Coordinates stored twice are summed. The index and value
// columns become the format's slices without a copy where their types
// allow (int64 and float64 columns read in one piece, rows in storage
// order: see formats.FromSortedCoords). Errors name the file, and where
// it applies the column and the row (*TableError).
func ReadTable(path string, o TableOptions, f formats.Format) (*TableTensor, error) {
	t, err := openTable(path)
	if err != nil {
		return nil, err
	}
	defer t.close()
	c, err := findColumns(path, t.schema, t.meta, o, "")
	if err != nil {
		return nil, err
	}
	cols, err := t.readAll(c.fields())
	if err != nil {
		return nil, err
	}
	e, err := c.convert(cols, false)
	if err != nil {
		return nil, err
	}
	return c.tensor(e, f, t.meta)
}

// readAll reads the columns (schema fields) of every row, as spans.
func (t *tableFile) readAll(fields []int) ([][]span, error) {
	if t.pqa != nil {
		t.pqa.Props.BatchSize = 0              // a row group a batch
		t.pqProp.BufferedStreamEnabled = false // whole column chunks: fewer reads
		return t.readColumns(fields)
	}
	br, err := t.batches(fields, nil)
	if err != nil {
		return nil, err
	}
	defer br.close()
	cols := make([][]span, len(fields))
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		n := int(b.rec.NumRows())
		for i := range fields {
			cols[i] = append(cols[i], span{arr: b.rec.Column(i), lo: 0, hi: n, row: b.row})
		}
	}
	return cols, nil
}

// readColumns reads the columns of a Parquet file whole, each on a
// goroutine of its own (which recovers a decoder's panic).
func (t *tableFile) readColumns(fields []int) ([][]span, error) {
	cols := make([][]span, len(fields))
	errs := make([]error, len(fields))
	var wg sync.WaitGroup
	for i, f := range fields {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = func() (err error) {
				defer recovered(t.name, t.kind, &err)
				br, err := t.batches([]int{f}, nil)
				if err != nil {
					return err
				}
				defer br.close()
				for {
					b, err := br.next()
					if errors.Is(err, io.EOF) {
						return nil
					}
					if err != nil {
						return err
					}
					cols[i] = append(cols[i], span{arr: b.rec.Column(0), lo: 0, hi: int(b.rec.NumRows()), row: b.row})
				}
			}()
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	for i := range cols {
		if spansLen(cols[i]) != spansLen(cols[0]) {
			return nil, tableErrorf(t.name, t.schema.Field(fields[i]).Name, -1, "corrupt Parquet file: %d values, but %d in column %s",
				spansLen(cols[i]), spansLen(cols[0]), t.schema.Field(fields[0]).Name)
		}
	}
	return cols, nil
}

// tensor stores entries in format f (zero: the default for the order).
func (c *columns) tensor(e *entries, f formats.Format, meta map[string]string) (*TableTensor, error) {
	tt := &TableTensor{Meta: meta}
	if c.order() == 0 {
		if len(e.val) != 1 {
			return nil, tableErrorf(c.file, "", -1,
				"a table without coordinate columns is a scalar and has one row; this one has %d (name the coordinate columns with ?i=…, ?row=…,col=… or ?i0=…,i1=…; columns: %s)",
				len(e.val), c.all)
		}
		tt.Scalar = e.val[0]
		return tt, nil
	}
	if f == (formats.Format{}) {
		f = DefaultFormat(c.order(), meta)
	}
	if !f.Supports(c.order()) {
		return nil, tableErrorf(c.file, "", -1, "format %s has no variant of order %d", f, c.order())
	}
	var t *formats.Tensor
	var err error
	if e.owned {
		t, err = buildTensorInPlace(c.inferShape(e.max), e.idx, e.val, f)
	} else {
		t, err = buildTensor(c.inferShape(e.max), e.idx, e.val, f)
	}
	if err != nil {
		return nil, tableErrorf(c.file, "", -1, "%v", strings.TrimPrefix(err.Error(), "formats: "))
	}
	tt.Tensor = t
	return tt, nil
}

// buildTensorInPlace is buildTensor over entries it may reorder: sorted
// in place (sortInPlace), not into a copy. (Its buffers are not kept for
// the next group: held between groups, they raised a job's peak more
// than allocating them again does.)
func buildTensorInPlace(shape []int, idx [][]int, val []float64, f formats.Format) (*formats.Tensor, error) {
	t, err := formats.FromSortedCoords(shape, idx, val, f)
	if !errors.Is(err, formats.ErrNotSorted) {
		return t, err
	}
	lay, err := f.Layout(len(shape))
	if err != nil {
		return nil, err
	}
	if !ascending(idx, lay.ModeOrder) {
		if !sortInPlace(shape, lay.ModeOrder, idx, val, &sortScratch{}) {
			return buildTensor(shape, idx, val, f)
		}
	}
	idx, val = sumAdjacent(idx, val)
	return formats.FromSortedCoords(shape, idx, val, f)
}

// buildTensor stores entries in f: without copying when they come in f's
// storage order with no coordinate twice, else sorted (and duplicates
// summed) first.
func buildTensor(shape []int, idx [][]int, val []float64, f formats.Format) (*formats.Tensor, error) {
	t, err := formats.FromSortedCoords(shape, idx, val, f)
	if !errors.Is(err, formats.ErrNotSorted) {
		return t, err
	}
	lay, err := f.Layout(len(shape))
	if err != nil {
		return nil, err
	}
	if ascending(idx, lay.ModeOrder) {
		// sorted but for coordinates stored twice: sum them in place
		idx, val = sumAdjacent(idx, val)
	} else {
		idx, val = sortSum(shape, lay.ModeOrder, idx, val)
	}
	return formats.FromSortedCoords(shape, idx, val, f)
}
