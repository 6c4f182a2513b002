package legacyexec

import (
	"slices"
	"sort"
)

// Entries calls f for every stored leaf of a tensor result (order >= 1)
// with its keys, outermost first, in ascending order, and its value, until
// f returns false; coords is reused between calls. Leaves with the same
// keys are added, as Value adds them. It reads the destination in place:
// besides it, it holds at most one level's keys of one dictionary (to sort
// a hashed level) or one row of a flat matrix result at a time, so writing
// a result takes memory in proportion to the result only.
func (r *Result) Entries(f func(coords []int, v float64) bool) error {
	if r.k != kDict {
		return errNotTensor
	}
	if r.seg != nil {
		r.seg.entries(f)
		return nil
	}
	coords := make([]int, 0, 8)
	if r.dict != nil {
		r.dict.entries(coords, f)
	}
	return nil
}

// entries walks a dictionary in ascending key order; it returns false when
// f stopped the walk.
func (d *hdict) entries(coords []int, f func([]int, float64) bool) bool {
	visit := func(k, p int) bool {
		if d.t.isLeaf() {
			return f(append(coords, k), d.f[p])
		}
		if c := d.d[p]; c != nil {
			return c.entries(append(coords, k), f)
		}
		return true
	}
	switch d.mode {
	case modeFull:
		for k := 0; k < d.Len(); k++ {
			if !visit(k, k) {
				return false
			}
		}
	case modeDense:
		n := len(d.pres)
		if len(d.keys) < n/8 {
			// few keys in a wide array: sort them instead of scanning
			keys := slices.Clone(d.keys)
			slices.Sort(keys)
			for _, k := range keys {
				if !visit(k, k) {
					return false
				}
			}
			return true
		}
		for k := 0; k < n; k++ {
			if d.pres[k] && !visit(k, k) {
				return false
			}
		}
	default:
		order := make([]int, len(d.keys))
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(a, b int) bool { return d.keys[order[a]] < d.keys[order[b]] })
		for i := 0; i < len(order); i++ {
			p := order[i]
			if d.t.isLeaf() {
				// a key stored twice (a unique(...) claim the data broke)
				// is one entry, as in Value
				v := d.f[p]
				for ; i+1 < len(order) && d.keys[order[i+1]] == d.keys[p]; i++ {
					v += d.f[order[i+1]]
				}
				if !f(append(coords, d.keys[p]), v) {
					return false
				}
				continue
			}
			if !visit(d.keys[p], p) {
				return false
			}
		}
	}
	return true
}

// entries walks a flat matrix result row key by row key, ascending, each
// row's columns ascending with repeated ones added.
func (s *segResult) entries(f func([]int, float64) bool) {
	rows := make([]int, 0, s.hi-s.lo)
	for r := s.lo; r < s.hi; r++ {
		if s.rowOn == nil || s.rowOn[r] {
			rows = append(rows, r)
		}
	}
	key := func(r int) int {
		if s.rowKeys != nil {
			return s.rowKeys[r]
		}
		return r
	}
	if s.rowKeys != nil {
		sort.SliceStable(rows, func(a, b int) bool { return key(rows[a]) < key(rows[b]) })
	}
	type cell struct {
		col int
		v   float64
	}
	var row []cell
	coords := make([]int, 2)
	for i := 0; i < len(rows); {
		rk := key(rows[i])
		row = row[:0]
		for ; i < len(rows) && key(rows[i]) == rk; i++ {
			r := rows[i]
			if s.start == nil {
				ck := r
				switch {
				case s.sameKey:
					ck = rk
				case s.colKeys != nil:
					ck = s.colKeys[r]
				}
				row = append(row, cell{ck, s.vals[r]})
				continue
			}
			for q := s.start[r]; q < s.start[r+1]; q++ {
				row = append(row, cell{s.colKeys[q], s.vals[q]})
			}
		}
		if !slices.IsSortedFunc(row, func(a, b cell) int { return a.col - b.col }) {
			slices.SortStableFunc(row, func(a, b cell) int { return a.col - b.col })
		}
		for j := 0; j < len(row); {
			c, v := row[j].col, row[j].v
			for j++; j < len(row) && row[j].col == c; j++ {
				v += row[j].v
			}
			coords[0], coords[1] = rk, c
			if !f(coords, v) {
				return
			}
		}
	}
}

// Size returns the bytes a tensor result's storage takes: the capacity of
// its arrays and indexes (a Go map's or swiss index's at 16 bytes a key),
// children included; 0 for a scalar. It is what writing a result is
// measured against (bench's BenchmarkWriteResult).
func (r *Result) Size() int64 {
	if r.seg != nil {
		s := r.seg
		return 8*int64(cap(s.rowKeys)+cap(s.start)+cap(s.colKeys)+cap(s.vals)+cap(s.ws)) + int64(cap(s.rowOn))
	}
	if r.dict == nil {
		return 0
	}
	return r.dict.size()
}

func (d *hdict) size() int64 {
	n := 8*int64(cap(d.keys)+cap(d.f)+cap(d.d)) + int64(cap(d.pres))
	switch ix := d.idx.(type) {
	case *intMap:
		n += 16 * int64(cap(ix.slots))
	case nil:
	default:
		n += 16 * int64(len(d.keys))
	}
	for _, c := range d.d {
		if c != nil {
			n += c.size()
		}
	}
	return n
}
