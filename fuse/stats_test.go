package fuse

import (
	"math"
	"math/rand"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestFanoutMatchesStatsOf: the sizes a tensor reports without building
// its dictionary (formats.Tensor.Fanout, what nablasd gives the cost model)
// are those StatsOf measures on the dictionary, for every format and order
// 1-3, with empty tensors, empty rows and COO duplicates.
func TestFanoutMatchesStatsOf(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	cases := 0
	for order := 1; order <= 3; order++ {
		for _, f := range formats.ForOrder(order) {
			for trial := 0; trial < 30; trial++ {
				shape := make([]int, order)
				for m := range shape {
					shape[m] = 1 + r.Intn(6)
				}
				nnz := r.Intn(12) // 0: the empty tensor
				idx := make([][]int, order)
				val := make([]float64, nnz)
				for q := range val {
					for m := range idx {
						idx[m] = append(idx[m], r.Intn(shape[m]))
					}
					val[q] = float64(r.Intn(3)) // stored zeros too
				}
				tn, err := formats.FromCoords(shape, idx, val, f)
				if err != nil {
					continue // duplicates, for the formats that refuse them
				}
				want := StatsOf(map[string]sdql.Value{"t": formats.ToValue(tn)})["t"]
				got := tn.Fanout()
				if len(got) != len(want) {
					t.Fatalf("%s %v %v: Fanout %v, StatsOf %v", f, shape, idx, got, want)
				}
				for l := range got {
					if math.Abs(got[l]-want[l]) > 1e-12*math.Max(1, want[l]) {
						t.Fatalf("%s %v %v: Fanout %v, StatsOf %v", f, shape, idx, got, want)
					}
				}
				cases++
			}
		}
	}
	if cases < 200 {
		t.Fatalf("only %d tensors compared", cases)
	}
}
