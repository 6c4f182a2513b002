package exec

import (
	"math"
	"testing"
)

// TestFillRow: every entry of rows of every length around the unrolled
// trips of eight is set, and nothing past the row.
func TestFillRow(t *testing.T) {
	for n := 0; n <= 35; n++ {
		for _, c := range []float64{1.5, math.Copysign(0, -1), math.NaN()} {
			buf := make([]float64, n+1)
			buf[n] = 7
			fillRow(buf[:n], c)
			for i, x := range buf[:n] {
				if math.Float64bits(x) != math.Float64bits(c) {
					t.Fatalf("length %d, value %v: entry %d is %v", n, c, i, x)
				}
			}
			if buf[n] != 7 {
				t.Fatalf("length %d: the entry past the row was written", n)
			}
		}
	}
}
