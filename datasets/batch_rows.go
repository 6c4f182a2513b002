package datasets

import (
	"errors"
	"fmt"
	"io"
	"maps"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// Grouped results as rows
//
// A grouped job whose step gives each group's result as rows of columns
// of its own (Job.RowStep and Job.Columns: a grouped fit's parameters,
// each entry a row, with the group's loss and iterations) writes them as
// a tensor job writes its tensors: the key column first, a group's rows
// together, the groups in key order, through the journal (so --resume
// keeps finished groups). Only the columns differ, and an output read
// back to resume is copied row by row instead of as tensors.

// RowsSchema is the schema of a grouped table of rows: the key column,
// then columns, with meta as its metadata.
func RowsSchema(key *arrow.Field, columns []arrow.Field, meta map[string]string) *arrow.Schema {
	fields := append([]arrow.Field{{Name: key.Name, Type: key.Type}}, columns...)
	md := arrow.MetadataFrom(meta)
	return arrow.NewSchema(fields, &md)
}

// keyedRecord is rec (of the schema's columns after the key) with the
// key column first.
func keyedRecord(schema *arrow.Schema, key Key, rec arrow.RecordBatch) (arrow.RecordBatch, error) {
	if int(rec.NumCols())+1 != len(schema.Fields()) {
		return nil, fmt.Errorf("internal error: datasets: a group's rows have %d columns, the table %d after its key", rec.NumCols(), len(schema.Fields())-1)
	}
	for i, f := range rec.Schema().Fields() {
		if want := schema.Field(i + 1); f.Name != want.Name || !arrow.TypeEqual(f.Type, want.Type) {
			return nil, fmt.Errorf("internal error: datasets: a group's column %d is %s %s, the table's %s %s", i, f.Name, f.Type, want.Name, want.Type)
		}
	}
	n := int(rec.NumRows())
	k := keyArray(schema.Field(0).Type, key, n)
	defer k.Release()
	cols := append([]arrow.Array{k}, rec.Columns()...)
	return array.NewRecordBatch(schema, cols, int64(n)), nil
}

// writeRows appends a group's rows (without the key column) to the
// journal and returns their number.
func (j *journal) writeRows(key Key, rec arrow.RecordBatch) (int64, error) {
	kr, err := keyedRecord(j.schema, key, rec)
	if err != nil {
		return 0, err
	}
	defer kr.Release()
	if err := j.write(key, kr, nil); err != nil {
		return 0, err
	}
	return kr.NumRows(), nil
}

// copyRowsOutput copies the groups of an earlier finished output of rows:
// each run of rows with one key, but those of groups already kept.
func (j *journal) copyRowsOutput(out string) error {
	t, err := openTable(out)
	if err != nil {
		return err
	}
	defer t.close()
	md := arrow.MetadataFrom(t.meta)
	if err := j.compatible(out, arrow.NewSchema(t.schema.Fields(), &md)); err != nil {
		return err
	}
	cols := make([]int, len(t.schema.Fields()))
	for i := range cols {
		cols[i] = i
	}
	br, err := t.batches(cols, nil)
	if err != nil {
		return err
	}
	defer br.close()
	kept := maps.Clone(j.done) // a group's rows may span batches
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		rec := b.rec
		keys := rec.Column(0)
		n := int(rec.NumRows())
		for lo := 0; lo < n; {
			k, ok := keyAt(keys, lo)
			if !ok {
				return tableErrorf(out, j.schema.Field(0).Name, b.row+int64(lo), "null key")
			}
			hi := lo + 1
			for hi < n {
				if k2, ok := keyAt(keys, hi); !ok || k2 != k {
					break
				}
				hi++
			}
			if !kept[k] {
				part := rec.NewSlice(int64(lo), int64(hi))
				plain := array.NewRecordBatch(j.schema, part.Columns(), part.NumRows())
				err := j.write(k, plain, nil)
				plain.Release()
				part.Release()
				if err != nil {
					return err
				}
			}
			lo = hi
		}
		rec.Release()
	}
}

// CreateRowsTable starts a grouped table of rows (RowsSchema) at out, as
// CreateGroupTable does for tensors: for writers whose groups come from
// elsewhere (nablasd-beam's shards of a grouped fit).
func CreateRowsTable(out string, key arrow.Field, columns []arrow.Field, meta map[string]string) (*GroupTable, error) {
	md := maps.Clone(meta)
	if md == nil {
		md = map[string]string{}
	}
	md[MetaKey] = key.Name
	jr, err := createJournal(out, RowsSchema(&key, columns, md), false, true)
	if err != nil {
		return nil, err
	}
	return &GroupTable{jr: jr, out: out}, nil
}

// WriteRows appends a group's rows (the columns after the key) to a table
// made by CreateRowsTable, in any key order; each key at most once.
func (g *GroupTable) WriteRows(key Key, rec arrow.RecordBatch) (int64, error) {
	n, err := g.jr.writeRows(key, rec)
	g.rows += n
	return n, err
}
