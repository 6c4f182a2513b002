package datasets

import (
	"reflect"
	"testing"
	"time"
)

// checkSynthetic checks that c is sorted row-major without duplicates, in
// range, with nnz entries.
func checkSynthetic(t *testing.T, c *Coords, shape []int, nnz int) {
	t.Helper()
	if !reflect.DeepEqual(c.Shape, shape) {
		t.Errorf("shape %v, want %v", c.Shape, shape)
	}
	if c.NNZ() != nnz {
		t.Errorf("nnz %d, want %d", c.NNZ(), nnz)
	}
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	if !c.IsSorted() {
		t.Error("entries not sorted row-major")
	}
}

// checkSymmetric checks that c equals its transpose.
func checkSymmetric(t *testing.T, c *Coords) {
	t.Helper()
	type key struct{ i, j int }
	m := make(map[key]float64, c.NNZ())
	for e, v := range c.Val {
		m[key{c.Idx[0][e], c.Idx[1][e]}] = v
	}
	for k, v := range m {
		if w, ok := m[key{k.j, k.i}]; !ok || w != v {
			t.Fatalf("entry (%d, %d) = %v has mirror %v, %v", k.i, k.j, v, w, ok)
		}
	}
}

func TestGenerate(t *testing.T) {
	tests := []struct {
		spec  SynthSpec
		shape []int
		nnz   int
	}{
		{SynthSpec{Dims: []int{1000}, Density: 0.1}, []int{1000}, 100},
		{SynthSpec{Dims: []int{10}, Density: 1}, []int{10}, 10},
		{SynthSpec{Dims: []int{10}, Density: 0}, []int{10}, 0},
		{SynthSpec{Dims: []int{200, 300}, Density: 0.01, Seed: 3}, []int{200, 300}, 600},
		{SynthSpec{Dims: []int{200, 300}, Density: 0.9}, []int{200, 300}, 54000},
		{SynthSpec{Dims: []int{1 << 30, 1 << 30}, NNZ: 1000}, []int{1 << 30, 1 << 30}, 1000},
		{SynthSpec{Dims: []int{10, 20, 30}, Density: 0.05}, []int{10, 20, 30}, 300},
		{SynthSpec{Dims: []int{500, 400}, Density: 0.02, Kind: Banded}, []int{500, 400}, 4000},
		{SynthSpec{Dims: []int{500, 500}, Density: 0.02, Kind: Banded, Symmetric: true}, []int{500, 500}, 5000},
		{SynthSpec{Dims: []int{501, 501}, NNZ: 5001, Kind: Banded, Symmetric: true, Bandwidth: 20}, []int{501, 501}, 5001},
		{SynthSpec{Dims: []int{500, 500}, Density: 0.02, Kind: Uniform, Symmetric: true}, []int{500, 500}, 5000},
		{SynthSpec{Dims: []int{1000, 800}, Density: 0.01, Kind: PowerLaw, Alpha: 1.2}, []int{1000, 800}, 8000},
		{SynthSpec{Dims: []int{1000, 1000}, Density: 0.01, Kind: PowerLaw, Symmetric: true}, []int{1000, 1000}, 10000},
		{SynthSpec{Dims: []int{20, 10, 10}, Density: 0.1, Kind: Banded}, []int{20, 10, 10}, 200},
		{SynthSpec{Dims: []int{20, 10, 10}, Density: 0.1, Kind: PowerLaw}, []int{20, 10, 10}, 200},
		{SynthSpec{Dims: []int{30, 30}, Density: 1, Kind: Banded}, []int{30, 30}, 900},
	}
	for _, tt := range tests {
		c, err := Generate(tt.spec)
		if err != nil {
			t.Errorf("%+v: %v", tt.spec, err)
			continue
		}
		checkSynthetic(t, c, tt.shape, tt.nnz)
		if tt.spec.Symmetric {
			checkSymmetric(t, c)
		}
		again, _ := Generate(tt.spec)
		if !reflect.DeepEqual(c, again) {
			t.Errorf("%+v: not deterministic", tt.spec)
		}
	}
}

func TestGenerateBanded(t *testing.T) {
	c, err := Generate(SynthSpec{Dims: []int{1000, 1000}, NNZ: 10000, Kind: Banded, Bandwidth: 15})
	if err != nil {
		t.Fatal(err)
	}
	for e := range c.Val {
		if d := c.Idx[0][e] - c.Idx[1][e]; d > 15 || d < -15 {
			t.Fatalf("entry (%d, %d) outside the band", c.Idx[0][e], c.Idx[1][e])
		}
	}
}

func TestGeneratePowerLaw(t *testing.T) {
	c, err := Generate(SynthSpec{Dims: []int{10000, 10000}, NNZ: 100000, Kind: PowerLaw})
	if err != nil {
		t.Fatal(err)
	}
	rowLen := make([]int, 10000)
	for _, i := range c.Idx[0] {
		rowLen[i]++
	}
	longest := 0
	for _, n := range rowLen {
		longest = max(longest, n)
	}
	// Zipf with exponent 1 over 10000 rows: the longest row holds ~1/H(10000) ≈ 10%.
	if longest < 5000 {
		t.Errorf("longest row has %d entries, want a heavy head", longest)
	}
}

func TestGenerateErrors(t *testing.T) {
	tests := []struct {
		spec SynthSpec
		err  string
	}{
		{SynthSpec{}, "synthetic: 0 modes (want 1, 2 or 3)"},
		{SynthSpec{Dims: []int{2, 2, 2, 2}}, "synthetic: 4 modes (want 1, 2 or 3)"},
		{SynthSpec{Dims: []int{-1}}, "synthetic: dimension -1 out of range 0..2147483647"},
		{SynthSpec{Dims: []int{10}, Density: 1.5}, "synthetic: density 1.5 out of range [0, 1]"},
		{SynthSpec{Dims: []int{10}, NNZ: 11}, "synthetic: 11 entries do not fit in shape [10]"},
		{SynthSpec{Dims: []int{10}, Density: 0.5, Kind: "zipf"}, `synthetic: unknown kind "zipf" (want uniform, banded or powerlaw)`},
		{SynthSpec{Dims: []int{10}, Density: 0.5, Kind: Banded}, "synthetic: kind banded needs a matrix or an order-3 tensor"},
		{SynthSpec{Dims: []int{10, 20}, Density: 0.5, Symmetric: true}, "synthetic: symmetric needs a square matrix, got shape [10 20]"},
		{SynthSpec{Dims: []int{100, 100}, NNZ: 1000, Kind: Banded, Bandwidth: 2}, "synthetic: 1000 entries do not fit in the 494 positions of the banded pattern"},
	}
	for _, tt := range tests {
		_, err := Generate(tt.spec)
		if err == nil || err.Error() != tt.err {
			t.Errorf("Generate(%+v):\n got %v\nwant %s", tt.spec, err, tt.err)
		}
	}
}

func TestSurrogate(t *testing.T) {
	for _, m := range TableOne() {
		if m.NNZ > 2_500_000 && testing.Short() {
			continue
		}
		t.Run(m.Name, func(t *testing.T) {
			start := time.Now()
			c, err := Surrogate(m.Name, 1)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s: %d entries in %v", m.Name, c.NNZ(), time.Since(start).Round(time.Millisecond))
			if c.NNZ() != m.NNZ || c.Shape[0] != m.Rows || c.Shape[1] != m.Cols {
				t.Errorf("got %v with %d entries, want %d x %d with %d", c.Shape, c.NNZ(), m.Rows, m.Cols, m.NNZ)
			}
			if !c.IsSorted() {
				t.Error("not sorted row-major without duplicates")
			}
			diag, upper := 0, 0
			for e := range c.Val {
				i, j := c.Idx[0][e], c.Idx[1][e]
				if i == j {
					diag++
				} else if i < j {
					upper++
				}
			}
			if m.Symmetry == "symmetric" && (diag != m.Diagonal() || diag+upper != m.Stored) {
				t.Errorf("%d diagonal and %d upper entries, want %d and %d", diag, upper, m.Diagonal(), m.Stored-m.Diagonal())
			}
		})
	}
}
