// The runtime source the Go code generator copies into generated files:
// the int-keyed map and the growable vector.

package legacyexec

// goMapRuntime is the int-keyed map of generated kernels: open addressing
// with linear probing over slots holding entry indices; entries in
// insertion order. MAP is replaced by the type's name.
const goMapRuntime = `
// MAP is an int-keyed map of reals: entries Keys[i] -> Vals[i], in
// insertion order. The zero value is empty.
type MAP struct {
	Keys  []int
	Vals  []float64
	slots []int32 // 1 + the entry in each slot, 0 when free; len a power of two
	shift uint
}

func (m *MAP) slot(k int) int {
	return int(uint64(k) * 0x9E3779B97F4A7C15 >> m.shift)
}

// Add adds v at k.
func (m *MAP) Add(k int, v float64) {
	if len(m.slots) == 0 {
		m.index()
	}
	mask := len(m.slots) - 1
	h := m.slot(k)
	for {
		e := m.slots[h]
		if e == 0 {
			break
		}
		if m.Keys[e-1] == k {
			m.Vals[e-1] += v
			return
		}
		h = (h + 1) & mask
	}
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, v)
	m.slots[h] = int32(len(m.Keys))
	if 2*len(m.Keys) > len(m.slots) {
		m.grow()
	}
}

func (m *MAP) grow() {
	m.slots = make([]int32, 2*len(m.slots))
	m.shift--
	mask := len(m.slots) - 1
	for i, k := range m.Keys {
		h := m.slot(k)
		for m.slots[h] != 0 {
			h = (h + 1) & mask
		}
		m.slots[h] = int32(i + 1)
	}
}

// Append adds the entry k -> v for a key k not in m; the entries are
// indexed by the next Add or Get.
func (m *MAP) Append(k int, v float64) {
	m.Keys = append(m.Keys, k)
	m.Vals = append(m.Vals, v)
	m.slots = m.slots[:0]
}

// AppendDense adds the entries k -> w[k] for the distinct keys, none in m;
// they are indexed by the next Add or Get.
func (m *MAP) AppendDense(keys []int, w []float64) {
	m.Keys = append(m.Keys, keys...)
	vals := m.Vals
	for _, k := range keys {
		vals = append(vals, w[k])
	}
	m.Vals = vals
	m.slots = m.slots[:0]
}

// index sizes the slots for the entries (and one more) and fills them.
func (m *MAP) index() {
	n, shift := 8, uint(61)
	for n < 2*len(m.Keys)+2 {
		n, shift = 2*n, shift-1
	}
	if cap(m.slots) >= n {
		m.slots = m.slots[:n]
		clear(m.slots)
	} else {
		m.slots = make([]int32, n)
	}
	m.shift = shift
	mask := n - 1
	for i, k := range m.Keys {
		h := m.slot(k)
		for m.slots[h] != 0 {
			h = (h + 1) & mask
		}
		m.slots[h] = int32(i + 1)
	}
}

// Get returns the value at k (0 when absent).
func (m *MAP) Get(k int) float64 {
	if len(m.slots) == 0 {
		if len(m.Keys) == 0 {
			return 0
		}
		m.index()
	}
	mask := len(m.slots) - 1
	for h := m.slot(k); ; h = (h + 1) & mask {
		e := m.slots[h]
		if e == 0 {
			return 0
		}
		if m.Keys[e-1] == k {
			return m.Vals[e-1]
		}
	}
}

// Reset empties the map, keeping its storage.
func (m *MAP) Reset() {
	if 4*len(m.Keys) < len(m.slots) {
		mask := len(m.slots) - 1
		for _, k := range m.Keys {
			h := m.slot(k)
			for m.slots[h] == 0 || m.Keys[m.slots[h]-1] != k {
				h = (h + 1) & mask
			}
			m.slots[h] = 0
		}
	} else {
		clear(m.slots)
	}
	m.Keys, m.Vals = m.Keys[:0], m.Vals[:0]
}
`

// goVecRuntime holds the growable dense locals of generated kernels.
const goVecRuntime = `
// FNGrow returns v extended with zeros to cover index k.
func FNGrow(v []float64, k int) []float64 {
	if k < 0 {
		panic("FN: a negative key")
	}
	return append(v, make([]float64, max(k+1, 2*len(v))-len(v))...)
}

// FNAt returns v[k], 0 beyond v.
func FNAt(v []float64, k int) float64 {
	if uint(k) < uint(len(v)) {
		return v[k]
	}
	return 0
}
`

// goCSRRuntime is the matrix destination of GoCSR kernels; MATRIX is
// replaced by its name.
const goCSRRuntime = `
// MATRIX is a matrix in compressed sparse rows: row k holds the entries
// Idx[q] -> Val[q] for q in Pos[k]:Pos[k+1].
type MATRIX struct {
	Pos []int
	Idx []int
	Val []float64
	// counted is the bound on the entries for which the kernel last
	// counted them exactly to size Idx and Val (0: never).
	counted int
}
`
