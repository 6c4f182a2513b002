package exec

import (
	"errors"
	"slices"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// Result is a kernel's destination: a scalar, or the tensor the kernel
// builds, read in place by Value, Entries and Tensor. RunInto refills it.
type Result struct {
	t  sdql.Type
	k  *Kernel
	fr *frame // the run's frame, which owns the result tensor
}

var errNotTensor = errors.New("exec: the result is not a tensor")

// Type returns the result's type.
func (r *Result) Type() sdql.Type { return r.t }

func (r *Result) tensor() *tensor {
	if r.fr == nil || r.k.ir.ResultTensor == nil {
		return nil
	}
	return r.fr.t[r.k.ir.ResultTensor.ID]
}

// Scalar returns a scalar result (a bool as 0 or 1).
func (r *Result) Scalar() float64 {
	v := r.k.ir.ResultVar
	if v == nil || r.fr == nil {
		return 0
	}
	if v.Kind == lower.Real {
		return r.fr.f[v.ID]
	}
	return float64(r.fr.i[v.ID])
}

// Value returns the result as an sdql value, keys ascending.
func (r *Result) Value() sdql.Value {
	if v := r.k.ir.ResultVar; v != nil {
		f := r.Scalar()
		switch v.Kind {
		case lower.Int:
			return sdql.Int(int(f))
		case lower.Bool:
			return sdql.Bool(f != 0)
		}
		return sdql.Real(f)
	}
	rt := r.tensor()
	if rt == nil {
		return sdql.NewDict()
	}
	var walk func(lv, parent int) sdql.Value
	walk = func(lv, parent int) sdql.Value {
		d := sdql.NewDict()
		for _, e := range rt.sortedKeys(lv, parent) {
			if lv == len(rt.levels)-1 {
				d.Set(e.key, leafValue(rt.t.Leaf, rt.vals[e.c]))
			} else {
				d.Set(e.key, walk(lv+1, e.c))
			}
		}
		return d
	}
	return walk(0, 0)
}

func leafValue(k lower.Kind, f float64) sdql.Value {
	switch k {
	case lower.Int:
		return sdql.Int(int(f))
	case lower.Bool:
		return sdql.Bool(f != 0)
	}
	return sdql.Real(f)
}

// Entries calls f for every stored leaf of a tensor result with its keys,
// outermost first, in ascending order, and its value, until f returns
// false; coords is reused between calls. It reads the result in place,
// holding one level's sorted keys at a time.
func (r *Result) Entries(f func(coords []int, v float64) bool) error {
	rt := r.tensor()
	if r.k.ir.ResultVar != nil {
		return errNotTensor
	}
	if rt == nil {
		return nil
	}
	coords := make([]int, 0, len(rt.levels))
	var walk func(lv, parent int) bool
	walk = func(lv, parent int) bool {
		for _, e := range rt.sortedKeys(lv, parent) {
			coords = append(coords, e.key)
			ok := true
			if lv == len(rt.levels)-1 {
				ok = f(coords, rt.vals[e.c])
			} else {
				ok = walk(lv+1, e.c)
			}
			coords = coords[:len(coords)-1]
			if !ok {
				return false
			}
		}
		return true
	}
	walk(0, 0)
	return nil
}

// Dense returns a tensor result's values in row-major order over sizes,
// its levels' extents, when every level is stored dense with every key
// present (Options.ResultShape made it so): the destination's own array,
// valid until the next run. ok is false for any other result.
func (r *Result) Dense() (vals []float64, sizes []int, ok bool) {
	rt := r.tensor()
	if rt == nil || r.k.ir.ResultVar != nil || rt.t.Leaf != lower.Real {
		return nil, nil, false
	}
	n := 1
	sizes = make([]int, len(rt.levels))
	for i, l := range rt.levels {
		if l.kind != lower.Dense || l.present != nil || !rt.t.Levels[i].Full {
			return nil, nil, false
		}
		sizes[i] = l.size
		n *= l.size
	}
	if len(rt.vals) < n {
		return nil, nil, false
	}
	return rt.vals[:n], sizes, true
}

// Size returns the bytes a tensor result's storage takes (the capacity of
// its arrays and indexes); 0 for a scalar.
func (r *Result) Size() int64 {
	rt := r.tensor()
	if rt == nil {
		return 0
	}
	n := 8 * int64(cap(rt.vals))
	for _, l := range rt.levels {
		n += int64(cap(l.present)) + 8*int64(cap(l.list)+cap(l.keys)+cap(l.parent)) +
			4*int64(cap(l.table)+cap(l.head)+cap(l.tail)+cap(l.next))
		if l.ix != nil {
			n += l.ix.bytes()
		}
		n += 4 * int64(cap(l.mark))
	}
	return n
}

// Tensor converts a real tensor result (order >= 1) to a container of
// format f. The shape is shape where given, else one past the largest key
// of each mode. Every stored key is kept (explicit zeros included).
func (r *Result) Tensor(f formats.Format, shape ...int) (*formats.Tensor, error) {
	order := sdql.Order(r.t)
	if r.k.ir.ResultVar != nil || order < 1 {
		return nil, errNotTensor
	}
	idx := make([][]int, order)
	var val []float64
	err := r.Entries(func(coords []int, v float64) bool {
		for m, c := range coords {
			idx[m] = append(idx[m], c)
		}
		val = append(val, v)
		return true
	})
	if err != nil {
		return nil, err
	}
	sh := make([]int, order)
	for m := range sh {
		if m < len(shape) && shape[m] > 0 {
			sh[m] = shape[m]
			continue
		}
		if len(idx[m]) > 0 {
			sh[m] = slices.Max(idx[m]) + 1
		}
	}
	return formats.FromCoords(sh, idx, val, f)
}
