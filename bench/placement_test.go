package bench

import (
	"fmt"
	"testing"
)

// The same scaling loop spelled three ways (what the generated VSM, a
// range loop and the hand-written VSM compile to). On the project's
// machine the spellings differ by up to 2x although their inner loops are
// the same five or six instructions: small streaming loops move with where
// the linker places them, which is why one-line kernels' ratios depend on
// the build (README, Measurements). BenchmarkLoopPlacement shows it.

//go:noinline
func scaleIndexed(n int, v []float64, s float64, dst []float64) {
	c := s + s
	n = max(n, 0)
	vv, dd := v[:n], dst[:n]
	for i := 0; i < n; i++ {
		dd[i] = c * vv[i]
	}
}

//go:noinline
func scaleRange(n int, v []float64, s float64, dst []float64) {
	c := s + s
	n = max(n, 0)
	vv, dd := v[:n], dst[:n]
	for i, x := range vv {
		dd[i] = c * x
	}
}

//go:noinline
func scaleHand(s float64, v, out []float64) {
	c := 2 * s
	for i, x := range v {
		out[i] = c * x
	}
}

func BenchmarkLoopPlacement(b *testing.B) {
	for _, n := range []int{21842, 70842} {
		v := make([]float64, n)
		for i := range v {
			v[i] = float64(i)
		}
		dst := make([]float64, n)
		for round := 0; round < 3; round++ {
			b.Run(fmt.Sprintf("n=%d/spelling=indexed", n), func(b *testing.B) {
				for b.Loop() {
					scaleIndexed(n, v, 1.5, dst)
				}
			})
			b.Run(fmt.Sprintf("n=%d/spelling=range", n), func(b *testing.B) {
				for b.Loop() {
					scaleRange(n, v, 1.5, dst)
				}
			})
			b.Run(fmt.Sprintf("n=%d/spelling=hand", n), func(b *testing.B) {
				for b.Loop() {
					scaleHand(1.5, v, dst)
				}
			})
		}
	}
}
