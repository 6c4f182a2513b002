package legacyexec

import "fmt"

// kind is the run-time class of a scalar or dictionary.
type kind uint8

const (
	kReal kind = iota
	kInt
	kBool
	kDict
)

// dictType describes the shape of the dictionaries built for one
// dictionary type: the kind of its leaves or its children's type, and how
// its levels are stored.
type dictType struct {
	leaf  kind      // kReal, kInt or kBool when the values are scalars; kDict otherwise
	child *dictType // the type of the values when leaf == kDict
	index string    // Options.Dict
	// noDense makes every level hashed (the paper's dictionary variant).
	noDense bool
	// limit is Options.MemoryLimit (0: none).
	limit int64
}

func (t *dictType) isLeaf() bool { return t.leaf != kDict }

// Storage modes of a dictionary.
const (
	modeHash  uint8 = iota // keys in insertion order, parallel values, index
	modeDense              // values indexed by key, presence bits, touched keys (a sparse accumulator)
	modeFull               // values indexed by key, every key 0..len-1 present
)

// linearMax is the size up to which a hashed dictionary finds keys by a
// linear scan instead of an index.
const linearMax = 8

// denseMin is the extent a growable dense dictionary may always reach (and
// beyond it, 8 times its number of keys) before it turns into a hashed one.
const denseMin = 1 << 21

// hdict is a dictionary built at run time: a semi-ring dictionary with int
// keys and either scalar leaves (f, reals, ints and bools as float64) or
// child dictionaries (d). It is a destination (addF, setF, child) and a
// value (get, each) at once, and keeps every key written to it.
type hdict struct {
	t    *dictType
	mode uint8
	// grow allows a dense dictionary to grow on demand (its extent was not
	// known when it was made).
	grow bool
	keys []int
	f    []float64
	d    []*hdict
	pres []bool
	idx  index
	im   *intMap // idx when it is an *intMap, to avoid the interface call
}

func newHDict(t *dictType) *hdict { return &hdict{t: t} }

// initDense makes an empty dictionary dense with extent n; full marks every
// key 0..n-1 present (a destination whose extent is known).
func (d *hdict) initDense(n int, full, grow bool) {
	if d.t.noDense && !full {
		return
	}
	if d.t.limit > 0 && (cap(d.f) < n || !d.t.isLeaf() && cap(d.d) < n) {
		checkGrowth(d.t.limit, float64(n)*8, func() string { return fmt.Sprintf("a dense level of %d keys", n) })
	}
	if full {
		d.mode = modeFull
	} else {
		d.mode = modeDense
	}
	d.grow = grow
	if d.t.isLeaf() {
		if cap(d.f) >= n {
			d.f = d.f[:n]
			clear(d.f)
		} else {
			d.f = make([]float64, n)
		}
	} else {
		if cap(d.d) >= n {
			d.d = d.d[:n]
		} else {
			d.d = append(d.d[:cap(d.d)], make([]*hdict, n-cap(d.d))...)
		}
		for _, c := range d.d {
			if c != nil {
				c.reset()
			}
		}
	}
	if !full {
		if cap(d.pres) >= n {
			d.pres = d.pres[:n]
			clear(d.pres)
		} else {
			d.pres = make([]bool, n)
		}
	} else {
		d.pres = nil
	}
	d.keys = d.keys[:0]
}

// reset empties the dictionary, keeping its storage (and its children, for
// reuse) so that refilling it does not allocate.
func (d *hdict) reset() {
	switch d.mode {
	case modeFull:
		if d.t.isLeaf() {
			clear(d.f)
		} else {
			for _, c := range d.d {
				if c != nil {
					c.reset()
				}
			}
		}
	case modeDense:
		if d.t.isLeaf() {
			for _, k := range d.keys {
				d.f[k] = 0
				d.pres[k] = false
			}
		} else {
			for _, k := range d.keys {
				d.d[k].reset()
				d.pres[k] = false
			}
		}
		d.keys = d.keys[:0]
	default:
		d.keys = d.keys[:0]
		d.f = d.f[:0]
		for _, c := range d.d {
			c.reset()
		}
		d.d = d.d[:0]
		if d.idx != nil {
			d.idx.clear()
		}
	}
}

// Len returns the number of keys stored.
func (d *hdict) Len() int {
	switch d.mode {
	case modeFull:
		if d.t.isLeaf() {
			return len(d.f)
		}
		return len(d.d)
	}
	return len(d.keys)
}

// find returns the position of k in a hashed dictionary, or -1.
func (d *hdict) find(k int) int {
	if d.im != nil {
		return d.im.get(k)
	}
	if d.idx != nil {
		return d.idx.get(k)
	}
	for i, kk := range d.keys {
		if kk == k {
			return i
		}
	}
	return -1
}

// appendKey adds a new key to a hashed dictionary and returns its position.
func (d *hdict) appendKey(k int) int {
	n := len(d.keys)
	if d.t.limit > 0 && n >= 1024 && n&(n-1) == 0 {
		// growing to 2n keys takes new arrays beside the old ones
		checkGrowth(d.t.limit, float64(n)*2*hashedEntryBytes, func() string { return fmt.Sprintf("a dictionary of %d keys and growing", n) })
	}
	d.keys = append(d.keys, k)
	if d.idx != nil {
		d.idx.put(k, n)
	} else if n+1 > linearMax {
		d.idx = newIndex(d.t.index, 2*(n+1))
		if im, ok := d.idx.(*intMap); ok {
			d.im = im
		}
		for i, kk := range d.keys {
			d.idx.put(kk, i)
		}
	}
	return n
}

// dense reports whether k can be stored densely, growing the dictionary
// when allowed; it turns a dictionary that cannot grow far enough into a
// hashed one and then reports false.
func (d *hdict) dense(k int) bool {
	if d.mode == modeHash {
		return false
	}
	n := len(d.f)
	if !d.t.isLeaf() {
		n = len(d.d)
	}
	if uint(k) < uint(n) {
		return true
	}
	if d.grow && k >= 0 && (k < denseMin || k < 8*(d.Len()+1)) && (d.t.limit == 0 || fitsGrowth(d.t.limit, float64(max(2*n, k+1, 64))*9)) {
		m := max(2*n, k+1, 64)
		if d.t.isLeaf() {
			d.f = append(d.f, make([]float64, m-n)...)
		} else {
			d.d = append(d.d, make([]*hdict, m-n)...)
		}
		d.pres = append(d.pres, make([]bool, m-n)...)
		return true
	}
	if d.mode == modeFull {
		panic(rtErrorf("key %d out of range 0..%d of a dense result", k, n-1))
	}
	d.toHash()
	return false
}

// toHash converts a dense dictionary into a hashed one.
func (d *hdict) toHash() {
	keys := append([]int(nil), d.keys...)
	leaf := d.t.isLeaf()
	var f []float64
	var c []*hdict
	for _, k := range keys {
		if leaf {
			f = append(f, d.f[k])
		} else {
			c = append(c, d.d[k])
		}
	}
	d.mode = modeHash
	d.keys, d.f, d.d, d.pres = d.keys[:0], f, c, nil
	if d.idx != nil {
		d.idx.clear()
	}
	for _, k := range keys {
		d.appendKey(k)
	}
}

// addF adds v at k (a leaf dictionary).
func (d *hdict) addF(k int, v float64) {
	if d.mode != modeHash && d.dense(k) {
		if d.pres != nil && !d.pres[k] {
			d.pres[k] = true
			d.keys = append(d.keys, k)
		}
		if d.t.leaf == kBool {
			d.f[k] = or(d.f[k], v)
			return
		}
		d.f[k] += v
		return
	}
	if i := d.find(k); i >= 0 {
		if d.t.leaf == kBool {
			d.f[i] = or(d.f[i], v)
			return
		}
		d.f[i] += v
		return
	}
	d.appendKey(k)
	d.f = append(d.f, v)
}

// or is the semi-ring addition of bools stored as 0 and 1.
func or(a, b float64) float64 {
	if a != 0 || b != 0 {
		return 1
	}
	return 0
}

// setF stores v at a key k that the program promises is new (unique).
func (d *hdict) setF(k int, v float64) {
	if d.mode != modeHash && d.dense(k) {
		if d.pres != nil && !d.pres[k] {
			d.pres[k] = true
			d.keys = append(d.keys, k)
		}
		d.f[k] = v
		return
	}
	if d.idx != nil || len(d.keys) >= linearMax {
		if i := d.find(k); i >= 0 { // the promise was broken: stay a function
			d.f[i] += v
			return
		}
	}
	d.appendKey(k)
	d.f = append(d.f, v)
}

// child returns the child dictionary at k, creating it empty.
func (d *hdict) child(k int) *hdict {
	if d.mode != modeHash && d.dense(k) {
		c := d.d[k]
		if c == nil {
			c = d.newChild()
			d.d[k] = c
		}
		if d.pres != nil && !d.pres[k] {
			d.pres[k] = true
			d.keys = append(d.keys, k)
		}
		return c
	}
	if i := d.find(k); i >= 0 {
		return d.d[i]
	}
	d.appendKey(k)
	if len(d.d) < cap(d.d) {
		d.d = d.d[:len(d.d)+1]
		if c := d.d[len(d.d)-1]; c != nil {
			return c // reused, already reset
		}
	} else {
		d.d = append(d.d, nil)
	}
	c := d.newChild()
	d.d[len(d.d)-1] = c
	return c
}

func (d *hdict) newChild() *hdict {
	return &hdict{t: d.t.child}
}

// getF returns the leaf value at k (0 when missing).
func (d *hdict) getF(k int) float64 {
	if d.mode != modeHash {
		if uint(k) < uint(len(d.f)) {
			return d.f[k]
		}
		return 0
	}
	if i := d.find(k); i >= 0 {
		return d.f[i]
	}
	return 0
}

// getD returns the child at k, or nil when k is missing.
func (d *hdict) getD(k int) *hdict {
	if d.mode != modeHash {
		if uint(k) < uint(len(d.d)) && (d.pres == nil || d.pres[k]) {
			return d.d[k]
		}
		return nil
	}
	if i := d.find(k); i >= 0 {
		return d.d[i]
	}
	return nil
}

// has reports whether k is stored.
func (d *hdict) has(k int) bool {
	switch d.mode {
	case modeFull:
		return k >= 0 && k < d.Len()
	case modeDense:
		return uint(k) < uint(len(d.pres)) && d.pres[k]
	}
	return d.find(k) >= 0
}

// entry returns the i-th stored key (0 <= i < Len) and its position in f
// or d: the iteration order of the dictionary.
func (d *hdict) entry(i int) (key, pos int) {
	switch d.mode {
	case modeFull:
		return i, i
	case modeDense:
		k := d.keys[i]
		return k, k
	}
	return d.keys[i], i
}

// addDict adds s * src into d (semi-ring addition of dictionaries).
func (d *hdict) addDict(src *hdict, s float64) {
	n := src.Len()
	leaf := src.t.isLeaf()
	for i := 0; i < n; i++ {
		k, p := src.entry(i)
		if leaf {
			d.addF(k, s*src.f[p])
		} else {
			c := src.d[p]
			if c == nil {
				d.child(k)
				continue
			}
			d.child(k).addDict(c, s)
		}
	}
}
