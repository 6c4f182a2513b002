package datasets

import (
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
// as every input has moved past its key. A table sorted by the key (ORDER
// BY the key column; a first pass over the key column tells) is read as
// it is; one that is not is sorted first, by an external merge sort in
// temporary files, in memory bounded by GroupOptions.SortMemory
// (batch_spill.go). So the memory a job holds is its largest group and
// its shared inputs, plus one record batch of each input (or the sort's
// buffers), not the tables.
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

// OpenGroups opens the inputs of a job grouped by the column key. Inputs
// without that column are read whole (ReadTable) and shared. At least one
// input must have it, of the same type in every input that has it. The
// caller must Close the Groups. It is OpenGroupsWith with the default
// options.
func OpenGroups(key string, inputs []GroupInput) (*Groups, error) {
	return OpenGroupsWith(key, inputs, nil)
}

// OpenGroupsWith is OpenGroups with options: where and in how much memory
// an input not sorted by the key is sorted (nil: the defaults).
func OpenGroupsWith(key string, inputs []GroupInput, o *GroupOptions) (_ *Groups, err error) {
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
		if err := gi.start(o); err != nil {
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

// Sorted returns the grouped inputs that were not sorted by the key, and
// were sorted in temporary files, and the bytes written there.
func (g *Groups) Sorted() (names []string, bytes int64) {
	for _, gi := range g.grouped {
		if gi.sp != nil {
			names = append(names, gi.in.Name)
			bytes += gi.sp.bytes
		}
	}
	return names, bytes
}

// Close closes the input files.
func (g *Groups) Close() {
	for _, gi := range g.grouped {
		gi.close()
	}
}

// Next returns the next group in key order, or io.EOF after the last.
// Groups whose key skip reports true are read past without building their
// tensors (and returned with Inputs nil); skip may be nil.
func (g *Groups) Next(skip func(Key) bool) (*Group, error) {
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
		var rows int64
		if gi.head != nil && gi.head.key == grp.Key {
			rows = gi.head.rows
			grp.Rows += rows
		}
		tt, err := gi.take(rows, !skipped)
		if err != nil {
			return nil, err
		}
		if !skipped {
			grp.Inputs[gi.in.Name] = tt
		}
		if rows > 0 {
			if err := gi.advance(); err != nil {
				return nil, err
			}
		}
	}
	return grp, nil
}
