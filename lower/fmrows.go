package lower

import "sync"

// fmRows holds a system of constraints for the Fourier–Motzkin
// elimination (fm.go) as dense rows: the system's atoms numbered 0..n-1
// in ascending order, each constraint Σ kⱼ·atomⱼ + c ≥ 0 stored as its n
// coefficients, its constant and whether it derives from the goal (1 or
// 0: infeasibleWith), one row of w = n + 2 numbers after the other in a
// flat slice. Its buffers are reused from elimination to elimination
// (fmPool): a query allocates nothing once they have grown.
type fmRows struct {
	atoms []int  // the atoms of the columns, ascending
	kept  []bool // by column: an atom the elimination keeps
	w     int    // the width of a row: len(atoms) + 2
	// rows is the system as given; cur and next the elimination's
	// current system and the one its step builds
	rows, cur, next []int64
	pos, neg        []int // a step's rows with a positive, negative coefficient
	// table is normalize's hash table of rows by their coefficients:
	// a row's start plus one, 0 for an empty slot (open addressing)
	table []int32
}

// fmPool keeps fmRows for reuse.
var fmPool = sync.Pool{New: func() any { return new(fmRows) }}

// newFMRows lays out the forms sys over their (sorted) atoms, those from
// sys[goal] on marked as the goal's, in an fmRows of fmPool (to be put
// back).
func newFMRows(sys []lin, goal int) *fmRows {
	m := fmPool.Get().(*fmRows)
	atoms := sortedAtoms(m.atoms[:0], sys)
	m.atoms, m.w = atoms, len(atoms)+2
	m.kept = zeroed(m.kept, len(atoms))
	m.rows = zeroed(m.rows, len(sys)*m.w)
	for i, f := range sys {
		row := m.rows[i*m.w : (i+1)*m.w]
		j := 0
		for _, t := range f.ts {
			for atoms[j] != t.a {
				j++
			}
			row[j] = t.k
		}
		row[len(atoms)] = f.c
		if i >= goal {
			row[len(atoms)+1] = 1
		}
	}
	return m
}

// normalize is normalizeSystem's work on rows: every constraint
// tightened (its coefficients divided by their gcd, the constant rounded
// down), those that always hold dropped (no coefficient, a constant ≥ 0),
// and of constraints with the same coefficients the strongest kept (the
// least constant; of equal ones, one not derived from the goal), in the
// order of their first occurrence; derived counts the goal's. feasible is
// false when a constraint can never hold (no coefficient, a constant
// below 0) or two cannot hold together (f ≥ 0 and −f + c ≥ 0 with
// c < 0): found by the elimination too, but cheaply here. The result is
// appended to dst[:0], which must not share memory with sys (and is
// returned empty when infeasible); sys's rows are tightened in place.
func (m *fmRows) normalize(sys, dst []int64) (out []int64, derived int, feasible bool) {
	w, n := m.w, m.w-2
	if cap(dst) < len(sys) {
		dst = make([]int64, 0, len(sys))
	}
	out = dst[:0]
	fail := func() ([]int64, int, bool) { return out[:0], 0, false }
	size := 16
	for size < 2*len(sys)/w {
		size *= 2
	}
	if cap(m.table) < size {
		m.table = make([]int32, size)
	}
	table := m.table[:size]
	clear(table)
	mask := uint64(size - 1)
	for r := 0; r < len(sys); r += w {
		row := sys[r : r+w]
		g := int64(0)
		for _, k := range row[:n] {
			if k != 0 {
				g = gcd64(g, k)
			}
		}
		if g == 0 {
			if row[n] < 0 {
				return fail()
			}
			continue
		}
		if g > 1 { // tightened in place: sys is the caller's scratch
			for j := range row[:n] {
				row[j] /= g
			}
			row[n] = floorDiv(row[n], g)
		}
		c := row[n]
		// find the row with the same coefficients
		for h := hashRow(row[:n], 1); ; h++ {
			slot := &table[h&mask]
			if *slot == 0 {
				*slot = int32(len(out) + 1)
				out = append(out, row...)
				break
			}
			if i := int(*slot - 1); sameRow(out[i:i+n], row[:n], 1) {
				if c < out[i+n] || c == out[i+n] && row[n+1] < out[i+n+1] {
					out[i+n], out[i+n+1] = c, row[n+1]
				}
				break
			}
		}
	}
	for i := 0; i < len(out); i += w {
		derived += int(out[i+n+1])
		for h := hashRow(out[i:i+n], -1); ; h++ {
			slot := table[h&mask]
			if slot == 0 {
				break
			}
			if j := int(slot - 1); sameRow(out[j:j+n], out[i:i+n], -1) {
				if out[i+n]+out[j+n] < 0 {
					return fail()
				}
				break
			}
		}
	}
	return out, derived, true
}

// hashRow hashes the coefficients row·sign, sign ±1 (FNV-1a over
// their words).
func hashRow(row []int64, sign int64) uint64 {
	h := uint64(14695981039346656037)
	for _, k := range row {
		h ^= uint64(sign * k)
		h *= 1099511628211
	}
	return h
}

// sameRow reports whether a equals row·sign.
func sameRow(a, row []int64, sign int64) bool {
	for j, k := range row {
		if a[j] != sign*k {
			return false
		}
	}
	return true
}

// zeroed is s resized to n zero entries, its memory reused when it has
// room.
func zeroed[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

// forms reads rows back as forms (over the atoms of m's columns).
func (m *fmRows) forms(rows []int64) []lin {
	out := make([]lin, 0, len(rows)/m.w)
	for r := 0; r < len(rows); r += m.w {
		f := lin{c: rows[r+m.w-2]}
		for j, k := range rows[r : r+m.w-2] {
			if k != 0 {
				f.ts = append(f.ts, lterm{m.atoms[j], k})
			}
		}
		out = append(out, f)
	}
	return out
}
