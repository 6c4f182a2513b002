package bench

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/exec"
)

// BenchmarkWorkload times every workload's value and gradient over the
// workload inputs (WorkloadInputs), side by side in one run: nablasd's
// compiled kernel (through the root package, Run into a reused Result),
// the hand-written closed form, the generated Go where the
// GeneratedWorkload hook gives one, and the compiled kernel of each
// spelled variant. On an input of at least a million entries the
// original also runs on two goroutines (Options.Threads; the goroutines
// metric is what a run used, cpu-ns/op the process's CPU time per run, as
// in BenchmarkThreads). Inputs and kernels are built outside the
// timer, and the first run sizes the destination. Names:
//
//	program=P/mode=eval|grad/input=I/variant=original|SPELLING/system=compiled/threads=1|2
//	program=P/mode=eval|grad/input=I/variant=original/system=hand|generated
func BenchmarkWorkload(b *testing.B) {
	for _, in := range WorkloadInputs {
		d := workloadData(b, in)
		if d == nil {
			continue
		}
		for _, w := range Workloads {
			vs, err := VariantsOf(OfWorkload, w.Name)
			if err != nil {
				b.Fatal(err)
			}
			for _, mode := range Modes {
				for _, v := range append([]*Variant{nil}, vs...) {
					threads := []int{1}
					if v == nil && d.A.NNZ() >= 1_000_000 {
						threads = append(threads, 2)
					}
					var cs *WorkloadCase
					for _, t := range threads {
						var why string
						cs, why, err = NewWorkloadCase(w, mode, d, v, t)
						if err != nil {
							b.Fatal(err)
						}
						if why != "" {
							b.Skipf("skipping the workloads: %s", why)
						}
						b.Run(fmt.Sprintf("%s/system=compiled/threads=%d", cs.Name(), t), func(b *testing.B) {
							b.ReportAllocs()
							cpu0 := cpuTime()
							for b.Loop() {
								if err := cs.Run(); err != nil {
									b.Fatal(err)
								}
							}
							b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
							b.ReportMetric(float64(cs.Kernel.Threads()), "goroutines")
						})
					}
					if v != nil {
						continue
					}
					b.Run(cs.Name()+"/system=hand", func(b *testing.B) {
						b.ReportAllocs()
						for b.Loop() {
							cs.Hand()
						}
					})
					run, err := cs.Generated()
					if err != nil {
						b.Fatal(err)
					}
					if run != nil {
						b.Run(cs.Name()+"/system=generated", func(b *testing.B) {
							b.ReportAllocs()
							for b.Loop() {
								run()
							}
						})
					}
				}
			}
		}
	}
}

// workloadData loads a workload input, or logs why it is skipped and
// returns nil.
func workloadData(b *testing.B, in string) *WorkloadData {
	m, why, err := LoadInput(in)
	if err != nil {
		b.Fatal(err)
	}
	if m == nil {
		b.Logf("skipping input %s: %s", in, why)
		return nil
	}
	d, err := NewWorkloadData(in, m, FactorizationK)
	if err != nil {
		b.Fatal(err)
	}
	return d
}

// BenchmarkKernelVariant times the compiled gradient of each of the six
// kernels next to its spelled variants (variants/KERNEL.*.sdql, through
// the pipeline like the original), and each hand-written physical
// program of kernels/ next to its variants (the 1 + i of the issue's
// BATAx example), over the kernels' inputs. Names:
//
//	kernel=K/format=F/input=I/prog=logical|physical/variant=original|SPELLING
func BenchmarkKernelVariant(b *testing.B) {
	run := func(b *testing.B, cs *Case, prog, variant string) {
		k, err := cs.Compile(exec.Options{})
		if err != nil {
			b.Fatal(err)
		}
		res := k.NewResult()
		if err := k.RunInto(res, cs.Bindings); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/prog=%s/variant=%s", cs.Name(), prog, variant), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := k.RunInto(res, cs.Bindings); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
			vcs, err := KernelVariantCases(kf.Name, kf.Format)
			if err != nil {
				b.Fatal(err)
			}
			for _, vc := range vcs {
				orig, err := vc.Case(in, m, nil)
				if err != nil {
					b.Fatal(err)
				}
				run(b, orig, vc.Prog, "original")
				for _, v := range vc.Variants {
					cs, err := vc.Case(in, m, v)
					if err != nil {
						b.Fatal(err)
					}
					run(b, cs, vc.Prog, v.Spelling)
				}
			}
		}
	}
}
