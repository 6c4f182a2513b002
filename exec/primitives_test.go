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
