// Package physbind binds dictionaries as storage-format inputs for the
// randomized tests of lower, exec and gogen: a dictionary stored in a format, its
// arrays bound by name, and fuse's configuration as the pipeline makes it.
package physbind

import (
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// EvalTyped is sdql.Eval with the inputs' declared types (an empty
// matrix's dictionary does not show its order).
func EvalTyped(prog sdql.Expr, in map[string]sdql.Value, types map[string]sdql.Type) (sdql.Value, error) {
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		return nil, err
	}
	return (&sdql.Interp{}).Run(prog, info, in)
}

// TensorFrom stores a dictionary of reals of the given shape in format f.
func TensorFrom(t testing.TB, v sdql.Value, shape []int, f formats.Format) *formats.Tensor {
	t.Helper()
	idx := make([][]int, len(shape))
	var val []float64
	var walk func(v sdql.Value, coords []int)
	walk = func(v sdql.Value, coords []int) {
		sdql.Entries(v, func(k int, x sdql.Value) bool {
			c := append(coords, k)
			if len(c) == len(shape) {
				for m := range c {
					idx[m] = append(idx[m], c[m])
				}
				val = append(val, float64(x.(sdql.Real)))
				return true
			}
			walk(x, c)
			return true
		})
	}
	walk(v, nil)
	ten, err := formats.FromCoords(shape, idx, val, f)
	if err != nil {
		t.Fatal(err)
	}
	return ten
}

// BindFormats binds tensors as their arrays and describes them to fuse as
// the pipeline does, with the real scalar s: the physical
// bindings (the formats' arrays), the logical ones (the dictionaries) and
// fuse's configuration.
func BindFormats(t testing.TB, ts map[string]*formats.Tensor, s sdql.Value) (phys, logical map[string]sdql.Value, cfg *fuse.Config) {
	phys = map[string]sdql.Value{"s": s}
	logical = map[string]sdql.Value{"s": s}
	cfg = &fuse.Config{Inputs: map[string]sdql.Type{"s": sdql.RealType}, Dense: map[string]bool{}, Dims: map[string][]int{}, Stats: fuse.Stats{}}
	storage := map[string]fuse.Storage{}
	for n, x := range ts {
		logical[n] = formats.ToValue(x)
		cfg.Inputs[n] = sdql.Tensor(x.Order())
		cfg.Dims[n] = x.Shape
		cfg.Stats[n] = x.Fanout()
		if x.AllDense() {
			cfg.Dense[n] = true
		}
		storage[n] = fuse.Storage{Format: x.Format, Order: x.Order()}
		arrays, err := formats.Bind(x, n)
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range arrays {
			phys[k] = v
		}
	}
	defs, types, err := fuse.Definitions(storage)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Defs, cfg.PhysInputs, cfg.PhysStats = defs, types, fuse.StatsOf(phys)
	return phys, logical, cfg
}
