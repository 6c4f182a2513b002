package bench

import (
	"testing"

	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/sdql"
)

func small(t testing.TB) *datasets.Coords {
	m, err := datasets.ParseSynthetic("rows=300,cols=300,density=0.02,seed=3")
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestKernelsAgree checks the compiled kernel, the hand-written loop and
// the reference interpreter on a small matrix, for every kernel.
func TestKernelsAgree(t *testing.T) {
	m := small(t)
	for _, kf := range Kernels {
		cs, err := NewCase(kf.Name, kf.Format, "small", m)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(cs.Prog, cs.Bindings)
		if err != nil {
			t.Fatalf("%s: interpreter: %v", cs.Name(), err)
		}
		cs.Hand()
		if hv := cs.HandValue(); !sdql.Equal(hv, want) {
			t.Errorf("%s: hand-written loop disagrees with the interpreter", cs.Name())
		}
		for _, opts := range []exec.Options{{}, {NoFast: true}, {Threads: 2}, {Dict: "map", NoDense: true}} {
			k, err := cs.Compile(opts)
			if err != nil {
				t.Fatalf("%s: %v", cs.Name(), err)
			}
			res, err := k.Run(cs.Bindings)
			if err != nil {
				t.Fatalf("%s: %v", cs.Name(), err)
			}
			if got := res.Value(); !sdql.Equal(got, want) {
				t.Errorf("%s %+v: compiled kernel disagrees with the interpreter", cs.Name(), opts)
			}
		}
	}
}

// TestNoAllocs checks that a second run into a reused destination does not
// allocate.
func TestNoAllocs(t *testing.T) {
	m := small(t)
	for _, kf := range Kernels {
		cs, err := NewCase(kf.Name, kf.Format, "small", m)
		if err != nil {
			t.Fatal(err)
		}
		k, err := cs.Compile(exec.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res := k.NewResult()
		if err := k.RunInto(res, cs.Bindings); err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(5, func() { _ = k.RunInto(res, cs.Bindings) }); n > 0 {
			t.Errorf("%s: %v allocations per run into a reused destination", cs.Name(), n)
		}
	}
}

func BenchmarkGrad(b *testing.B) {
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
			k, err := cs.Compile(exec.Options{})
			if err != nil {
				b.Fatal(err)
			}
			res := k.NewResult()
			b.Run(cs.Name()+"/impl=compiled", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := k.RunInto(res, cs.Bindings); err != nil {
						b.Fatal(err)
					}
				}
			})
			if mk := gen.Kernels[kf.Name+"_"+kf.Format]; mk != nil {
				run := mk(cs.Bindings)
				b.Run(cs.Name()+"/impl=gen", func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						run()
					}
				})
			}
			b.Run(cs.Name()+"/impl=hand", func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					cs.Hand()
				}
			})
		}
	}
}
