package formats

import "github.com/nablasd/nablasd/sdql"

// ToValue returns the tensor's logical dictionary, built directly from the
// container (not through its definition): {i -> v} for a vector,
// {i -> {j -> v}} for a matrix, nested once per mode, keys in logical mode
// order, every stored position present (explicit zeros included; the
// values of COO duplicates added). Inner dictionaries exist only where a
// position is stored below them: an empty CSR row is absent, not {}. An
// empty tensor gives an empty dictionary. ToValue panics with a "formats: "
// message when t is invalid.
func ToValue(t *Tensor) sdql.Value {
	v := t.mustView("ToValue")
	root := sdql.NewDict()
	last := len(t.Shape) - 1
	v.iterate(func(coords []int, x float64) {
		d := root
		for _, c := range coords[:last] {
			inner, ok := d.Get(c)
			if !ok {
				inner = sdql.NewDict()
				d.Set(c, inner)
			}
			d = inner.(*sdql.Dict)
		}
		c := coords[last]
		if old, ok := d.Get(c); ok {
			x += float64(old.(sdql.Real))
		}
		d.Set(c, sdql.Real(x))
	})
	return root
}
