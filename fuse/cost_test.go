package fuse

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestCostModel checks the cost model's ingredients: a sum costs its
// source's size times its body, a hash-map lookup costs more than an array
// read, building a dictionary is charged per entry, and sizes come from
// the inputs' stats.
func TestCostModel(t *testing.T) {
	types := map[string]sdql.Type{"V": vecT, "A": matT, "a": rarr, "n": sdql.IntType, "x": sdql.RealType}
	stats := Stats{"V": {1000}, "A": {100, 10}, "a": {1000}, "n": {1000}}
	cost := func(src string) float64 { return Cost(sdql.MustParse(src), types, stats) }
	if c1, c2 := cost("sum(<i, v> in V) v"), cost("sum(<i, v> in V) v * x"); c2 <= c1 || c1 < 1000 {
		t.Errorf("sum over V: %g; with a multiplication per entry: %g", c1, c2)
	}
	if c1, c2 := cost("sum(<i, r> in A) sum(<j, v> in r) v"), cost("sum(<i, v> in V) v"); c1 < 1000 || c1 > 3*c2 {
		t.Errorf("a 100 x 10 matrix: %g, a 1000-vector: %g", c1, c2)
	}
	if hash, arr := cost("sum(<i, _> in (0:n)) V(i)"), cost("sum(<i, _> in (0:n)) a(i)"); hash <= arr {
		t.Errorf("hash lookups %g should cost more than array reads %g", hash, arr)
	}
	if built, scalar := cost("sum(<i, v> in V) { i -> v }"), cost("sum(<i, v> in V) v"); built <= scalar {
		t.Errorf("building a dictionary %g should cost more than summing %g", built, scalar)
	}
	if dense, sparse := Cost(sdql.MustParse("sum(<i, r> in A) sum(<j, v> in r) v"), types, Stats{"A": {5000, 5000}}),
		Cost(sdql.MustParse("sum(<i, r> in A) sum(<j, v> in r) v"), types, Stats{"A": {5000, 4}}); dense < 1000*sparse {
		t.Errorf("a dense 5000 x 5000 matrix costs %g, one with 4 entries a row %g", dense, sparse)
	}
	if fused, unfused := cost("sum(<i, v> in V) { i -> v * x }"), cost("sum(<i, v> in sum(<j, w> in V) { j -> w * x }) { i -> v }"); fused >= unfused {
		t.Errorf("the fused loop %g should be cheaper than building the intermediate %g", fused, unfused)
	}
}
