// Command report runs the gradient kernels compiled by exec next to the
// hand-written Go loops and prints a table: kernel, input, format,
// compiled and hand-written time per run, their ratio, allocations per
// run into a reused destination, compile time, and memory (inputs plus
// what the kernel's first run allocates, against inputs plus the
// hand-written output).
//
//	go run ./bench/cmd/report [-inputs bcspwr10,nopoly,synthetic] [-kernels smvm,...] [-dict intmap]
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"testing"
	"text/tabwriter"
	"time"

	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/exec"
)

func main() {
	inputs := flag.String("inputs", strings.Join(bench.Inputs, ","), "inputs")
	kernels := flag.String("kernels", "", "kernels (default all)")
	dict := flag.String("dict", "", "dictionary index: intmap, map or swiss")
	noDense := flag.Bool("nodense", false, "hashed dictionaries only (the paper's dictionary variant)")
	opt := flag.String("opt", "", "optimization level: none, norm or dps")
	noValidate := flag.Bool("novalidate", false, "skip the up-front validation of the inputs")
	flag.Parse()
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kernel\tinput\tformat\tcompiled ns\thand ns\tratio\tgen-Go ns\tgen ratio\tallocs/run\tcompile µs\tmem MB\thand mem MB\tmem ratio\t")
	for _, in := range strings.Split(*inputs, ",") {
		m, why, err := bench.LoadInput(in)
		if err != nil {
			fail(err)
		}
		if m == nil {
			fmt.Fprintf(os.Stderr, "skipping %s: %s\n", in, why)
			continue
		}
		for _, kf := range bench.Kernels {
			if *kernels != "" && !slices.Contains(strings.Split(*kernels, ","), kf.Name) {
				continue
			}
			cs, err := bench.NewCase(kf.Name, kf.Format, in, m)
			if err != nil {
				fail(err)
			}
			if *opt == "none" && kf.Name == "batax" {
				if cs.Prog, err = bench.Program("batax_csr_none"); err != nil {
					fail(err)
				}
			}
			t0 := time.Now()
			k, err := cs.Compile(exec.Options{Dict: *dict, NoDense: *noDense, Opt: *opt, NoValidate: *noValidate})
			if err != nil {
				fail(err)
			}
			compile := time.Since(t0)
			res := k.NewResult()
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			if err := k.RunInto(res, cs.Bindings); err != nil {
				fail(err)
			}
			runtime.ReadMemStats(&after)
			firstRun := int64(after.TotalAlloc - before.TotalAlloc)
			comp := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					_ = k.RunInto(res, cs.Bindings)
				}
			})
			hand := testing.Benchmark(func(b *testing.B) {
				for b.Loop() {
					cs.Hand()
				}
			})
			var genNs int64
			if mk := gen.Kernels[kf.Name+"_"+kf.Format]; mk != nil && *opt == "" {
				run := mk(cs.Bindings)
				genNs = testing.Benchmark(func(b *testing.B) {
					for b.Loop() {
						run()
					}
				}).NsPerOp()
			}
			allocs := testing.AllocsPerRun(3, func() { _ = k.RunInto(res, cs.Bindings) })
			mem := float64(cs.InputBytes+firstRun) / 1e6
			hmem := float64(cs.InputBytes+cs.HandOutBytes) / 1e6
			fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%.2f\t%d\t%.2f\t%.0f\t%d\t%.2f\t%.2f\t%.2f\t\n",
				kf.Name, in, kf.Format, comp.NsPerOp(), hand.NsPerOp(),
				float64(comp.NsPerOp())/float64(max(hand.NsPerOp(), 1)),
				genNs, float64(genNs)/float64(max(hand.NsPerOp(), 1)), allocs,
				compile.Microseconds(), mem, hmem, mem/hmem)
		}
	}
	w.Flush()
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}
