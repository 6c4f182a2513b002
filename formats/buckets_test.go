package formats

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"testing"
	"unsafe"
)

// TestFromSortedBuckets builds every test tensor from entries in storage
// order with the first stored mode given by bucket starts, in every
// format of its order, and compares the container with FromCoords'; CSR
// and CSC share the starts as their positions.
func TestFromSortedBuckets(t *testing.T) {
	for order := 1; order <= 3; order++ {
		for _, c := range cases(order) {
			for _, f := range ForOrder(order) {
				t.Run(fmt.Sprintf("order=%d/%s/%s", order, c.name, f), func(t *testing.T) {
					idx, val := storageSorted(t, c, f)
					want, err := FromCoords(c.shape, idx, val, f)
					if err != nil {
						t.Fatal(err)
					}
					lay, _ := f.Layout(order)
					first := lay.ModeOrder[0]
					start := make([]int, c.shape[first]+1)
					for _, x := range idx[first] {
						start[x+1]++
					}
					for i := 1; i < len(start); i++ {
						start[i] += start[i-1]
					}
					bidx := slices.Clone(idx)
					bidx[first] = nil
					got, err := FromSortedBuckets(c.shape, start, bidx, val, f)
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
					if denseOverLast(lay) && len(start) > 1 && unsafe.SliceData(got.Pos[1]) != unsafe.SliceData(start) {
						t.Errorf("the positions are a copy of the starts")
					}
				})
			}
		}
	}
}

func TestFromSortedBucketsRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		shape []int
		start []int
		idx   [][]int
		f     Format
		sort  bool // the error wraps ErrNotSorted
	}{
		{"unsorted in a row", []int{2, 3}, []int{0, 2, 2}, [][]int{nil, {2, 1}}, CSR, true},
		{"duplicate", []int{2, 3}, []int{0, 0, 2}, [][]int{nil, {1, 1}}, CSR, true},
		{"duplicate coo", []int{2, 3}, []int{0, 0, 2}, [][]int{nil, {1, 1}}, COO, true},
		{"unsorted csc", []int{3, 2}, []int{0, 2, 2}, [][]int{{2, 0}, nil}, CSC, true},
		{"starts short", []int{2, 3}, []int{0, 2}, [][]int{nil, {0, 1}}, CSR, false},
		{"starts do not end at n", []int{2, 3}, []int{0, 1, 1}, [][]int{nil, {0, 1}}, CSR, false},
		{"starts descend", []int{2, 3}, []int{0, 2, 1}, [][]int{nil, {0}}, CSR, false},
		{"out of range", []int{2, 3}, []int{0, 1, 1}, [][]int{nil, {3}}, CSR, false},
	} {
		val := make([]float64, c.start[len(c.start)-1])
		if c.name == "starts do not end at n" || c.name == "starts descend" {
			val = make([]float64, 2)
		}
		_, err := FromSortedBuckets(c.shape, c.start, c.idx, val, c.f)
		if err == nil || errors.Is(err, ErrNotSorted) != c.sort {
			t.Errorf("%s: err %v, want one that wraps ErrNotSorted: %v", c.name, err, c.sort)
		}
	}
}
