package formats

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// coords is a tensor given by its entries, before it is stored.
type coords struct {
	name  string
	shape []int
	idx   [][]int
	val   []float64
}

// randomCoords returns n random entries (duplicates and explicit zeros
// possible) of a tensor of the given shape.
func randomCoords(r *rand.Rand, name string, shape []int, n int) coords {
	c := coords{name: name, shape: shape, idx: make([][]int, len(shape))}
	for e := 0; e < n; e++ {
		for m, d := range shape {
			c.idx[m] = append(c.idx[m], r.IntN(d))
		}
		v := float64(r.IntN(19) - 9)
		if r.IntN(4) > 0 {
			v += r.Float64()
		}
		c.val = append(c.val, v)
	}
	return c
}

// allCoords returns every position of the shape, with values 1, 2, ...
// and a zero at the first position.
func allCoords(name string, shape []int) coords {
	c := coords{name: name, shape: shape, idx: make([][]int, len(shape))}
	x := make([]int, len(shape))
	for e := 0; ; e++ {
		for m := range shape {
			c.idx[m] = append(c.idx[m], x[m])
		}
		c.val = append(c.val, float64(e))
		m := len(shape) - 1
		for m >= 0 {
			x[m]++
			if x[m] < shape[m] {
				break
			}
			x[m] = 0
			m--
		}
		if m < 0 {
			return c
		}
	}
}

func entries(name string, shape []int, val []float64, idx ...[]int) coords {
	return coords{name: name, shape: shape, idx: idx, val: val}
}

// cases returns the test tensors of an order: edge cases and seeded
// random data.
func cases(order int) []coords {
	r := rand.New(rand.NewPCG(uint64(order), 42))
	var cs []coords
	switch order {
	case 1:
		cs = []coords{
			entries("empty", []int{5}, nil, nil),
			entries("zero-extent", []int{0}, nil, nil),
			entries("one", []int{5}, []float64{2.5}, []int{3}),
			entries("explicit-zero", []int{4}, []float64{0, 1}, []int{2, 0}),
			entries("duplicates", []int{4}, []float64{1, 2, 0}, []int{1, 1, 3}),
			allCoords("all", []int{6}),
		}
	case 2:
		cs = []coords{
			entries("empty", []int{3, 4}, nil, nil, nil),
			entries("zero-extent", []int{0, 4}, nil, nil, nil),
			entries("zero-cols", []int{3, 0}, nil, nil, nil),
			entries("one", []int{3, 4}, []float64{7}, []int{2}, []int{1}),
			entries("empty-rows-cols", []int{5, 6}, []float64{1, 2, 3},
				[]int{1, 3, 3}, []int{4, 0, 4}),
			entries("explicit-zero", []int{2, 2}, []float64{0, 0, 5},
				[]int{0, 1, 1}, []int{1, 0, 1}),
			entries("duplicates", []int{3, 3}, []float64{1, 2, 4},
				[]int{2, 0, 2}, []int{1, 0, 1}),
			allCoords("all", []int{3, 4}),
		}
	case 3:
		cs = []coords{
			entries("empty", []int{2, 3, 4}, nil, nil, nil, nil),
			entries("zero-tubes", []int{2, 3, 0}, nil, nil, nil, nil),
			entries("empty-fibers", []int{3, 3, 2}, []float64{1, 0},
				[]int{0, 2}, []int{2, 0}, []int{1, 1}),
			entries("one", []int{2, 3, 4}, []float64{7}, []int{1}, []int{2}, []int{3}),
			entries("explicit-zero", []int{2, 2, 2}, []float64{0, 3, 0},
				[]int{0, 1, 1}, []int{1, 0, 1}, []int{1, 0, 0}),
			entries("duplicates", []int{3, 3, 3}, []float64{1, 2, 4},
				[]int{2, 0, 2}, []int{1, 0, 1}, []int{0, 0, 0}),
			allCoords("all", []int{2, 3, 2}),
		}
	}
	for i := 0; i < 6; i++ {
		shape := make([]int, order)
		for m := range shape {
			shape[m] = 1 + r.IntN(7)
		}
		cs = append(cs, randomCoords(r, fmt.Sprintf("random%d", i), shape, r.IntN(3*len(shape)*4)))
	}
	big := make([]int, order)
	for m := range big {
		big[m] = 40 / order
	}
	return append(cs, randomCoords(r, "random-large", big, 300))
}

// mustBuild stores c in f, failing the test on error.
func mustBuild(t testing.TB, c coords, f Format) *Tensor {
	t.Helper()
	x, err := FromCoords(c.shape, c.idx, c.val, f)
	if err != nil {
		t.Fatalf("%s in %s: FromCoords: %v", c.name, f, err)
	}
	if err := x.Validate(); err != nil {
		t.Fatalf("%s in %s: FromCoords gave an invalid tensor: %v", c.name, f, err)
	}
	return x
}

// leaves returns the coordinate tuples of the scalar entries of a nested
// dictionary, sorted: its stored structure.
func leaves(v sdql.Value) []string {
	var out []string
	var walk func(prefix string, v sdql.Value)
	walk = func(prefix string, v sdql.Value) {
		if !sdql.Entries(v, func(k int, x sdql.Value) bool {
			walk(fmt.Sprintf("%s%d,", prefix, k), x)
			return true
		}) {
			out = append(out, prefix)
		}
	}
	walk("", v)
	sort.Strings(out)
	return slices.Compact(out)
}

// sameValue reports whether two logical dictionaries are equal as
// dictionaries: the same keys at every level, empty inner dictionaries
// included. A format's definition and its container must agree so.
func sameValue(a, b sdql.Value) error {
	if d := sdql.DiffDicts(a, b, 1e-9); d != "" {
		return fmt.Errorf("values differ %s:\n  %s\n  %s", d, sdql.FormatValue(a), sdql.FormatValue(b))
	}
	return nil
}

// samePositions reports whether two logical dictionaries are equal as
// functions and store the same scalar positions: how the same tensor in
// two sparse formats compares (a CSR matrix also has its empty rows, {}).
func samePositions(a, b sdql.Value) error {
	if !sdql.Equal(a, b) {
		return fmt.Errorf("values differ:\n  %s\n  %s", sdql.FormatValue(a), sdql.FormatValue(b))
	}
	la, lb := leaves(a), leaves(b)
	if !slices.Equal(la, lb) {
		return fmt.Errorf("stored positions differ:\n  %s\n  %s", strings.Join(la, " "), strings.Join(lb, " "))
	}
	return nil
}
