package bench

import (
	"embed"
	"fmt"
	"path"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// The index-arithmetic workloads (issue 34): shifted and strided lookups
// as convolutions, stencils, finite differences and band matrices are
// written, in the project's own workloads folder (workloads/*.sdql, whose
// README gives each closed form). Each has a hand-written Go closed form
// of its value and of every gradient (hand_index.go) and a NumPy/SciPy
// one (indexpeer.py), the yardsticks of cmd/indexreport.

//go:embed workloads/*.sdql
var indexFiles embed.FS

// An IndexWorkload is one program of the workloads folder.
type IndexWorkload struct {
	// Name is the file's name without .sdql.
	Name string
	// Wrt are the inputs its gradients are taken with respect to.
	Wrt []string
}

// IndexWorkloads lists the index-arithmetic workloads.
var IndexWorkloads = []IndexWorkload{
	{"conv1d", []string{"x", "K"}},
	{"stencil2d", []string{"U"}},
	{"tv", []string{"x"}},
	{"downsample", []string{"x", "K"}},
	{"toeplitz", []string{"x", "t"}},
}

// IndexSource returns the text of an index workload's program.
func IndexSource(name string) (string, error) {
	b, err := indexFiles.ReadFile(path.Join("workloads", name+".sdql"))
	if err != nil {
		return "", fmt.Errorf("bench: no index workload %s", name)
	}
	return string(b), nil
}

// IndexData is the inputs of one index workload at one size: dense
// vectors (x, K, t) and a dense row-major matrix U, uniform in [-1, 1)
// from the workloads' fixed seeds (uniformVector), and the ints n, m, b
// the programs' ranges need.
type IndexData struct {
	Workload string
	// Size is the signal's length (the matrix's side for the stencil).
	Size    int
	X, K, T []float64
	U       []float64
	N, M, B int
	Eps     float64
}

// The sizes the issue measures: signals of 10⁶ entries, a 1000 × 1000
// stencil; the kernels' taps.
const (
	IndexSignal    = 1_000_000
	IndexGrid      = 1000
	ConvTaps       = 31
	DownsampleTaps = 8
	ToeplitzHalf   = 2 // t has 2·ToeplitzHalf + 1 diagonals
)

// NewIndexData builds the inputs of workload name with a signal of size
// entries (a size × size matrix for the stencil).
func NewIndexData(name string, size int) (*IndexData, error) {
	d := &IndexData{Workload: name, Size: size, Eps: 1e-3}
	switch name {
	case "conv1d":
		d.X, d.K = uniformVector(size, seedX), uniformVector(ConvTaps, seedW)
		d.N = size - ConvTaps + 1
	case "stencil2d":
		d.U = uniformVector(size*size, seedU)
		d.N, d.M = size, size
	case "tv":
		d.X = uniformVector(size, seedX)
		d.N = size
	case "downsample":
		d.X, d.K = uniformVector(size, seedX), uniformVector(DownsampleTaps, seedW)
		d.N = (size-DownsampleTaps)/2 + 1
	case "toeplitz":
		d.X, d.T = uniformVector(size, seedX), uniformVector(2*ToeplitzHalf+1, seedW)
		d.N, d.B = size, ToeplitzHalf
	default:
		return nil, fmt.Errorf("bench: no index workload %s", name)
	}
	if d.N <= 0 {
		return nil, fmt.Errorf("bench: %s: size %d is too small", name, size)
	}
	return d, nil
}

// denseVector is a dense vector tensor over v (shared).
func denseVector(v []float64) *formats.Tensor {
	return &formats.Tensor{Format: formats.Dense, Shape: []int{len(v)}, Val: v, Pos: make([][]int, 1), Idx: make([][]int, 1)}
}

// Inputs binds the workload's inputs for nablasd.Prepare (sharing the
// data's slices).
func (d *IndexData) Inputs() nablasd.Inputs {
	in := nablasd.Inputs{}
	switch d.Workload {
	case "conv1d", "downsample":
		in["x"], in["K"], in["n"] = denseVector(d.X), denseVector(d.K), d.N
	case "stencil2d":
		in["U"] = &formats.Tensor{Format: formats.Dense, Shape: []int{d.N, d.M}, Val: d.U, Pos: make([][]int, 2), Idx: make([][]int, 2)}
		in["n"], in["m"] = d.N, d.M
	case "tv":
		in["x"], in["n"], in["eps"] = denseVector(d.X), d.N, d.Eps
	case "toeplitz":
		in["x"], in["t"], in["n"], in["b"] = denseVector(d.X), denseVector(d.T), d.N, d.B
	}
	return in
}

// Logical binds the inputs as logical values for the reference
// interpreter.
func (d *IndexData) Logical() map[string]sdql.Value {
	out := map[string]sdql.Value{}
	for n, v := range d.Inputs() {
		switch v := v.(type) {
		case *formats.Tensor:
			out[n] = formats.ToValue(v)
		case int:
			out[n] = sdql.Int(v)
		case float64:
			out[n] = sdql.Real(v)
		}
	}
	return out
}

// Entries is the number of entries of the workload's largest input.
func (d *IndexData) Entries() int { return max(len(d.X), len(d.U)) }

// Hand returns the hand-written closed form of the workload's value (wrt
// "") or of its gradient with respect to wrt: a run into a destination it
// reuses, and the result as an sdql value (a scalar, or the gradient on
// every position of the dense input, as nablasd gives it).
func (d *IndexData) Hand(wrt string) (run func(), value func() sdql.Value, err error) {
	var s float64
	scalar := func(f func() float64) (func(), func() sdql.Value) {
		return func() { s = f() }, func() sdql.Value { return sdql.Real(s) }
	}
	grad := func(n int, f func(g []float64)) (func(), func() sdql.Value) {
		g := make([]float64, n)
		return func() { f(g) }, func() sdql.Value { return vectorValue(g) }
	}
	switch d.Workload + "/" + wrt {
	case "conv1d/":
		run, value = scalar(func() float64 { return conv1dValue(d.X, d.K, d.N) })
	case "conv1d/x":
		run, value = grad(len(d.X), func(g []float64) { conv1dGradX(d.X, d.K, d.N, g) })
	case "conv1d/K":
		run, value = grad(len(d.K), func(g []float64) { conv1dGradK(d.X, d.K, d.N, g) })
	case "stencil2d/":
		run, value = scalar(func() float64 { return stencilValue(d.U, d.N, d.M) })
	case "stencil2d/U":
		g := make([]float64, len(d.U))
		run = func() { stencilGrad(d.U, d.N, d.M, g) }
		value = func() sdql.Value { return matrixValue(g, d.N, d.M) }
	case "tv/":
		run, value = scalar(func() float64 { return tvValue(d.X, d.N, d.Eps) })
	case "tv/x":
		run, value = grad(len(d.X), func(g []float64) { tvGrad(d.X, d.N, d.Eps, g) })
	case "downsample/":
		run, value = scalar(func() float64 { return downsampleValue(d.X, d.K, d.N) })
	case "downsample/x":
		run, value = grad(len(d.X), func(g []float64) { downsampleGradX(d.X, d.K, d.N, g) })
	case "downsample/K":
		run, value = grad(len(d.K), func(g []float64) { downsampleGradK(d.X, d.K, d.N, g) })
	case "toeplitz/":
		run, value = scalar(func() float64 { return toeplitzValue(d.X, d.T, d.N, d.B) })
	case "toeplitz/x":
		run, value = grad(len(d.X), func(g []float64) { toeplitzGradX(d.X, d.T, d.N, d.B, g) })
	case "toeplitz/t":
		run, value = grad(len(d.T), func(g []float64) { toeplitzGradT(d.X, d.T, d.N, d.B, g) })
	default:
		return nil, nil, fmt.Errorf("bench: %s has no closed form with respect to %q", d.Workload, wrt)
	}
	return run, value, nil
}

// vectorValue is a dense vector as a dictionary of every position.
func vectorValue(g []float64) sdql.Value {
	v := sdql.NewDict()
	for i, x := range g {
		v.Set(i, sdql.Real(x))
	}
	return v
}
