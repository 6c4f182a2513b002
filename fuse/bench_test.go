package fuse

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// BenchmarkOptimize measures Optimize on each kernel's gradient.
func BenchmarkOptimize(b *testing.B) {
	for _, k := range kernels {
		b.Run("kernel="+k.name, func(b *testing.B) {
			s := setupKernel(k, 100, 400, "csr", "coo", 1)
			prog := sdql.MustParse(k.primal)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := optimizeGrad(prog, k.wrt, s.cfg); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
