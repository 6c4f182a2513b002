package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// dv is a dictionary value inside a kernel: *hdict (built at run time),
// intArr and realArr (physical arrays, bound without copying), rangeV and
// subV (ranges and sub-arrays), or nil (the empty dictionary).
type dv any

type (
	intArr  []int
	realArr []float64
	rangeV  struct{ lo, hi int }
	// subV is the sub-array lo..hi-1 of an array, keyed by position.
	subV struct {
		ia     []int
		ra     []float64
		lo, hi int
	}
)

// dvLen returns the number of entries of v.
func dvLen(v dv) int {
	switch v := v.(type) {
	case *hdict:
		return v.Len()
	case intArr:
		return len(v)
	case realArr:
		return len(v)
	case rangeV:
		return max(v.hi-v.lo, 0)
	case subV:
		return max(v.hi-v.lo, 0)
	}
	return 0
}

// dvEntry returns the i-th entry of v: its key, and its value as a float
// (scalar leaves) or a dictionary.
func dvEntry(v dv, i int) (int, float64, dv) {
	switch v := v.(type) {
	case *hdict:
		k, p := v.entry(i)
		if v.t.isLeaf() {
			return k, v.f[p], nil
		}
		return k, 0, v.d[p]
	case intArr:
		return i, float64(v[i]), nil
	case realArr:
		return i, v[i], nil
	case rangeV:
		return v.lo + i, float64(v.lo + i), nil
	case subV:
		p := v.lo + i
		if v.ia != nil {
			return p, float64(v.ia[p]), nil
		}
		return p, v.ra[p], nil
	}
	panic("internal error: dvEntry")
}

func lookupF(v dv, k int) float64 {
	switch v := v.(type) {
	case *hdict:
		if !v.t.isLeaf() {
			return 0
		}
		return v.getF(k)
	case intArr:
		if uint(k) < uint(len(v)) {
			return float64(v[k])
		}
	case realArr:
		if uint(k) < uint(len(v)) {
			return v[k]
		}
	case rangeV:
		if k >= v.lo && k < v.hi {
			return float64(k)
		}
	case subV:
		if k >= v.lo && k < v.hi {
			if v.ia != nil {
				return float64(v.ia[k])
			}
			return v.ra[k]
		}
	}
	return 0
}

func lookupD(v dv, k int) dv {
	if d, ok := v.(*hdict); ok && !d.t.isLeaf() {
		if c := d.getD(k); c != nil {
			return c
		}
	}
	return nil
}

func subArray(x dv, lo, hi int, pos sdql.Pos) dv {
	var s subV
	n := 0
	switch a := x.(type) {
	case intArr:
		s.ia, n = a, len(a)
	case realArr:
		s.ra, n = a, len(a)
	case subV:
		s.ia, s.ra, n = a.ia, a.ra, a.hi
	default:
		panic(rtErrorf("%s: a sub-array needs a physical array", pos))
	}
	if lo < 0 || hi > n || lo > hi {
		panic(rtErrorf("%s: sub-array %d:%d out of range of an array of length %d", pos, lo, hi, n))
	}
	s.lo, s.hi = lo, hi
	return s
}

// addDV adds s * v into dst.
func addDV(dst *hdict, v dv, s float64) {
	if v == nil {
		return
	}
	if h, ok := v.(*hdict); ok {
		dst.addDict(h, s)
		return
	}
	if a, ok := v.(realArr); ok && addArr(dst, a, s) {
		return
	}
	n := dvLen(v)
	for i := 0; i < n; i++ {
		k, x, _ := dvEntry(v, i)
		dst.addF(k, s*x)
	}
}

// outerInto adds s * (x ⊗ y) into dst for dictionaries x and y (Fig. 4:
// {k -> x(k) ⊗ y}).
func outerInto(dst *hdict, x, y dv, s float64) {
	n := dvLen(x)
	h, nested := x.(*hdict)
	nested = nested && !h.t.isLeaf()
	for i := 0; i < n; i++ {
		k, f, c := dvEntry(x, i)
		child := dst.child(k)
		if !nested {
			addDV(child, y, s*f)
		} else if c != nil {
			outerInto(child, c, y, s)
		}
	}
}

// oneHotInto adds s * onehot[tensor n] x into dst (Fig. 7): the identity
// over x's stored positions.
func oneHotInto(dst *hdict, x dv, n int, s float64) {
	oneHotRec(dst, x, n, make([]int, 0, n), s)
}

func oneHotRec(dst *hdict, v dv, n int, idx []int, s float64) {
	if len(idx) == n {
		d := dst
		for _, k := range idx {
			d = d.child(k)
		}
		for i, k := range idx {
			if i == n-1 {
				d.addF(k, s)
			} else {
				d = d.child(k)
			}
		}
		return
	}
	m := dvLen(v)
	for i := 0; i < m; i++ {
		k, _, c := dvEntry(v, i)
		oneHotRec(dst, c, n, append(idx, k), s)
	}
}

// toDV converts an input value to a kernel value; t describes it when it
// is a dictionary.
func toDV(v sdql.Value, t *dictType) dv {
	switch v := v.(type) {
	case sdql.IntArray:
		return intArr(v)
	case sdql.RealArray:
		return realArr(v)
	case sdql.Range:
		return rangeV{v.Lo, v.Hi}
	case sdql.SubArray:
		switch a := v.Arr.(type) {
		case sdql.IntArray:
			return subV{ia: a, lo: v.Lo, hi: v.Hi}
		case sdql.RealArray:
			return subV{ra: a, lo: v.Lo, hi: v.Hi}
		}
	case *sdql.Dict:
		if v.Len() == 0 {
			return nil
		}
		if t == nil {
			return nil
		}
		d := newHDict(t)
		fillHDict(d, v)
		return d
	}
	return nil
}

func fillHDict(d *hdict, v sdql.Value) {
	sdql.Entries(v, func(k int, x sdql.Value) bool {
		switch x := x.(type) {
		case sdql.Real:
			d.addF(k, float64(x))
		case sdql.Int:
			d.addF(k, float64(x))
		case sdql.Bool:
			if x {
				d.addF(k, 1)
			} else {
				d.addF(k, 0)
			}
		default:
			if d.t.isLeaf() {
				d.addF(k, 0)
			} else {
				fillHDict(d.child(k), x)
			}
		}
		return true
	})
}

// toValue converts a kernel dictionary to an sdql value.
func toValue(v dv) sdql.Value {
	out := sdql.NewDict()
	switch h := v.(type) {
	case nil:
		return out
	case *hdict:
		n := h.Len()
		for i := 0; i < n; i++ {
			k, p := h.entry(i)
			var x sdql.Value
			if h.t.isLeaf() {
				x = leafValue(h.t.leaf, h.f[p])
			} else if c := h.d[p]; c != nil {
				x = toValue(c)
			} else {
				x = sdql.NewDict()
			}
			if old, ok := out.Get(k); ok {
				x = sdql.Add(old, x)
			}
			out.Set(k, x)
		}
		return out
	}
	n := dvLen(v)
	for i := 0; i < n; i++ {
		k, f, _ := dvEntry(v, i)
		if _, ok := v.(realArr); ok {
			out.Set(k, sdql.Real(f))
		} else if s, ok := v.(subV); ok && s.ra != nil {
			out.Set(k, sdql.Real(f))
		} else {
			out.Set(k, sdql.Int(int(f)))
		}
	}
	return out
}

func leafValue(k kind, f float64) sdql.Value {
	switch k {
	case kInt:
		return sdql.Int(int(f))
	case kBool:
		return sdql.Bool(f != 0)
	}
	return sdql.Real(f)
}
