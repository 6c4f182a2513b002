package legacyexec

import (
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Tensor converts a real tensor result (order >= 1) to a container of
// format f. The shape is Options.ResultShape where given, else one past
// the largest key of each mode. Every stored key is kept (explicit zeros
// included).
func (r *Result) Tensor(f formats.Format, shape ...int) (*formats.Tensor, error) {
	order := sdql.Order(r.t)
	if r.k != kDict || order < 1 {
		return nil, errNotTensor
	}
	idx := make([][]int, order)
	var val []float64
	coords := make([]int, 0, order)
	var walk func(v sdql.Value)
	walk = func(v sdql.Value) {
		sdql.Entries(v, func(k int, x sdql.Value) bool {
			coords = append(coords, k)
			if len(coords) == order {
				for m, c := range coords {
					idx[m] = append(idx[m], c)
				}
				xv, _ := x.(sdql.Real)
				val = append(val, float64(xv))
			} else {
				walk(x)
			}
			coords = coords[:len(coords)-1]
			return true
		})
	}
	walk(r.Value())
	sh := make([]int, order)
	for m := range sh {
		if m < len(shape) && shape[m] > 0 {
			sh[m] = shape[m]
			continue
		}
		for _, c := range idx[m] {
			sh[m] = max(sh[m], c+1)
		}
	}
	return formats.FromCoords(sh, idx, val, f)
}
