package formats

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
	"gonum.org/v1/gonum/mat"
)

// triplets stands in for a github.com/james-bowman/sparse matrix: it
// offers its stored entries through mat.NonZeroDoer, in no particular
// order, explicit zeros included.
type triplets struct {
	r, c    int
	i, j    []int
	v       []float64
	atCalls int
}

func (m *triplets) Dims() (int, int) { return m.r, m.c }
func (m *triplets) At(i, j int) float64 {
	m.atCalls++
	s := 0.0
	for e := range m.v {
		if m.i[e] == i && m.j[e] == j {
			s += m.v[e]
		}
	}
	return s
}
func (m *triplets) T() mat.Matrix { return mat.Transpose{Matrix: m} }
func (m *triplets) DoNonZero(fn func(i, j int, v float64)) {
	for e := len(m.v) - 1; e >= 0; e-- {
		fn(m.i[e], m.j[e], m.v[e])
	}
}

// rowDoer and colDoer offer only row-wise or column-wise enumeration.
type rowDoer struct{ *triplets }

func (m rowDoer) DoNonZero() {} // hides the NonZeroDoer method set
func (m rowDoer) DoRowNonZero(i int, fn func(i, j int, v float64)) {
	for e := range m.v {
		if m.i[e] == i {
			fn(m.i[e], m.j[e], m.v[e])
		}
	}
}

type colDoer struct{ *triplets }

func (m colDoer) DoNonZero() {}
func (m colDoer) DoColNonZero(j int, fn func(i, j int, v float64)) {
	for e := range m.v {
		if m.j[e] == j {
			fn(m.i[e], m.j[e], m.v[e])
		}
	}
}

func sample() *triplets {
	return &triplets{r: 3, c: 4, i: []int{0, 2, 1, 2}, j: []int{1, 3, 0, 0}, v: []float64{1.5, -2, 0, 4}}
}

func TestFromMatrixNonZeroDoers(t *testing.T) {
	src := sample()
	want, err := FromCoords([]int{3, 4}, [][]int{src.i, src.j}, src.v, COO)
	if err != nil {
		t.Fatal(err)
	}
	for name, m := range map[string]mat.Matrix{"nonzero": src, "row": rowDoer{src}, "col": colDoer{src}} {
		for _, f := range ForOrder(2) {
			x, err := FromMatrix(m, f)
			if err != nil {
				t.Fatalf("%s/%s: %v", name, f, err)
			}
			if err := samePositions(ToValue(x), ToValue(want)); err != nil && !isDense(f) {
				t.Errorf("%s/%s: %v", name, f, err)
			}
			if !sdql.Equal(ToValue(x), ToValue(want)) {
				t.Errorf("%s/%s: value differs", name, f)
			}
		}
	}
	if src.atCalls != 0 {
		t.Errorf("FromMatrix called At %d times on a NonZeroDoer", src.atCalls)
	}
	// Through a transpose.
	x, err := FromMatrix(src.T(), CSR)
	if err != nil {
		t.Fatal(err)
	}
	if x.Shape[0] != 4 || x.Shape[1] != 3 || x.At(3, 2) != -2 || x.NNZ() != 4 || src.atCalls != 0 {
		t.Errorf("transpose: %v, At(3, 2) = %v, At calls %d", x, x.At(3, 2), src.atCalls)
	}
}

func TestGonumRoundTrip(t *testing.T) {
	d := mat.NewDense(3, 4, []float64{
		0, 1.5, 0, 0,
		0, 0, 0, 0,
		4, 0, 0, -2,
	})
	for _, f := range ForOrder(2) {
		x, err := FromMatrix(d, f)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 3, true: 12}[isDense(f)]; x.NNZ() != want {
			t.Errorf("%s: scanning a dense matrix stores %d entries, want %d", f, x.NNZ(), want)
		}
		back, err := x.ToDense()
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(back, d) {
			t.Errorf("%s: ToDense gives\n%v", f, mat.Formatted(back))
		}
		m, err := NewMatrix(x)
		if err != nil {
			t.Fatal(err)
		}
		if !mat.Equal(m, d) || !mat.Equal(m.T(), d.T()) {
			t.Errorf("%s: the Matrix adapter differs from the source", f)
		}
		// The adapter is a NonZeroDoer: a second import reads it that way.
		y, err := FromMatrix(m, CSC)
		if err != nil {
			t.Fatal(err)
		}
		if y.NNZ() != 3 || !sdql.Equal(ToValue(y), ToValue(x)) {
			t.Errorf("%s: through DoNonZero: %v", f, y)
		}
		// Gonum arithmetic accepts the adapter.
		var p mat.Dense
		p.Mul(m, d.T())
		var q mat.Dense
		q.Mul(d, d.T())
		if !mat.Equal(&p, &q) {
			t.Errorf("%s: Mul through the adapter differs", f)
		}
	}
}

func TestGonumErrors(t *testing.T) {
	v := mustBuild(t, entries("v", []int{3}, []float64{1}, []int{0}), COO)
	if _, err := v.ToDense(); err == nil || !strings.Contains(err.Error(), "want a matrix") {
		t.Errorf("ToDense of a vector: %v", err)
	}
	if _, err := NewMatrix(v); err == nil {
		t.Error("NewMatrix of a vector succeeded")
	}
	e := mustBuild(t, entries("e", []int{0, 3}, nil, nil, nil), CSR)
	if _, err := e.ToDense(); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("ToDense of an empty matrix: %v", err)
	}
	big := mustBuild(t, entries("big", []int{1 << 20, 1 << 20}, []float64{1}, []int{5}, []int{7}), DCSR)
	if _, err := big.ToDense(); err == nil || !strings.Contains(err.Error(), "MaxDenseSize") {
		t.Errorf("ToDense of a huge matrix: %v", err)
	}
	m, err := NewMatrix(big)
	if err != nil {
		t.Fatal(err)
	}
	if m.At(5, 7) != 1 || m.At(7, 5) != 0 {
		t.Error("At on a huge DCSR matrix")
	}
	if _, err := FromMatrix(mat.Transpose{Matrix: m}, Dense); err == nil || !strings.Contains(err.Error(), "MaxDenseSize") {
		t.Errorf("FromMatrix of a huge matrix into dense: %v", err)
	}
	if _, err := FromMatrix(sample(), CSF); err != nil {
		t.Errorf("FromMatrix into csf (order 2 = dcsr): %v", err)
	}
	if _, err := FromMatrix(nil, CSR); err == nil {
		t.Error("FromMatrix(nil) succeeded")
	}
	defer func() {
		if r := recover(); r != mat.ErrRowAccess {
			t.Errorf("At out of range panics with %v", r)
		}
	}()
	m.At(-1, 0)
}
