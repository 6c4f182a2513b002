package bench

import (
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
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

// Workload prepares a logical program over tensors and scalars through
// the root package, as nablasd grad does, in a differentiation mode
// ("auto", "forward" or "reverse").
func Workload(src, mode string, tensors map[string]*formats.Tensor, scalars map[string]float64) (*nablasd.Query, error) {
	inputs := nablasd.Inputs{}
	prog, err := sdql.Parse("", src)
	if err != nil {
		return nil, err
	}
	for _, n := range sdql.FreeVars(prog) {
		if x, ok := scalars[n]; ok {
			inputs[n] = x
		} else if t, ok := tensors[n]; ok {
			inputs[n] = t
		}
	}
	return nablasd.Prepare(src, inputs, &nablasd.Options{Mode: mode})
}
