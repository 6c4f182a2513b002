package formats

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// FromMatrix stores a gonum matrix in format f (a format with a matrix
// variant). It reads the stored entries through mat.NonZeroDoer,
// mat.RowNonZeroDoer or mat.ColNonZeroDoer when m implements one (as
// github.com/james-bowman/sparse matrices do; entries reported as zero are
// kept as stored positions), also under a mat.Transpose; otherwise it scans
// At(i, j) and stores the non-zeros, refusing matrices of more than
// MaxDenseSize elements.
func FromMatrix(m mat.Matrix, f Format) (*Tensor, error) {
	if m == nil {
		return nil, fmt.Errorf("formats: FromMatrix of a nil matrix")
	}
	if _, err := f.Layout(2); err != nil {
		return nil, err
	}
	r, c := m.Dims()
	var rows, cols []int
	var vals []float64
	add := func(i, j int, v float64) {
		rows, cols, vals = append(rows, i), append(cols, j), append(vals, v)
	}
	if !doNonZero(m, add, false) {
		if u, ok := m.(mat.Untransposer); ok && doNonZero(u.Untranspose(), add, true) {
			// Read through the transpose.
		} else {
			if _, ok := denseSize(r, c); !ok {
				return nil, fmt.Errorf("formats: FromMatrix: scanning a %d×%d matrix exceeds MaxDenseSize (%d); pass a mat.NonZeroDoer", r, c, MaxDenseSize)
			}
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if v := m.At(i, j); v != 0 {
						add(i, j, v)
					}
				}
			}
		}
	}
	return FromCoords([]int{r, c}, [][]int{rows, cols}, vals, f)
}

// doNonZero calls add for the stored entries of m when m offers a way to
// enumerate them, swapping i and j when transposed; it reports whether it
// did.
func doNonZero(m mat.Matrix, add func(i, j int, v float64), transposed bool) bool {
	fn := add
	if transposed {
		fn = func(i, j int, v float64) { add(j, i, v) }
	}
	r, c := m.Dims()
	switch m := m.(type) {
	case mat.NonZeroDoer:
		m.DoNonZero(fn)
	case mat.RowNonZeroDoer:
		for i := 0; i < r; i++ {
			m.DoRowNonZero(i, fn)
		}
	case mat.ColNonZeroDoer:
		for j := 0; j < c; j++ {
			m.DoColNonZero(j, fn)
		}
	default:
		return false
	}
	return true
}

// ToDense returns a matrix tensor as a gonum dense matrix (duplicates
// added). It fails when t is not a valid matrix, has a zero extent (gonum
// has no empty matrices) or more than MaxDenseSize elements.
func (t *Tensor) ToDense() (*mat.Dense, error) {
	v, err := t.view()
	if err != nil {
		return nil, err
	}
	if len(t.Shape) != 2 {
		return nil, fmt.Errorf("formats: ToDense of a tensor of order %d, want a matrix", len(t.Shape))
	}
	r, c := t.Shape[0], t.Shape[1]
	if r == 0 || c == 0 {
		return nil, fmt.Errorf("formats: ToDense of an empty %d×%d matrix", r, c)
	}
	if _, ok := denseSize(r, c); !ok {
		return nil, fmt.Errorf("formats: ToDense: %d×%d elements exceed MaxDenseSize (%d)", r, c, MaxDenseSize)
	}
	d := mat.NewDense(r, c, nil)
	v.iterate(func(x []int, val float64) {
		d.Set(x[0], x[1], d.At(x[0], x[1])+val)
	})
	return d, nil
}

// Matrix adapts a valid matrix tensor to gonum's mat.Matrix and
// mat.NonZeroDoer. It reads the tensor's slices in place: changing them
// afterwards invalidates it.
type Matrix struct {
	v *view
}

// NewMatrix returns t as a gonum matrix, or an error when t is not a valid
// tensor of order 2.
func NewMatrix(t *Tensor) (*Matrix, error) {
	v, err := t.view()
	if err != nil {
		return nil, err
	}
	if len(t.Shape) != 2 {
		return nil, fmt.Errorf("formats: NewMatrix of a tensor of order %d, want a matrix", len(t.Shape))
	}
	return &Matrix{v}, nil
}

// Tensor returns the adapted tensor.
func (m *Matrix) Tensor() *Tensor { return m.v.t }

// Dims returns the number of rows and columns.
func (m *Matrix) Dims() (r, c int) { return m.v.t.Shape[0], m.v.t.Shape[1] }

// At returns the element at row i and column j (0 where nothing is
// stored). It panics with mat.ErrRowAccess or mat.ErrColAccess out of range.
func (m *Matrix) At(i, j int) float64 {
	r, c := m.Dims()
	if i < 0 || i >= r {
		panic(mat.ErrRowAccess)
	}
	if j < 0 || j >= c {
		panic(mat.ErrColAccess)
	}
	return m.v.at([]int{i, j})
}

// T returns the transpose of the matrix (a mat.Transpose, which does not
// copy).
func (m *Matrix) T() mat.Matrix { return mat.Transpose{Matrix: m} }

// DoNonZero calls fn for every stored non-zero element in storage order,
// per gonum's contract skipping stored zeros. A COO tensor with duplicate
// coordinates reports each of them: their values add up.
func (m *Matrix) DoNonZero(fn func(i, j int, v float64)) {
	m.v.iterate(func(x []int, v float64) {
		if v != 0 {
			fn(x[0], x[1], v)
		}
	})
}

var (
	_ mat.Matrix      = (*Matrix)(nil)
	_ mat.NonZeroDoer = (*Matrix)(nil)
)
