package bench

import (
	"fmt"
	"sort"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// Logical gives the paper's kernels (section 7.1) as logical programs, as
// cmd/nablasd's tests write them.
var Logical = map[string]string{
	"batax": "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }",
	"smmm":  "sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b",
	"smvm":  "sum(<i, r> in A) sum(<j, a> in r) a * x(j)",
	"vva":   "V1 + V2",
	"vvd":   "sum(<i, a> in V1) a * V2(i)",
	"vsm":   "sum(<i, v> in V1) { i -> v * s * s }",
}

// Wrt gives the input each kernel is differentiated with respect to
// (section 7.1).
var Wrt = map[string]string{"batax": "x", "smmm": "B", "smvm": "x", "vva": "V1", "vvd": "V1", "vsm": "s"}

// Pipeline runs the real ∇SD pipeline over a kernel: the logical program
// of Logical[kernel], differentiated with respect to Wrt[kernel] and
// optimized by fuse.Optimize with the storage definitions of the bound
// tensors, exactly as cmd/nablasd does (fuseConfig in pipeline.go). It
// returns fuse's result (Result.Program is the program that runs) and the
// physical bindings (the formats' arrays, bound without copying, and the
// scalars) that program runs over.
func Pipeline(kernel string, tensors map[string]*formats.Tensor, scalars map[string]float64) (*fuse.Result, map[string]sdql.Value, error) {
	src, ok := Logical[kernel]
	if !ok {
		return nil, nil, fmt.Errorf("bench: unknown kernel %q", kernel)
	}
	prog, err := sdql.Parse(kernel, src)
	if err != nil {
		return nil, nil, err
	}
	values := map[string]sdql.Value{}
	phys := map[string]sdql.Value{}
	for n, x := range scalars {
		values[n] = sdql.Real(x)
		phys[n] = sdql.Real(x)
	}
	cfg := &fuse.Config{Wrt: Wrt[kernel], Dense: map[string]bool{}, Dims: map[string][]int{}, Inputs: map[string]sdql.Type{}}
	storage := map[string]fuse.Storage{}
	names := make([]string, 0, len(tensors))
	for n := range tensors {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := tensors[n]
		values[n] = formats.ToValue(t)
		storage[n] = fuse.Storage{Format: t.Format, Order: t.Order()}
		cfg.Dims[n] = t.Shape
		if t.Format == formats.Dense || t.Format == formats.DenseCol {
			cfg.Dense[n] = true
		}
		b, err := formats.Bind(t, n)
		if err != nil {
			return nil, nil, err
		}
		for k, v := range b {
			if _, clash := tensors[k]; clash {
				return nil, nil, fmt.Errorf("bench: storage array %s of %s clashes with an input", k, n)
			}
			phys[k] = v
		}
	}
	for n, v := range values {
		cfg.Inputs[n] = sdql.TypeOfValue(v)
	}
	cfg.Stats = fuse.StatsOf(values)
	if len(storage) > 0 {
		defs, types, err := fuse.Definitions(storage)
		if err != nil {
			return nil, nil, err
		}
		cfg.Defs, cfg.PhysInputs = defs, types
		cfg.PhysStats = fuse.StatsOf(phys)
	}
	res, err := fuse.Optimize(prog, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("bench: %s: %v", kernel, err)
	}
	return res, phys, nil
}
