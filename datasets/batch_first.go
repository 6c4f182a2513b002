package datasets

import (
	"errors"
	"io"
)

// The first group alone
//
// A caller that wants only a table's first group (nablasd-beam compiles
// its kernel for it, as the single-machine job compiles for its first
// group) need not sort a table that is not sorted by its key
// (GroupOptions.FirstOnly): one pass over it, in file order, gathers the
// rows of its smallest key, converted and checked as the sort's are. They
// come in file order, as the sort hands them out, so the group's tensor
// is the same to the bit. Only that group can be read: Next gives io.EOF
// after it.

// firstRows is the first group of an unsorted input (FirstOnly).
type firstRows struct {
	key    Key
	rows   int64 // its table rows, markers included
	e      *entries
	handed bool // advance has handed it out
}

// gatherFirst reads the input once and keeps the rows of its smallest
// key.
func gatherFirst(gi *groupedInput) (*firstRows, error) {
	c := gi.cols
	br, err := gi.t.batches(c.fields(), nil) // file order, as the sort's
	if err != nil {
		return nil, err
	}
	defer br.close()
	var f *firstRows
	reset := func(k Key) {
		f = &firstRows{key: k, e: &entries{idx: make([][]int, c.order()), max: make([]int, c.order()), owned: true}}
		for m := range f.e.max {
			f.e.max[m] = -1
		}
	}
	buf := &runBuffer{idx: make([][]int, c.order())}
	for {
		b, err := br.next()
		if errors.Is(err, io.EOF) {
			return f, nil
		}
		if err != nil {
			return nil, err
		}
		buf.reset()
		if err := gi.gather(buf, b); err != nil {
			return nil, err
		}
		j := 0 // the buffer's entry of row r (markers have none)
		for r, k := range buf.keys {
			if f == nil || k.Compare(f.key) < 0 {
				reset(k)
			}
			marker := buf.marker[r]
			if k == f.key {
				f.rows++
				if marker {
					f.e.markers++
				} else {
					for m := range f.e.idx {
						x := buf.idx[m][j]
						f.e.idx[m] = append(f.e.idx[m], x)
						f.e.max[m] = max(f.e.max[m], x)
					}
					f.e.val = append(f.e.val, buf.val[j])
				}
			}
			if !marker {
				j++
			}
		}
	}
}

// advanceFirst is advance for an input read by gatherFirst: its first
// group, then nothing.
func (gi *groupedInput) advanceFirst() {
	f := gi.first
	if f == nil || f.handed {
		gi.head = nil
		return
	}
	f.handed = true
	gi.head = &run{key: f.key, rows: f.rows}
}

// takeFirst is take for an input read by gatherFirst.
func (gi *groupedInput) takeFirst(n int64, build bool) (*TableTensor, error) {
	if !build {
		return nil, nil
	}
	if n == 0 {
		return gi.empty()
	}
	e := gi.first.e
	gi.first.e = nil
	c := gi.cols
	if c.order() == 0 && len(e.val) == 0 {
		return &TableTensor{Meta: gi.t.meta}, nil
	}
	return c.tensor(e, gi.format, gi.t.meta)
}
