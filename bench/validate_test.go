package bench

import (
	"testing"

	"github.com/nablasd/nablasd/exec"
)

// BenchmarkValidation runs each compiled kernel with the up-front checks of
// its inputs' format invariants (the default) and without them
// (exec.Options.NoValidate, `nablasd --no-validate`), back to back: the
// ratio validate=on ÷ validate=off is what validation costs.
func BenchmarkValidation(b *testing.B) {
	eachCase(b, func(cs *Case) {
		for _, v := range []struct {
			name string
			off  bool
		}{{"on", false}, {"off", true}} {
			k, err := cs.Compile(exec.Options{NoValidate: v.off})
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
