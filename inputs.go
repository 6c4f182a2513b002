package nablasd

import (
	"fmt"
	"math"
	"sort"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
	"gonum.org/v1/gonum/mat"
)

// Inputs binds a program's free variables (its inputs) by name. A value
// may be
//
//   - a number: float64, float32, int, int64, int32 (an int where the
//     program uses the input as one, such as a range bound, else a real),
//     or a bool;
//   - a *formats.Tensor in any storage format (see CSR for one built from
//     scipy-style arrays, and Load for files);
//   - a gonum mat.Vector (a *mat.VecDense is a dense vector, not an n×1
//     matrix) or mat.Matrix (a *mat.Dense is a dense matrix; any other
//     matrix is stored in CSR, read through mat.NonZeroDoer and its kin
//     when it implements one);
//   - a []float64 (a dense vector, not copied) or [][]float64 (a dense
//     matrix, rows of one length);
//   - a map[int]float64 or map[int]map[int]float64: a sparse vector or
//     matrix as a logical dictionary, whose keys are its stored positions
//     and whose shape is unknown (lookups into it are not shape-checked);
//   - an sdql.Value (a logical dictionary or scalar).
//
// Tensors carry their shape: lookups whose keys range over another
// input's dimension are checked against it (see Options.NoShapeCheck).
type Inputs map[string]any

// input is one bound input.
type input struct {
	name string
	// tensor is the input in its storage format (nil for numbers and
	// logical values).
	tensor *formats.Tensor
	// number is a plain number, typed int or real by the program's use.
	number  float64
	isNum   bool
	isBool  bool
	logical sdql.Value // a logical value (sdql.Value or a Go map) or a resolved scalar
	// released: the tensor is an empty stand-in for one a run must give
	// (Kernel.Release)
	released bool
}

// convertInput turns a Go value into an input; a *formats.Tensor is
// validated unless validate is false (Options.NoValidate): the compiled
// kernels rely on it and do not check again.
func convertInput(name string, v any, validate bool) (*input, error) {
	in := &input{name: name}
	var err error
	switch x := v.(type) {
	case nil:
		return nil, fmt.Errorf("input %s: nil value", name)
	case float64:
		in.number, in.isNum = x, true
	case float32:
		in.number, in.isNum = float64(x), true
	case int:
		in.number, in.isNum = float64(x), true
	case int64:
		in.number, in.isNum = float64(x), true
	case int32:
		in.number, in.isNum = float64(x), true
	case bool:
		in.isBool = true
		in.logical = sdql.Bool(x)
	case *formats.Tensor:
		if x == nil {
			return nil, fmt.Errorf("input %s: nil tensor", name)
		}
		if validate {
			if err := x.Validate(); err != nil {
				return nil, fmt.Errorf("input %s: %v", name, err)
			}
		}
		in.tensor = x
	case mat.Vector:
		in.tensor, err = vectorTensor(x)
	case *mat.Dense:
		in.tensor, err = denseMatrixTensor(x)
	case mat.Matrix:
		in.tensor, err = formats.FromMatrix(x, formats.CSR)
	case []float64:
		in.tensor = DenseVector(x)
	case [][]float64:
		in.tensor, err = rowsTensor(x)
	case map[int]float64:
		d := sdql.NewDict()
		for _, k := range sortedKeys(x) {
			d.Set(k, sdql.Real(x[k]))
		}
		in.logical = d
	case map[int]map[int]float64:
		d := sdql.NewDict()
		for _, i := range sortedKeys(x) {
			row := sdql.NewDict()
			for _, j := range sortedKeys(x[i]) {
				row.Set(j, sdql.Real(x[i][j]))
			}
			d.Set(i, row)
		}
		in.logical = d
	case sdql.Value:
		in.logical = x
	default:
		return nil, fmt.Errorf("input %s: cannot bind a %T (want a number, *formats.Tensor, gonum vector or matrix, []float64, [][]float64, map[int]float64, map[int]map[int]float64 or sdql.Value)", name, v)
	}
	if err != nil {
		return nil, fmt.Errorf("input %s: %v", name, err)
	}
	return in, nil
}

func sortedKeys[V any](m map[int]V) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}

// DenseVector returns x as a dense vector tensor, without copying.
func DenseVector(x []float64) *formats.Tensor {
	return &formats.Tensor{Format: formats.Dense, Shape: []int{len(x)}, Pos: [][]int{nil}, Idx: [][]int{nil}, Val: x}
}

// CSR returns the rows×cols matrix in compressed sparse rows given by
// scipy.sparse.csr_matrix's arrays, without copying: row i's entries are
// positions indptr[i]..indptr[i+1]-1 of indices (their columns, ascending)
// and data (their values). It checks the arrays (len(indptr) == rows+1,
// indptr monotone from 0 to len(indices), columns in range and ascending
// within a row).
func CSR(rows, cols int, indptr, indices []int, data []float64) (*formats.Tensor, error) {
	t := &formats.Tensor{Format: formats.CSR, Shape: []int{rows, cols},
		Pos: [][]int{nil, indptr}, Idx: [][]int{nil, indices}, Val: data}
	if err := t.Validate(); err != nil {
		return nil, err
	}
	return t, nil
}

// vectorTensor stores a gonum vector as a dense vector (a *mat.VecDense
// with unit increment without copying).
func vectorTensor(v mat.Vector) (*formats.Tensor, error) {
	if vd, ok := v.(*mat.VecDense); ok {
		raw := vd.RawVector()
		if raw.Inc == 1 {
			return DenseVector(raw.Data[:vd.Len()]), nil
		}
	}
	x := make([]float64, v.Len())
	for i := range x {
		x[i] = v.AtVec(i)
	}
	return DenseVector(x), nil
}

// denseMatrixTensor stores a gonum dense matrix as a dense row-major
// tensor (without copying when its rows are contiguous).
func denseMatrixTensor(m *mat.Dense) (*formats.Tensor, error) {
	r, c := m.Dims()
	raw := m.RawMatrix()
	var val []float64
	if raw.Stride == c {
		val = raw.Data[:r*c]
	} else {
		val = make([]float64, 0, r*c)
		for i := 0; i < r; i++ {
			val = append(val, raw.Data[i*raw.Stride:i*raw.Stride+c]...)
		}
	}
	t := &formats.Tensor{Format: formats.Dense, Shape: []int{r, c}, Pos: [][]int{nil, nil}, Idx: [][]int{nil, nil}, Val: val}
	return t, t.Validate()
}

// rowsTensor stores rows of equal length as a dense row-major matrix.
func rowsTensor(rows [][]float64) (*formats.Tensor, error) {
	c := 0
	if len(rows) > 0 {
		c = len(rows[0])
	}
	val := make([]float64, 0, len(rows)*c)
	for i, row := range rows {
		if len(row) != c {
			return nil, fmt.Errorf("row %d has %d values, row 0 has %d", i, len(row), c)
		}
		val = append(val, row...)
	}
	t := &formats.Tensor{Format: formats.Dense, Shape: []int{len(rows), c}, Pos: [][]int{nil, nil}, Idx: [][]int{nil, nil}, Val: val}
	return t, t.Validate()
}

// typeOf is the input's type as far as it is known before the program is
// checked: tensors and logical values; numbers are typed by their use.
func (in *input) typeOf() sdql.Type {
	switch {
	case in.tensor != nil:
		return sdql.Tensor(in.tensor.Order())
	case in.logical != nil:
		return sdql.TypeOfValue(in.logical)
	}
	return nil
}

// resolve types a number by the program's use of it (t, from the checker):
// int for a range bound, bool, else real.
func (in *input) resolve(t sdql.Type) error {
	if !in.isNum {
		return nil
	}
	switch {
	case t == nil || t == sdql.RealType:
		in.logical = sdql.Real(in.number)
	case t == sdql.IntType || t == sdql.DenseIntType:
		if in.number != math.Trunc(in.number) || math.Abs(in.number) > 1<<53 {
			return fmt.Errorf("input %s: the program uses %s as an int, but it is bound to %v", in.name, in.name, in.number)
		}
		in.logical = sdql.Int(int(in.number))
	case t == sdql.BoolType:
		in.logical = sdql.Bool(in.number != 0)
	default:
		return fmt.Errorf("input %s: the program uses %s as %s, but it is bound to the number %v", in.name, in.name, t, in.number)
	}
	return nil
}

// dense reports whether the input stores every position of its shape.
func (in *input) dense() bool {
	return in.tensor != nil && in.tensor.AllDense()
}
