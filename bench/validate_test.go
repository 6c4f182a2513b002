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
	for _, in := range Inputs {
		m, why, err := LoadInput(in)
		if err != nil {
			b.Fatal(err)
		}
		if m == nil {
			b.Logf("skipping input %s: %s", in, why)
			continue
		}
		for _, kf := range Kernels {
			cs, err := NewCase(kf.Name, kf.Format, in, m)
			if err != nil {
				b.Fatal(err)
			}
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
		}
	}
}
