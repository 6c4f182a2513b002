package bench

import "testing"

// eachCase calls f with the case of every kernel over every benchmark
// input (bench.Inputs), skipping with a log line the inputs that are
// absent (../shared not beside the repository).
func eachCase(b *testing.B, f func(cs *Case)) {
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
			f(cs)
		}
	}
}
