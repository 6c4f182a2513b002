package formats

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// storageSorted returns c's entries with duplicates summed, sorted in the
// storage order of f.
func storageSorted(t *testing.T, c coords, f Format) ([][]int, []float64) {
	t.Helper()
	u := mustBuild(t, c, CSF) // sums duplicates; row-major
	idx, val, err := u.Coords()
	if err != nil {
		t.Fatal(err)
	}
	lay, err := f.Layout(len(c.shape))
	if err != nil {
		t.Fatal(err)
	}
	perm := make([]int, len(val))
	for e := range perm {
		perm[e] = e
	}
	slices.SortFunc(perm, func(a, b int) int {
		for _, m := range lay.ModeOrder {
			if d := idx[m][a] - idx[m][b]; d != 0 {
				return d
			}
		}
		return 0
	})
	sidx := make([][]int, len(idx))
	for m := range idx {
		for _, e := range perm {
			sidx[m] = append(sidx[m], idx[m][e])
		}
		if sidx[m] == nil {
			sidx[m] = []int{}
		}
	}
	sval := []float64{}
	for _, e := range perm {
		sval = append(sval, val[e])
	}
	return sidx, sval
}

func sameBacking(a, b []int) bool {
	return len(a) > 0 && len(b) > 0 && unsafe.SliceData(a) == unsafe.SliceData(b)
}

// TestFromSortedCoords builds every test tensor from entries in storage
// order, in every format of its order, and compares the container with
// FromCoords', array by array; the slices stored as they are must be
// shared, not copied.
func TestFromSortedCoords(t *testing.T) {
	for order := 1; order <= 3; order++ {
		for _, c := range cases(order) {
			for _, f := range ForOrder(order) {
				t.Run(fmt.Sprintf("order=%d/%s/%s", order, c.name, f), func(t *testing.T) {
					idx, val := storageSorted(t, c, f)
					want, err := FromCoords(c.shape, idx, val, f)
					if err != nil {
						t.Fatal(err)
					}
					got, err := FromSortedCoords(c.shape, idx, val, f)
					if err != nil {
						t.Fatal(err)
					}
					if err := got.Validate(); err != nil {
						t.Fatal(err)
					}
					norm := func(s [][]int) [][]int {
						out := make([][]int, len(s))
						for i, x := range s {
							if len(x) > 0 {
								out[i] = x
							}
						}
						return out
					}
					if !reflect.DeepEqual(norm(got.Pos), norm(want.Pos)) || !reflect.DeepEqual(norm(got.Idx), norm(want.Idx)) ||
						!slices.Equal(got.Val, want.Val) || !slices.Equal(got.Shape, want.Shape) {
						t.Fatalf("container differs:\n got  pos %v idx %v val %v\n want pos %v idx %v val %v",
							got.Pos, got.Idx, got.Val, want.Pos, want.Idx, want.Val)
					}
					lay, _ := f.Layout(order)
					if !lay.AllDense() && len(val) > 0 {
						last := len(lay.Levels) - 1
						if !sameBacking(got.Idx[last], idx[lay.ModeOrder[last]]) {
							t.Errorf("the last level's idx is a copy")
						}
						if unsafe.SliceData(got.Val) != unsafe.SliceData(val) {
							t.Errorf("val is a copy")
						}
					}
				})
			}
		}
	}
}

func TestFromSortedCoordsRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		shape []int
		idx   [][]int
		f     Format
	}{
		{"unsorted rows", []int{3, 3}, [][]int{{1, 0}, {0, 0}}, CSR},
		{"unsorted in csc order", []int{3, 3}, [][]int{{0, 1}, {1, 0}}, CSC},
		{"duplicate", []int{3, 3}, [][]int{{1, 1}, {2, 2}}, COO},
		{"duplicate vector", []int{3}, [][]int{{2, 2}}, Dense},
	} {
		val := make([]float64, len(c.idx[0]))
		_, err := FromSortedCoords(c.shape, c.idx, val, c.f)
		if !errors.Is(err, ErrNotSorted) {
			t.Errorf("%s: err %v, want ErrNotSorted", c.name, err)
		}
	}
	if _, err := FromSortedCoords([]int{2}, [][]int{{2}}, []float64{1}, COO); err == nil || errors.Is(err, ErrNotSorted) {
		t.Errorf("out of range: err %v", err)
	}
	if _, err := FromSortedCoords([]int{1 << 20, 1 << 20}, [][]int{{0}, {0}}, []float64{1}, Dense); err == nil {
		t.Errorf("a dense tensor past MaxDenseSize was built")
	}
}
