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
		rt.sortedChildren(lv, parent, func(k, c int) bool {
			if lv == len(rt.levels)-1 {
				d.Set(k, leafValue(rt.t.Leaf, rt.vals[c]))
			} else {
				d.Set(k, walk(lv+1, c))
			}
			return true
		})
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
// holding at most the sorted keys of one parent's children in a hashed
// level (dense and positions levels are read in order, without a copy).
func (r *Result) Entries(f func(coords []int, v float64) bool) error {
	return r.walk(f, false)
}

// Paths is Entries, and also calls f, in its place in the order, for
// every inner dictionary present without entries ({2 -> {}}): with its
// keys (fewer than the result's order) and 0. Printing a result as a
// literal needs both.
func (r *Result) Paths(f func(keys []int, v float64) bool) error {
	return r.walk(f, true)
}

func (r *Result) walk(f func(coords []int, v float64) bool, empty bool) error {
	rt := r.tensor()
	if r.k.ir.ResultVar != nil {
		return errNotTensor
	}
	if rt == nil {
		return nil
	}
	coords := make([]int, 0, len(rt.levels))
	last := len(rt.levels) - 1
	// walk reports whether parent has children at level lv, and whether
	// to go on
	var walk func(lv, parent int) (bool, bool)
	walk = func(lv, parent int) (bool, bool) {
		some, more := false, true
		rt.sortedChildren(lv, parent, func(k, c int) bool {
			some = true
			coords = append(coords, k)
			if lv == last {
				more = f(coords, rt.vals[c])
			} else {
				var inner bool
				inner, more = walk(lv+1, c)
				if more && !inner && empty {
					more = f(coords, 0)
				}
			}
			coords = coords[:len(coords)-1]
			return more
		})
		return some, more
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
