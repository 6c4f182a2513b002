package exec

import (
	"slices"
	"testing"

	"github.com/nablasd/nablasd/lower"
)

// TestScatterKeys checks the leaf loop of an insert and store into a
// dense vector: it stops at the first key outside vals (the caller grows
// the level there) and otherwise adds or sets xs[off+k], or u, marking
// presence when there is one.
func TestScatterKeys(t *testing.T) {
	for _, tc := range []struct {
		name    string
		present bool
		xs      []float64
		u       float64
		set     bool
		keys    []int
		off     int
		done    int
		vals    []float64
		marked  []bool
	}{
		{name: "add", xs: []float64{9, 1, 2, 3}, off: 1, keys: []int{2, 0, 2}, done: 3, vals: []float64{2, 0, 4, 0}},
		{name: "add stops at a key beyond", xs: []float64{1, 2, 3}, keys: []int{1, 4, 1}, done: 1, vals: []float64{0, 1, 0, 0}},
		{name: "add stops at a negative key", xs: []float64{1, 2}, keys: []int{3, -1}, done: 1, vals: []float64{0, 0, 0, 1}},
		{name: "set with presence", present: true, xs: []float64{5, 6}, set: true, keys: []int{3, 3}, done: 2,
			vals: []float64{0, 0, 0, 6}, marked: []bool{false, false, false, true}},
		{name: "uniform add", u: 0.5, keys: []int{0, 0, 1}, done: 3, vals: []float64{1, 0.5, 0, 0}},
		{name: "uniform stops", present: true, u: 2, keys: []int{1, 7}, done: 1,
			vals: []float64{0, 2, 0, 0}, marked: []bool{false, true, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := make([]float64, 4)
			var present []bool
			if tc.present {
				present = make([]bool, 4)
			}
			done := scatterKeys(vals, present, tc.keys, tc.xs, tc.off, tc.u, tc.set)
			if done != tc.done || !slices.Equal(vals, tc.vals) {
				t.Errorf("done %d vals %v, want %d %v", done, vals, tc.done, tc.vals)
			}
			if tc.present && !slices.Equal(present, tc.marked) {
				t.Errorf("present %v, want %v", present, tc.marked)
			}
		})
	}
}

// TestBroadcastOp checks a binary operation with an ancestor's variable,
// read through the lane map, on either side.
func TestBroadcastOp(t *testing.T) {
	src := []float64{10, 20}
	anc := []int32{0, 0, 1}
	b := []float64{1, 2, 4}
	for _, tc := range []struct {
		op   lower.BinaryOp
		flip bool
		want []float64
	}{
		{lower.Add, false, []float64{11, 12, 24}},
		{lower.Add, true, []float64{11, 12, 24}},
		{lower.Mul, false, []float64{10, 20, 80}},
		{lower.Sub, false, []float64{9, 8, 16}},
		{lower.Sub, true, []float64{-9, -8, -16}},
		{lower.Div, false, []float64{10, 5, 5}},
		{lower.Div, true, []float64{0.1, 0.2, 0.2}},
	} {
		out := make([]float64, 3)
		broadcastOp(out, b, src, anc, tc.op, tc.flip)
		if !slices.Equal(out, tc.want) {
			t.Errorf("op %d flip %v: %v, want %v", tc.op, tc.flip, out, tc.want)
		}
	}
}

// TestBroadcastGatherOp checks the fused lookup and operation against
// the lookups gathered into a column (0 outside the vector: a negative key,
// one past it) and combined by broadcastOp, for every operation on either
// side, over a batch shorter than its columns.
func TestBroadcastGatherOp(t *testing.T) {
	src := []float64{10, 20, 30}
	anc := []int32{0, 0, 1, 2, 2, 1, 0}
	arr := []float64{1.5, -2, 4, 0.25}
	idx := []int{3, 0, -1, 2, 4, 1, 9}
	const n = 6
	gathered := make([]float64, n)
	for k, j := range idx[:n] {
		if j >= 0 && j < len(arr) {
			gathered[k] = arr[j]
		}
	}
	for _, op := range []lower.BinaryOp{lower.Add, lower.Sub, lower.Mul, lower.Div} {
		for _, flip := range []bool{false, true} {
			want := make([]float64, n)
			broadcastOp(want, gathered, src, anc, op, flip)
			got := make([]float64, n)
			broadcastGatherOp(got, idx, arr, src, anc, op, flip)
			if !slices.Equal(got, want) {
				t.Errorf("op %d flip %v: %v, want %v", op, flip, got, want)
			}
		}
	}
}

// TestCmpIU checks the comparisons of a column with a value the same in
// every lane, on either side, against cmpI lane by lane.
func TestCmpIU(t *testing.T) {
	a := []int{-3, 0, 2, 5, 7, 99}
	for _, op := range []lower.BinaryOp{lower.Lt, lower.Le, lower.Eq, lower.Ne} {
		for _, uLeft := range []bool{false, true} {
			got := make([]bool, 5)
			cmpIU(got, a, 2, op, uLeft)
			for k := range got {
				want := cmpI(op, a[k], 2)
				if uLeft {
					want = cmpI(op, 2, a[k])
				}
				if got[k] != want {
					t.Errorf("op %d uLeft %v lane %d (%d): %v, want %v", op, uLeft, k, a[k], got[k], want)
				}
			}
		}
	}
}

// TestInRange checks the fused range test 0 <= a && a < n, for bounds
// below zero, zero and above the keys.
func TestInRange(t *testing.T) {
	a := []int{-1, 0, 3, 4, 9}
	for _, n := range []int{-5, 0, 1, 4, 10} {
		got := make([]bool, 4)
		inRange(got, a, n)
		for k := range got {
			if want := 0 <= a[k] && a[k] < n; got[k] != want {
				t.Errorf("n %d lane %d (%d): %v, want %v", n, k, a[k], got[k], want)
			}
		}
	}
}

// TestProductSum checks the fused product and sum against the product
// computed factor by factor and summed lane by lane: into one sum, and
// into the ancestors' column by runs, for one to four column factors
// with a uniform first factor or none, over a batch shorter than its
// columns.
func TestProductSum(t *testing.T) {
	cols := [][]float64{{1, 2, 3, 4, 99}, {0.5, -1, 2, 3, 99}, {3, 1, 0.25, -2, 99}, {2, 2, -1, 0.5, 99}}
	anc := []int32{0, 0, 2, 2, 7}
	cx := &vctx{n: 4}
	for n := 1; n <= 4; n++ {
		for _, uniform := range []bool{false, true} {
			if n == 1 && !uniform {
				continue // a product has two factors
			}
			var u fexpr
			want := make([]float64, cx.n)
			for k := range want {
				want[k] = 1
				if uniform {
					want[k] = 1.5
				}
			}
			if uniform {
				u = func(*frame) float64 { return 1.5 }
			}
			var fs []fcol
			for _, c := range cols[:n] {
				fs = append(fs, func(*frame, *vctx) []float64 { return c })
				for k := range want {
					want[k] *= c[k]
				}
			}
			sum := productSum(u, fs)
			if got, w := sum(nil, cx, nil, nil, 10), 10+want[0]+want[1]+want[2]+want[3]; got != w {
				t.Errorf("%d columns, uniform %v: sum %v, want %v", n, uniform, got, w)
			}
			col := []float64{1, 1, 1, 1}
			sum(nil, cx, col, anc, 0)
			if w := []float64{1 + want[0] + want[1], 1, 1 + want[2] + want[3], 1}; !slices.Equal(col, w) {
				t.Errorf("%d columns, uniform %v: runs %v, want %v", n, uniform, col, w)
			}
		}
	}
}
