package bench

import (
	"testing"

	"github.com/nablasd/nablasd/exec"
)

// BenchmarkValidation runs each compiled kernel with exec's up-front
// checks of its inputs' format invariants (exec's default, for arrays
// bound raw) and without them (what the root package runs: it validates
// tensors once when they are bound), back to back: the ratio
// validate=on ÷ validate=off is what checking on every run would cost.
func BenchmarkValidation(b *testing.B) {
	eachCase(b, func(cs *Case) {
		for _, v := range []struct {
			name string
			off  bool
		}{{"on", false}, {"off", true}} {
			k, err := cs.CompileValidating(exec.Options{NoValidate: v.off})
			if err != nil {
				b.Fatal(err)
			}
			res := k.NewResult()
			b.Run(cs.Name()+"/validate="+v.name, func(b *testing.B) {
				for b.Loop() {
					if err := k.RunInto(res, cs.Bindings); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}
