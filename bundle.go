package nablasd

import (
	"github.com/nablasd/nablasd/sdql"
)

// A bundle (ad.Outputs) is the result of a kernel that computes several
// results in one run: {0 -> r0, 1 -> r1, ...}, each result wrapped in
// singletons {0 -> ... r} up to the highest order among them. The value of
// a real-valued program and its gradients with respect to dense inputs
// (a training loop's one run per point) make a bundle whose every level
// can be dense and full: its levels' extents are the results' extents,
// the wrapped ones counted as 1, the largest at each level (bundleShape).
// Lowered so, the bundle is one dense array, each result a row-major
// block of it, which a caller reads without walking keys (Result.dense);
// otherwise its inner levels would be hashed, for want of their extents.

// bundleWaste bounds the padding of a dense bundle: its array may hold at
// most bundleWaste times its results' entries, plus bundleSlack, else the
// bundle is left to the lowering's own choice (a vector of 10^6 entries
// beside a 10^6 × 16 matrix would pad the vector to the matrix's size).
const (
	bundleWaste = 4
	bundleSlack = 4096
)

// bundleShape is the dense shape of a plan's bundle over inputs of the
// extents dims: the number of results, then the largest extent of each
// level, when the program's result is real and every result is the value
// or the gradient with respect to a dense input or a number, and the
// padding is within bundleWaste; nil otherwise.
func (q *Query) bundleShape(p *Plan, dims map[string][]int) []int {
	o := p.Outputs
	if o == nil || !o.Bundled() || p.req == nil || p.req.kind != "grad" || q.info.Result != sdql.RealType {
		return nil
	}
	shapes, ok := q.bundleShapes(p, dims)
	if !ok {
		return nil
	}
	most := 0
	for _, s := range shapes {
		most = max(most, len(s))
	}
	shape := make([]int, 1+most)
	shape[0] = len(shapes)
	for l := 1; l <= most; l++ {
		shape[l] = 1
	}
	entries := 0
	for _, s := range shapes {
		n := 1
		for i, e := range s {
			l := 1 + most - len(s) + i
			shape[l] = max(shape[l], e)
			n *= e
		}
		entries += n
	}
	total := 1
	for _, e := range shape {
		if e <= 0 {
			return nil
		}
		if total > (bundleWaste*entries+bundleSlack)/e {
			return nil
		}
		total *= e
	}
	return shape
}

// bundleShapes gives each result's extents (none for the value and a
// number's gradient); ok is false when a gradient is with respect to an
// input that is neither dense nor a number, or of unknown extents.
func (q *Query) bundleShapes(p *Plan, dims map[string][]int) ([][]int, bool) {
	var shapes [][]int
	for _, name := range p.Outputs.Names {
		if name == "value" {
			shapes = append(shapes, nil)
			continue
		}
		in := q.inputs[name]
		switch {
		case in == nil:
			return nil, false
		case in.isNum:
			shapes = append(shapes, nil)
		case in.dense():
			d := dims[name]
			if len(d) != in.tensor.Order() {
				return nil, false
			}
			shapes = append(shapes, d)
		default:
			return nil, false
		}
	}
	return shapes, true
}

// trimTo drops the keys of v at or past the extents of shape, level by
// level: a dense bundle's padding of a result smaller than the largest.
func trimTo(v sdql.Value, shape []int) sdql.Value {
	d, ok := v.(*sdql.Dict)
	if !ok || len(shape) == 0 {
		return v
	}
	out := sdql.NewDict()
	d.Range(func(k int, x sdql.Value) bool {
		if k < shape[0] {
			out.Set(k, trimTo(x, shape[1:]))
		}
		return true
	})
	return out
}
