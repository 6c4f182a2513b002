package datasets

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSortInPlace: sortInPlace then sumAdjacent (a grouped input's
// entries, reusing one scratch from one case to the next) gives sortSum's
// entries, to the bit: random coordinates with many stored twice, in
// shapes with modes of extent 1 and in both mode orders of a matrix and
// a permuted order of a 3-tensor.
func TestSortInPlace(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	sc := &sortScratch{}
	for _, c := range []struct {
		shape, order []int
	}{
		{[]int{7}, []int{0}}, {[]int{1}, []int{0}}, {[]int{5, 9}, []int{0, 1}}, {[]int{5, 9}, []int{1, 0}},
		{[]int{1, 300}, []int{0, 1}}, {[]int{40, 1}, []int{1, 0}}, {[]int{4, 3, 6}, []int{2, 0, 1}},
	} {
		for _, n := range []int{0, 1, 2, 50, 3000} {
			t.Run(fmt.Sprintf("shape=%v/order=%v/n=%d", c.shape, c.order, n), func(t *testing.T) {
				idx := make([][]int, len(c.shape))
				for m := range idx {
					for range n {
						idx[m] = append(idx[m], r.IntN(c.shape[m]))
					}
				}
				val := make([]float64, n)
				for e := range val {
					val[e] = r.NormFloat64()
				}
				wantIdx, wantVal := sortSum(c.shape, c.order, idx, val)
				if !sortInPlace(c.shape, c.order, idx, val, sc) {
					t.Fatal("the keys do not fit")
				}
				gotIdx, gotVal := sumAdjacent(idx, val)
				for m := range wantIdx {
					if !slices.Equal(gotIdx[m], wantIdx[m]) {
						t.Fatalf("mode %d: %v, want %v", m, gotIdx[m], wantIdx[m])
					}
				}
				if !slices.Equal(gotVal, wantVal) {
					t.Fatalf("values %v, want %v", gotVal, wantVal)
				}
			})
		}
	}
	// keys wider than 64 bits: refused, the entries left as they were
	shape := []int{1 << 40, 1 << 30}
	idx, val := [][]int{{3, 1}, {0, 0}}, []float64{1, 2}
	if sortInPlace(shape, []int{0, 1}, idx, val, sc) || idx[0][0] != 3 {
		t.Errorf("sortInPlace of 70-bit keys: %v", idx)
	}
}
