package bench

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/datasets"
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
// in BenchmarkThreads). Inputs are loaded on first use and kernels
// compiled (and run once) outside the timer, only for the sub-benchmarks
// -bench selects. Names:
//
//	program=P/mode=eval|grad/input=I/variant=original|SPELLING/system=compiled/threads=1|2
//	program=P/mode=eval|grad/input=I/variant=original/system=hand|generated
func BenchmarkWorkload(b *testing.B) {
	data := map[string]*WorkloadData{}
	for _, w := range Workloads {
		vs, err := VariantsOf(OfWorkload, w.Name)
		if err != nil {
			b.Fatal(err)
		}
		b.Run("program="+w.Name, func(b *testing.B) {
			for _, mode := range Modes {
				b.Run("mode="+mode, func(b *testing.B) {
					for _, in := range WorkloadInputs {
						b.Run("input="+in, func(b *testing.B) {
							d, ok := data[in]
							if !ok {
								d = workloadData(b, in)
								data[in] = d
							}
							if d == nil {
								b.Skip("input absent")
							}
							for _, v := range append([]*Variant{nil}, vs...) {
								benchWorkloadCase(b, w, mode, d, v)
							}
						})
					}
				})
			}
		})
	}
}

// benchWorkloadCase runs the sub-benchmarks of one variant of a
// workload's value or gradient over one input.
func benchWorkloadCase(b *testing.B, w Workload, mode string, d *WorkloadData, v *Variant) {
	cs, why, err := NewWorkloadCase(w, mode, d, v)
	if err != nil {
		b.Fatal(err)
	}
	if why != "" {
		b.Skipf("skipping the workloads: %s", why)
	}
	b.Run("variant="+cs.VariantName(), func(b *testing.B) {
		threads := []int{1}
		if v == nil && d.A.NNZ() >= 1_000_000 {
			threads = append(threads, 2)
		}
		for _, t := range threads {
			b.Run(fmt.Sprintf("system=compiled/threads=%d", t), func(b *testing.B) {
				c, err := cs.Compile(t)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if err := c.Run(); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(c.Kernel.Threads()), "goroutines")
			})
		}
		if v != nil {
			return
		}
		b.Run("system=hand", func(b *testing.B) {
			cs.Hand() // warm
			b.ReportAllocs()
			cpu0 := cpuTime()
			for b.Loop() {
				cs.Hand()
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
		})
		run, err := cs.Generated()
		if err != nil {
			b.Fatal(err)
		}
		if run != nil {
			b.Run("system=generated", func(b *testing.B) {
				run()
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					run()
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	})
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
// BATAx example), over the kernels' inputs (Inputs). Inputs are loaded on
// first use and kernels compiled outside the timer, only for the
// sub-benchmarks -bench selects. Names:
//
//	kernel=K/format=F/input=I/prog=logical|physical/variant=original|SPELLING
func BenchmarkKernelVariant(b *testing.B) {
	coords := map[string]*datasets.Coords{}
	for _, kf := range Kernels {
		vcs, err := KernelVariantCases(kf.Name, kf.Format)
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("kernel=%s/format=%s", kf.Name, kf.Format), func(b *testing.B) {
			for _, in := range Inputs {
				b.Run("input="+in, func(b *testing.B) {
					m, ok := coords[in]
					if !ok {
						var why string
						var err error
						if m, why, err = LoadInput(in); err != nil {
							b.Fatal(err)
						}
						if m == nil {
							b.Logf("skipping input %s: %s", in, why)
						}
						coords[in] = m
					}
					if m == nil {
						b.Skip("input absent")
					}
					for _, vc := range vcs {
						b.Run("prog="+vc.Prog, func(b *testing.B) {
							for _, v := range append([]*Variant{nil}, vc.Variants...) {
								name := "original"
								if v != nil {
									name = v.Spelling
								}
								b.Run("variant="+name, func(b *testing.B) {
									cs, err := vc.Case(in, m, v)
									if err != nil {
										b.Fatal(err)
									}
									k, err := cs.Compile(exec.Options{})
									if err != nil {
										b.Fatal(err)
									}
									res := k.NewResult()
									if err := k.RunInto(res, cs.Bindings); err != nil {
										b.Fatal(err)
									}
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
				})
			}
		})
	}
}
