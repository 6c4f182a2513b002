package exec

import (
	"testing"

	"github.com/nablasd/nablasd/lower"
)

// TestPrimitiveLoops: every primitive rule of lower.Rules has a loop
// here, and nothing here names a rule lower does not have.
func TestPrimitiveLoops(t *testing.T) {
	names := map[string]bool{}
	for _, r := range lower.Rules {
		names[r.Name] = true
		if primitiveLoops[r.Name] == nil {
			t.Errorf("rule %s has no primitive loop in exec", r.Name)
		}
	}
	for n := range primitiveLoops {
		if !names[n] {
			t.Errorf("exec runs a primitive %s that lower.Rules lacks", n)
		}
	}
}

// TestStridedDot checks stridedDot against the loop it replaces, Σ over
// i in lo..hi-1 of A[oa + sa·i]·B[ob + sb·i] added in order (so equal to
// the last bit), for strides forward, backward and larger, one operand
// or two, and that a read past an array's end panics as the load would.
func TestStridedDot(t *testing.T) {
	A, B := make([]float64, 24), make([]float64, 24)
	for i := range A {
		A[i], B[i] = 1/float64(i+3), float64(i%5)-1.75
	}
	strides := []int{1, -1, 2, -2, 3}
	for _, sa := range strides {
		for _, sb := range append(strides, 0) { // 0: no B
			for lo := -3; lo <= 3; lo++ {
				for n := 1; n <= 4; n++ {
					hi := lo + n
					oa := 11 - sa*lo // the reads around the middle
					ob := 12 - sb*lo
					want := 0.0
					for i := lo; i < hi; i++ {
						if sb == 0 {
							want += A[oa+sa*i]
						} else {
							want += A[oa+sa*i] * B[ob+sb*i]
						}
					}
					var b []float64
					if sb != 0 {
						b = B
					}
					if got := stridedDot(A, oa, sa, b, ob, sb, lo, hi); got != want {
						t.Errorf("strides %d, %d over %d..%d: got %v, want %v", sa, sb, lo, hi, got, want)
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("a read past A's end did not panic")
		}
	}()
	stridedDot(A, len(A)-2, 1, B, 0, -1, 0, 3)
}

// TestLaneMajorDot checks laneMajorDot, the dots of a batch of lanes
// term by term, against each lane's own loop (Σ over i in lo..hi-1 of
// A[oa_k + sa·i]·B[ob_k + sb·i], added in order, so equal to the last
// bit), for every kind of offsets (the same for every lane, a column,
// consecutive, at a step of 2), strides forward, backward and larger, one operand or
// two, and term counts around axpyTerms' blocks of four.
func TestLaneMajorDot(t *testing.T) {
	const lanes = 7
	A, B := make([]float64, 100), make([]float64, 100)
	for i := range A {
		A[i], B[i] = 1/float64(i+3), float64(i%5)-1.75+1/float64(i+7)
	}
	offsets := func(kind string, base int) laneInts {
		switch kind {
		case "uniform":
			return laneInts{v: base}
		case "seq":
			return laneInts{v: base, step: 1, seq: true}
		case "step2":
			return laneInts{v: base, step: 2, seq: true}
		}
		col := make([]int, lanes)
		for k := range col {
			col[k] = base + (k*5)%lanes // not in order
		}
		return laneInts{col: col}
	}
	kinds := []string{"uniform", "col", "seq", "step2"}
	strides := []int{1, -1, 2, -3}
	for _, ka := range kinds {
		for _, kb := range append(kinds, "none") {
			if ka == "uniform" && (kb == "uniform" || kb == "none") {
				continue // every lane the same: laneMajorDot is not used
			}
			for _, sa := range strides {
				for _, sb := range strides {
					for n := 1; n <= 9; n++ {
						lo := 2
						hi := lo + n
						oa := offsets(ka, 35-sa*lo)
						ob := offsets(kb, 36-sb*lo)
						var b []float64
						if kb != "none" {
							b = B
						}
						sums := make([]float64, lanes)
						laneMajorDot(sums, A, oa, sa, b, ob, sb, lo, hi, make([]int, lanes), make([]int, lanes))
						for k := range lanes {
							want := 0.0
							for i := lo; i < hi; i++ {
								if b == nil {
									want += A[oa.at(k)+sa*i]
								} else {
									want += A[oa.at(k)+sa*i] * B[ob.at(k)+sb*i]
								}
							}
							if sums[k] != want {
								t.Errorf("offsets %s, %s, strides %d, %d, %d terms: lane %d got %v, want %v", ka, kb, sa, sb, n, k, sums[k], want)
							}
						}
					}
				}
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Errorf("a read past A's end did not panic")
		}
	}()
	laneMajorDot(make([]float64, lanes), A, laneInts{v: len(A) - 3, step: 1, seq: true}, 1, B, laneInts{v: 0}, 1, 0, 2, make([]int, lanes), make([]int, lanes))
}

// TestLaneMajorRow checks laneMajorRow, a MapRow's lanes added window by
// window, against the lanes' own loops (lane by lane, dst[j] += c[k]·A[o[k]
// + s·(lo + j)]), equal to the last bit, for windows around its blocks of
// eight and four entries, scattered and consecutive offsets, and strides
// forward, backward and larger.
func TestLaneMajorRow(t *testing.T) {
	const lanes = 6
	A := make([]float64, 160)
	for i := range A {
		A[i] = 1/float64(i+3) - float64(i%7)
	}
	c := make([]float64, lanes)
	scattered, consecutive := make([]int, lanes), make([]int, lanes)
	for k := range lanes {
		c[k] = 0.3 + 1/float64(k+2)
		scattered[k] = 70 + (k*7)%11
		consecutive[k] = 70 + k
	}
	for _, o := range [][]int{scattered, consecutive} {
		for _, s := range []int{1, -1, 2, -3} {
			for width := 1; width <= 14; width++ {
				lo := 3
				got, want := make([]float64, width), make([]float64, width)
				for j := range got {
					got[j] = float64(j) / 7
					want[j] = got[j]
				}
				for k := range lanes {
					for j := range want {
						want[j] += c[k] * A[o[k]+s*(lo+j)]
					}
				}
				laneMajorRow(got, c, A, o, s, lo)
				for j := range got {
					if got[j] != want[j] {
						t.Errorf("offsets %v, stride %d, %d entries: entry %d got %v, want %v", o, s, width, j, got[j], want[j])
					}
				}
			}
		}
	}
}

// TestStridedRows checks stridedRows, a MapRow whose lanes add one window
// at keys d apart, against the lanes' own loops (lane by lane, dst[d·k +
// i] += c[k]·a[i]), equal to the last bit: the windows overlap for d
// below their width, where each entry's additions must come in the
// lanes' order; and steps, which finds d in the lanes' keys.
func TestStridedRows(t *testing.T) {
	const lanes = 7
	c := make([]float64, lanes)
	for k := range lanes {
		c[k] = 0.3 + 1/float64(k+2)
	}
	for _, width := range []int{1, 3, 8} {
		a := make([]float64, width)
		for i := range a {
			a[i] = 1/float64(i+3) - float64(i%5)
		}
		for _, d := range []int{1, 2, 3, 9} {
			n := d*(lanes-1) + width
			got, want := make([]float64, n), make([]float64, n)
			for j := range got {
				got[j] = float64(j) / 7
				want[j] = got[j]
			}
			for k := range lanes {
				for i, x := range a {
					want[d*k+i] += c[k] * 2 * x
				}
			}
			keys := make([]int, lanes)
			for k := range keys {
				keys[k] = 40 + d*k
			}
			v, step, ok := steps(laneInts{col: keys}, lanes)
			if !ok || v != 40 || step != d {
				t.Fatalf("steps of %v: %d, %d, %v; want 40, %d, true", keys, v, step, ok, d)
			}
			stridedRows(got, a, d, scaler{u: 2, col: c}, lanes)
			for j := range got {
				if got[j] != want[j] {
					t.Errorf("width %d, d %d: entry %d got %v, want %v", width, d, j, got[j], want[j])
				}
			}
		}
	}
	if _, _, ok := steps(laneInts{col: []int{0, 2, 5}}, 3); ok {
		t.Errorf("steps of 0, 2, 5: a constant step, want none")
	}
}
