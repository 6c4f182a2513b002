package bench

import (
	"testing"

	"github.com/nablasd/nablasd/exec"
)

// BenchmarkDict compares the hash indexes of exec.Options.Dict on every
// kernel with every dictionary it builds hashed (NoDense), the paper's
// dictionary variant: intmap (open addressing on int keys, the default),
// map (Go's built-in map, a Swiss table since Go 1.24) and swiss
// (github.com/dolthub/swiss). The dense default is BenchmarkGrad.
func BenchmarkDict(b *testing.B) {
	eachCase(b, func(cs *Case) {
		for _, dict := range []string{"intmap", "map", "swiss"} {
			k, err := cs.Compile(exec.Options{NoDense: true, Dict: dict})
			if err != nil {
				b.Fatal(err)
			}
			res := k.NewResult()
			b.Run(cs.Name()+"/dict="+dict, func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := k.RunInto(res, cs.Bindings); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
