package bench

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// The workloads: programs users of a sparse AD engine write every day,
// beyond the paper's six kernels (../shared/workloads, whose README lists
// them). Their text is read from that folder, never copied here: the
// engine must not know them, and the benchmark runs what the folder holds.
// Each has a hand-written Go closed form of its value and gradient
// (hand_workloads.go), the yardstick of the compiled kernels.

// A Workload is one program of the workloads folder.
type Workload struct {
	// Name is the file's name without .sdql.
	Name string
	// Wrt is the input its gradient is taken with respect to.
	Wrt string
}

// Workloads lists the workload programs (../shared/workloads/NAME.sdql).
var Workloads = []Workload{
	{"least_squares", "x"}, {"logistic", "x"}, {"ridge", "x"},
	{"laplacian", "x"}, {"mlp2", "x"}, {"factorization", "U"},
}

// WorkloadByName returns the workload of that name.
func WorkloadByName(name string) (Workload, bool) {
	for _, w := range Workloads {
		if w.Name == name {
			return w, true
		}
	}
	return Workload{}, false
}

// Modes are what the workload benchmarks compute: the program's value and
// its gradient with respect to Workload.Wrt.
var Modes = []string{"eval", "grad"}

// WorkloadInputs are the matrices the workloads are measured on: the
// SuiteSparse matrix e40r0000 (17,281², 554K entries) and a synthetic
// 200,000 × 200,000 matrix with 4,000,000 entries (SyntheticSpecs).
var WorkloadInputs = []string{"e40r0000", "synthetic4M"}

// FactorizationK is the rank k of the factorization's U (m×k) and W
// (n×k).
const FactorizationK = 16

// WorkloadDir returns the folder of the workload programs:
// $NABLASD_SHARED/workloads, else the workloads folder beside the
// SuiteSparse folders datasets.SharedDirs finds (shared/workloads as
// ../shared of the working directory, one of its parents, the module or
// the executable). It returns "" (with the places it looked) when there
// is none.
func WorkloadDir() (dir, looked string) {
	var cands []string
	if d := os.Getenv("NABLASD_SHARED"); d != "" {
		cands = append(cands, filepath.Join(d, "workloads"))
	}
	for _, d := range datasets.SharedDirs() {
		cands = append(cands, filepath.Join(d, "..", "..", "workloads"))
	}
	for _, c := range cands {
		if st, err := os.Stat(filepath.Join(c, "least_squares.sdql")); err == nil && !st.IsDir() {
			return filepath.Clean(c), ""
		}
	}
	return "", fmt.Sprintf("no workloads folder (looked in %v)", cands)
}

// WorkloadSource returns the text of a workload's program and its path.
// why is non-empty (the reason, src "") when the workloads folder is absent.
func WorkloadSource(name string) (src, path, why string, err error) {
	dir, looked := WorkloadDir()
	if dir == "" {
		return "", "", looked, nil
	}
	path = filepath.Join(dir, name+".sdql")
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", "", fmt.Errorf("bench: workload %s: %v", name, err)
	}
	return string(b), path, "", nil
}

// WorkloadData is the inputs of every workload over one matrix: A (bound
// as R for the factorization) in CSR, the dense vectors x (A's columns),
// b and y (A's rows; y in {0, 1}), the scalar lambda, and the dense
// row-major matrices U (rows × K) and W (cols × K). Every value comes from
// a fixed seed (NewWorkloadData).
type WorkloadData struct {
	Input   string
	A       *formats.Tensor
	X, B, Y []float64
	Lambda  float64
	K       int
	U, W    []float64
}

// The seeds of the dense inputs (PCG streams of seedStream): the same
// input matrix always gets the same vectors.
const (
	seedX, seedB, seedY, seedU, seedW = 1, 2, 3, 4, 5
	seedStream                        = 0x776f726b6c6f6164 // "workload"
)

// NewWorkloadData builds the inputs of the workloads over the matrix m
// (coordinates, converted to CSR), with dense inputs from fixed seeds:
// x, b, U and W uniform in [-1, 1), y 0 or 1 with probability ½ each,
// lambda 0.1, and U and W of k columns.
func NewWorkloadData(input string, m *datasets.Coords, k int) (*WorkloadData, error) {
	if m.Order() != 2 {
		return nil, fmt.Errorf("bench: input %s: want a matrix, have order %d", input, m.Order())
	}
	a, err := formats.FromCoords(m.Shape, m.Idx, m.Val, formats.CSR)
	if err != nil {
		return nil, fmt.Errorf("bench: input %s: %v", input, err)
	}
	rows, cols := m.Shape[0], m.Shape[1]
	d := &WorkloadData{Input: input, A: a, Lambda: 0.1, K: k,
		X: uniformVector(cols, seedX), B: uniformVector(rows, seedB),
		U: uniformVector(rows*k, seedU), W: uniformVector(cols*k, seedW)}
	d.Y = uniformVector(rows, seedY)
	for i, v := range d.Y {
		d.Y[i] = 0
		if v >= 0 {
			d.Y[i] = 1
		}
	}
	return d, nil
}

// uniformVector returns n values uniform in [-1, 1) from a seed.
func uniformVector(n int, seed uint64) []float64 {
	rng := rand.New(rand.NewPCG(seed, seedStream))
	v := make([]float64, n)
	for i := range v {
		v[i] = 2*rng.Float64() - 1
	}
	return v
}

// Rows is A's number of rows.
func (d *WorkloadData) Rows() int { return d.A.Shape[0] }

// Cols is A's number of columns.
func (d *WorkloadData) Cols() int { return d.A.Shape[1] }

// tensor returns the input of that name as a tensor (A and R: the CSR
// matrix; vectors dense; U and W dense row-major), nil for lambda and
// unknown names. Tensors share the data's slices.
func (d *WorkloadData) tensor(name string) *formats.Tensor {
	dense := func(val []float64, shape ...int) *formats.Tensor {
		return &formats.Tensor{Format: formats.Dense, Shape: shape, Val: val,
			Pos: make([][]int, len(shape)), Idx: make([][]int, len(shape))}
	}
	switch name {
	case "A", "R":
		return d.A
	case "x":
		return dense(d.X, d.Cols())
	case "b":
		return dense(d.B, d.Rows())
	case "y":
		return dense(d.Y, d.Rows())
	case "U":
		return dense(d.U, d.Rows(), d.K)
	case "W":
		return dense(d.W, d.Cols(), d.K)
	}
	return nil
}

// Inputs binds the named inputs for nablasd.Prepare (the tensors share the
// data's slices); an unknown name is an error.
func (d *WorkloadData) Inputs(names []string) (nablasd.Inputs, error) {
	in := nablasd.Inputs{}
	for _, n := range names {
		if n == "lambda" {
			in[n] = d.Lambda
			continue
		}
		t := d.tensor(n)
		if t == nil {
			return nil, fmt.Errorf("bench: no workload input named %s (want A, R, x, b, y, lambda, U or W)", n)
		}
		in[n] = t
	}
	return in, nil
}

// Logical binds the named inputs as logical values (formats.ToValue), for
// the reference interpreter.
func (d *WorkloadData) Logical(names []string) (map[string]sdql.Value, error) {
	out := map[string]sdql.Value{}
	for _, n := range names {
		if n == "lambda" {
			out[n] = sdql.Real(d.Lambda)
			continue
		}
		t := d.tensor(n)
		if t == nil {
			return nil, fmt.Errorf("bench: no workload input named %s (want A, R, x, b, y, lambda, U or W)", n)
		}
		out[n] = formats.ToValue(t)
	}
	return out, nil
}

// Bytes is the size of the named inputs' arrays.
func (d *WorkloadData) Bytes(names []string) int64 {
	var n int64
	for _, name := range names {
		if t := d.tensor(name); t != nil {
			n += tensorBytes(t)
		}
	}
	return n
}
