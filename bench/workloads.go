package bench

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// WorkloadDir is where the everyday programs of ../shared/workloads are
// looked for.
var WorkloadDir = "/work/shared/workloads"

// WorkloadInputs are the inputs the workloads are measured on (their
// README): e40r0000 and a synthetic 200,000² matrix with 4M entries.
var WorkloadInputs = []string{"e40r0000", "synthetic:rows=200000,cols=200000,density=0.0001"}

// LoadWorkloadInput loads one of WorkloadInputs (a SuiteSparse name or a
// synthetic spec); ok is false (with a reason) when the file is absent.
func LoadWorkloadInput(name string) (*datasets.Coords, string, error) {
	if spec, ok := strings.CutPrefix(name, "synthetic:"); ok {
		c, err := datasets.ParseSynthetic(spec + ",seed=1")
		return c, "", err
	}
	return LoadInput(name)
}

// WorkloadTensors binds the workloads' inputs over a matrix: A and R (the
// matrix, CSR), dense vectors x, b and y (y in {0, 1}) of the right
// lengths, dense m×16 and n×16 matrices U and W, and lambda. Values come
// from a fixed seed.
func WorkloadTensors(m *datasets.Coords) (map[string]*formats.Tensor, map[string]float64, error) {
	csr, err := formats.FromCoords(m.Shape, m.Idx, m.Val, formats.CSR)
	if err != nil {
		return nil, nil, err
	}
	rows, cols := m.Shape[0], m.Shape[1]
	state := uint64(12345)
	rnd := func() float64 { // xorshift: fixed values without math/rand's state
		state ^= state << 13
		state ^= state >> 7
		state ^= state << 17
		return float64(state>>11) / (1 << 53)
	}
	vec := func(n int, f func() float64) (*formats.Tensor, error) {
		idx, val := make([]int, n), make([]float64, n)
		for i := range idx {
			idx[i], val[i] = i, f()
		}
		return formats.FromCoords([]int{n}, [][]int{idx}, val, formats.Dense)
	}
	mat := func(n, k int) (*formats.Tensor, error) {
		var is, js []int
		var val []float64
		for i := range n {
			for j := range k {
				is, js, val = append(is, i), append(js, j), append(val, rnd()-0.5)
			}
		}
		return formats.FromCoords([]int{n, k}, [][]int{is, js}, val, formats.Dense)
	}
	t := map[string]*formats.Tensor{"A": csr, "R": csr}
	for _, v := range []struct {
		name string
		n    int
		f    func() float64
	}{{"x", cols, func() float64 { return rnd() - 0.5 }}, {"b", rows, rnd}, {"y", rows, func() float64 { return float64(int(2 * rnd())) }}} {
		if t[v.name], err = vec(v.n, v.f); err != nil {
			return nil, nil, err
		}
	}
	if t["U"], err = mat(rows, 16); err != nil {
		return nil, nil, err
	}
	if t["W"], err = mat(cols, 16); err != nil {
		return nil, nil, err
	}
	return t, map[string]float64{"lambda": 0.1}, nil
}

// Derived runs the pipeline over a logical program and its gradient with
// respect to wrt in a mode, as cmd/nablasd does (derive.go: fuse optimizes
// ad's derivative; ModeAuto proposes ad.ChooseMode's mode and keeps the
// candidate with the lower cost in fuse's cost model, chooseMode there).
// wrt "" runs the program itself. It returns fuse's result, the physical
// bindings it runs over, and the mode used.
func Derived(src, wrt string, mode ad.Mode, tensors map[string]*formats.Tensor, scalars map[string]float64) (*fuse.Result, map[string]sdql.Value, ad.Mode, error) {
	prog, err := sdql.Parse("", src)
	if err != nil {
		return nil, nil, mode, err
	}
	info, err := sdql.Check(prog, nil)
	if err != nil {
		return nil, nil, mode, err
	}
	cfg := &fuse.Config{Inputs: map[string]sdql.Type{}, Dense: map[string]bool{}, Dims: map[string][]int{}}
	phys := map[string]sdql.Value{}
	values := map[string]sdql.Value{}
	storage := map[string]fuse.Storage{}
	for _, n := range info.FreeNames() {
		if x, ok := scalars[n]; ok {
			values[n], phys[n] = sdql.Real(x), sdql.Real(x)
			continue
		}
		t, ok := tensors[n]
		if !ok {
			return nil, nil, mode, fmt.Errorf("bench: no input %s", n)
		}
		values[n] = formats.ToValue(t)
		storage[n] = fuse.Storage{Format: t.Format, Order: t.Order()}
		cfg.Dims[n] = t.Shape
		cfg.Dense[n] = t.Format == formats.Dense || t.Format == formats.DenseCol
		b, err := formats.Bind(t, n)
		if err != nil {
			return nil, nil, mode, err
		}
		for k, v := range b {
			phys[k] = v
		}
	}
	for n, v := range values {
		cfg.Inputs[n] = sdql.TypeOfValue(v)
	}
	cfg.Stats = fuse.StatsOf(values)
	if len(storage) > 0 {
		if cfg.Defs, cfg.PhysInputs, err = fuse.Definitions(storage); err != nil {
			return nil, nil, mode, err
		}
		cfg.PhysStats = fuse.StatsOf(phys)
	}
	if wrt == "" {
		res, err := fuse.Optimize(prog, cfg)
		return res, phys, mode, err
	}
	req := &ad.Request{Wrt: []string{wrt}, Dense: cfg.Dense, Dims: cfg.Dims}
	candidates := []ad.Mode{mode}
	if mode == ad.ModeAuto {
		p, err := ad.ChooseMode(prog, req.Wrt, cfg.Inputs)
		if err != nil {
			return nil, nil, mode, err
		}
		candidates = []ad.Mode{p, ad.ModeForward + ad.ModeReverse - p}
	}
	var best *fuse.Result
	bestMode, bestCost := mode, 0.0
	for _, m := range candidates {
		d, _, _, err := ad.Derive(prog, req, m, cfg.Inputs)
		if err != nil {
			if best == nil && m == candidates[len(candidates)-1] {
				return nil, nil, m, err
			}
			continue
		}
		c := *cfg
		c.Wrt = wrt
		c.Grad = func(sdql.Expr, string, map[string]sdql.Type) (sdql.Expr, error) { return d, nil }
		res, err := fuse.Optimize(prog, &c)
		if err != nil {
			return nil, nil, m, err
		}
		types := map[string]sdql.Type{}
		for n, v := range phys {
			types[n] = sdql.TypeOfValue(v)
		}
		cost := fuse.Cost(res.Program, types, fuse.StatsOf(phys))
		if best == nil || cost < bestCost {
			best, bestMode, bestCost = res, m, cost
		}
	}
	return best, phys, bestMode, nil
}
