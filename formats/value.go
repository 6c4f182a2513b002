package formats

import "github.com/nablasd/nablasd/sdql"

// ToValue returns the tensor's logical dictionary, built directly from the
// container (not through its definition) but equal to the definition's
// value as a dictionary, the same keys at every level: {i -> v} for a
// vector, {i -> {j -> v}} for a matrix, nested once per mode, keys in
// logical mode order, every stored position present (explicit zeros
// included; the values of COO duplicates added).
//
// A level that stores its mode in logical order gives a key for each of
// its positions, whether or not anything is stored below it: a dense level
// has every coordinate of its mode, so an empty CSR row is the key i with
// the value {} and a 3×0 dense matrix is {0 -> {}, 1 -> {}, 2 -> {}}.
// Levels out of logical order (CSC's rows) only give the keys of stored
// positions. An empty tensor of a sparse format gives {}. ToValue panics
// with a "formats: " message when t is invalid.
func ToValue(t *Tensor) sdql.Value {
	v := t.mustView("ToValue")
	root := sdql.NewDict()
	v.skeleton(root)
	last := len(t.Shape) - 1
	v.iterate(func(coords []int, x float64) {
		d := root
		for _, c := range coords[:last] {
			d = child(d, c)
		}
		c := coords[last]
		if old, ok := d.Get(c); ok {
			x += float64(old.(sdql.Real))
		}
		d.Set(c, sdql.Real(x))
	})
	return root
}

// child returns d's inner dictionary at key c, adding an empty one when c
// is not stored.
func child(d *sdql.Dict, c int) *sdql.Dict {
	inner, ok := d.Get(c)
	if !ok {
		inner = sdql.NewDict()
		d.Set(c, inner)
	}
	return inner.(*sdql.Dict)
}

// skeleton adds to root the keys of the levels above the last that the
// definition (definition.go) creates whatever is stored below them: every
// coordinate of every mode but the last for an all-dense format of order
// >= 2 (its definition loops over the modes in logical order), and the
// positions of the leading levels in logical mode order otherwise.
func (v *view) skeleton(root *sdql.Dict) {
	n := len(v.t.Shape)
	if n >= 2 && v.lay.AllDense() {
		var walk func(m int, d *sdql.Dict)
		walk = func(m int, d *sdql.Dict) {
			for x := 0; x < v.t.Shape[m]; x++ {
				inner := child(d, x)
				if m+2 < n {
					walk(m+1, inner)
				}
			}
		}
		walk(0, root)
		return
	}
	prefix := 0
	for prefix < n-1 && v.lay.ModeOrder[prefix] == prefix {
		prefix++
	}
	var walk func(k, q int, d *sdql.Dict)
	walk = func(k, q int, d *sdql.Dict) {
		if k == prefix {
			return
		}
		v.lay.Levels[k].each(v, k, q, func(p, x int) {
			walk(k+1, p, child(d, x))
		})
	}
	walk(0, 0, root)
}
