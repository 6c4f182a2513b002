package datasets

import (
	"maps"

	"github.com/apache/arrow-go/v18/arrow"
)

// GroupTable writes groups' results to one table the way a Job writes its
// output: the key column first, a group's rows together (an empty group
// as one all-null marker row), the groups in key order, and the shape
// (the elementwise largest of the groups') and format in the metadata.
// It is for writers whose groups come from elsewhere, such as
// nablasd-beam's output shards: a shard written by a GroupTable holds the
// same rows, in the same order, and the same metadata, as a Job's output
// holds for those groups.
//
// Like a Job it appends the groups to a journal (OUT.partial) as they
// come, and Close writes the table (to a temporary file renamed when
// complete) and removes the journal.
type GroupTable struct {
	jr   *journal
	out  string
	rows int64
}

// CreateGroupTable starts a table of results of order order (0: scalars)
// keyed by the column key, at out (.parquet, .arrow or .arrows), with meta
// in its metadata (MetaKey is set to the key's name).
func CreateGroupTable(out string, key arrow.Field, order int, meta map[string]string) (*GroupTable, error) {
	md := maps.Clone(meta)
	if md == nil {
		md = map[string]string{}
	}
	md[MetaKey] = key.Name
	schema := TensorSchema(order, &arrow.Field{Name: key.Name, Type: key.Type}, md)
	jr, err := createJournal(out, schema, false, false)
	if err != nil {
		return nil, err
	}
	return &GroupTable{jr: jr, out: out}, nil
}

// Write appends a group's result, in any key order; each key at most
// once. It returns the group's rows (0 for an empty group).
func (g *GroupTable) Write(key Key, res *TableTensor) (int64, error) {
	n, err := g.jr.writeGroup(key, res)
	g.rows += n
	return n, err
}

// Rows returns the rows written so far (without empty groups' markers).
func (g *GroupTable) Rows() int64 { return g.rows }

// Groups returns the keys written so far, in the order written.
func (g *GroupTable) Groups() []Key { return g.jr.keys }

// Close writes the table in key order and removes the journal; on an
// error the table is not written.
func (g *GroupTable) Close() error {
	if err := g.jr.finish(g.out); err != nil {
		g.jr.remove()
		return err
	}
	return nil
}

// Abort removes the journal; nothing is written.
func (g *GroupTable) Abort() { g.jr.remove() }
