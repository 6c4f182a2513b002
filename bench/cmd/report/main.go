// Command report runs the gradient kernels compiled by exec next to the
// generated Go (bench/gen) and the hand-written Go loops (bench/hand.go)
// and prints two tables, one of time and one of memory. The compiled
// programs are the pipeline's output (bench.Pipeline); -print shows them.
// Then it prints the tables of the spelled variants, of two goroutines
// against one, and of the workloads (section "Workloads, variants and
// threads").
//
//	go run ./bench/cmd/report [-rounds 81] [-benchtime 5ms] [-budget 15s] [-mem=false]
//	    [-inputs bcspwr10,nopoly,synthetic] [-kernels smvm,...|none] [-dict intmap]
//	    [-workloads least_squares,...|none] [-winputs e40r0000,synthetic4M]
//	    [-variants=false] [-vinputs e40r0000,nopoly] [-threads=false] [-jit=false] [-times=false]
//
// make bench runs it built with every loop of the module aligned to the
// CPU's 64-byte fetch lines, as the JIT builds its plugins (go run
// -gcflags with bench/cmd/hotprofile's profile; internal/hotloops says
// why): without that, where the linker puts each hand-written and
// generated loop moves their ratios by up to 15%.
//
// # Time
//
// The variants of a case (hand-written, compiled, generated) are timed in
// -rounds interleaved rounds: every round times each variant for at least
// -benchtime (at least one run), the hand-written loop between the other
// two, whose order alternates from round to round. Each variant's time is
// the median over the rounds of its ns per run into a reused destination;
// each ratio to the hand-written loop is the median of the per-round
// ratios (a variant's time over the hand-written loop's time in the same
// round, measured back to back), followed by their minimum–maximum, so
// machine noise slower than a round cancels out of the ratio and the rest
// shows as the range. Rounds are short and many because on a shared
// machine other work comes and goes within a second: two runs 5 ms apart
// see the same machine far more often than two 200 ms apart (on the
// project's VM, 5 ms rounds of the Laplacian's value put half the
// per-round ratios within ±4% of their median, 150 ms rounds within
// ±25%). A set of variants stops starting rounds after -budget, once it
// has had 5. allocs/run is testing.AllocsPerRun of the compiled
// kernel and of the generated Go into a reused destination; compile is
// one exec.Compile.
//
// # Workloads, variants and threads
//
// The workloads (../shared/workloads, bench.Workloads) are timed over
// -winputs, each program's value (eval) and gradient (grad): the
// hand-written closed form (bench/hand_workloads.go), nablasd's compiled
// kernel run through the root package (Kernel.Run into a reused Result,
// one goroutine; Options.Exec "compiled", the closures), the JIT's (-jit),
// the default executor's (Options.Exec "auto") once it has settled on an
// executor (the closures run past Options.JITAfter, the background build
// awaited, the runs that measure both; "default runs" names the one it
// kept) and the generated Go where bench.GeneratedWorkload gives one, in
// interleaved rounds as the kernels' time table, the hand-written closed
// form the reference. compile is Prepare, Compile and the first
// run; allocs/run is the heap allocations of one later run.
//
// Spelled variants (bench/variants/*.sdql) are timed on the inputs of
// -vinputs (the workloads' or the kernels'): each set is the original's
// compiled kernel and its variants', in interleaved rounds with the
// original as the reference; variant÷original is the median of the
// per-round ratios, then their range. For the kernels, prog logical is the
// pipeline's gradient of bench.Logical's program and of its variants,
// prog physical the hand-written physical program of bench/kernels and its
// variants (the index arithmetic 1 + i).
//
// On every input of at least a million entries, the compiled kernel of
// each workload (eval and grad) and of each kernel runs on one goroutine
// and on two (Options.Threads), in interleaved rounds, and so does its
// JIT kernel (exec jit; with -jit), and, where bench has one
// (bench/hand_threads.go: least squares, ridge, logistic regression, the
// factorization, SMVM), the hand-written loop split over two goroutines
// by hand (exec hand), the machine's ceiling for the loop; one
// program's rows are timed in the same rounds. Speedup is the
// median of the per-round ratios of one goroutine's time to two's, and
// "goroutines used" what the last run of the two-goroutine kernel used;
// cpu is the process's processor time per run (getrusage, every thread),
// and cpu 2÷1 the median of the per-round ratios of two goroutines'
// processor time to one's: near 1 where the split adds no work, so that a
// speedup short of 2 with it is the machine's, not the kernel's. The
// table ends with the load average before it.
// On a machine busy with other work two goroutines get no more CPU than
// one; the speedup then says nothing of the kernel.
//
// # Memory
//
// All sizes are in MB (10⁶ bytes). "in" is the inputs' arrays
// (bench.Case.InputBytes: every array the kernel reads, bound without
// copying; the hand-written BATAx also reads a CSC copy of A, which is not
// counted) and "out" the hand-written loop's output (Case.HandOutBytes).
//
// "alloc" is a sound upper bound on what a variant adds to the live heap:
// every byte it allocates on the Go heap (runtime.MemStats.TotalAlloc)
// from the start of exec.Compile through NewResult and the first RunInto
// for the compiled kernel, and over binding the generated Go (which
// allocates its destination and workspace) and its first run. Its ratio
// is (in + alloc) / (in + out). It does not count memory outside the Go
// heap.
//
// "peak+" is process memory: each kernel, input and variant runs in a
// child process (this command run again with -child) that loads the
// inputs, runs its variant once over a 300×300 matrix (so that code and
// the runtime's one-time structures are resident), collects garbage and
// returns free memory to the operating system (runtime.GC,
// debug.FreeOSMemory), resets the kernel's high-water mark of resident
// memory (writes "5" to /proc/self/clear_refs) and reads its resident
// memory (VmRSS in /proc/self/status), then does the variant's first run
// as above (for the hand-written loop: allocating its output and
// workspace, and running it) and reads the high-water mark (VmHWM):
// peak+ is the high-water mark less the baseline. Its ratio is (in +
// peak+ of the variant) / (in + peak+ of the hand-written loop). peak+
// includes garbage not yet collected (the collector's pacing: with
// GOGC=100 nothing is collected before the heap doubles), unused capacity,
// the runtime's metadata and stacks; it is page-granular and misses small
// allocations that fit in spans already resident, so on inputs of a few
// hundred kilobytes it is of the size of the runtime's own noise; and it is
// one run, not a bound. It needs Linux's /proc; elsewhere the column shows
// "-" and the report says why.
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

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/sdql"
)

// generatedWorkload binds the checked-in generated Go of a workload
// (bench/gen, the original spelling only) to the case's inputs.
func generatedWorkload(cs *bench.WorkloadCase) (func(), error) {
	if cs.Variant != nil {
		return nil, nil
	}
	inputs, err := cs.Data.Inputs(cs.Names)
	if err != nil {
		return nil, err
	}
	run, _, err := gen.WorkloadRun(cs.Program, cs.Mode, cs.Src, cs.File, cs.Wrt, inputs)
	return run, err
}

func main() {
	bench.GeneratedWorkload = generatedWorkload
	inputs := flag.String("inputs", strings.Join(bench.Inputs, ","), "inputs")
	kernels := flag.String("kernels", "", "kernels (default all; none: no kernel tables)")
	rounds := flag.Int("rounds", 81, "interleaved timing rounds")
	benchtime := flag.Duration("benchtime", 5*time.Millisecond, "minimum time of each variant in each round")
	flag.DurationVar(&budget, "budget", budget, fmt.Sprintf("time after which a set of variants stops starting rounds (after %d rounds)", minRounds))
	mem := flag.Bool("mem", true, "measure peak resident memory in child processes (Linux)")
	dict := flag.String("dict", "", "dictionary index: intmap, map or swiss")
	noDense := flag.Bool("nodense", false, "hashed dictionaries only (the paper's dictionary variant)")
	opt := flag.String("opt", "", "optimization level: none, norm or dps")
	noValidate := flag.Bool("novalidate", false, "skip the up-front validation of the inputs")
	workloads := flag.String("workloads", "", "workloads (default all; none: no workload tables)")
	winputs := flag.String("winputs", strings.Join(bench.WorkloadInputs, ","), "the workloads' inputs")
	variants := flag.Bool("variants", true, "time the spelled variants against their originals")
	vinputs := flag.String("vinputs", "e40r0000,nopoly", "inputs (of the workloads or the kernels) whose variants are timed")
	threads := flag.Bool("threads", true, "time two goroutines against one on inputs of at least 1M entries")
	times := flag.Bool("times", true, "print the kernels' time and memory tables (false: only their variants' and threads' tables, e.g. the threads of a kernel whose results take gigabytes each)")
	jitFlag := flag.Bool("jit", true, "time the workloads' JIT kernels too, and the JIT's kernels in the threads tables (Options.Exec \"jit\": built with the Go toolchain, about a second each the first time)")
	printProg := flag.Bool("print", false, "print each kernel's program (the pipeline's output) to standard error")
	child := flag.String("child", "", "internal: measure the peak memory of KERNEL,INPUT,VARIANT")
	page := flag.String("page", "", "also write the report as a Markdown page to `FILE`, with the date, commit, machine and flags (make bench: bench/results/report.md)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: report [flags]\n")
		flag.VisitAll(func(f *flag.Flag) {
			if f.Name == "child" {
				return
			}
			def := ""
			if f.DefValue != "" && f.DefValue != "false" {
				def = " (default " + f.DefValue + ")"
			}
			fmt.Fprintf(flag.CommandLine.Output(), "  -%s\t%s%s\n", f.Name, f.Usage, def)
		})
	}
	flag.Parse()
	opts := exec.Options{Dict: *dict, NoDense: *noDense, Opt: *opt, NoValidate: *noValidate}
	if *child != "" {
		if err := runChild(*child, opts); err != nil {
			fail(err)
		}
		return
	}
	if *rounds < 1 {
		fail(fmt.Errorf("-rounds %d: want at least 1", *rounds))
	}
	if *page != "" {
		finish, err := teePage(*page, os.Args[1:])
		if err != nil {
			fail(err)
		}
		defer func() {
			if err := finish(); err != nil {
				fail(err)
			}
		}()
	}
	var childArgs []string
	flag.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "dict", "nodense", "opt", "novalidate":
			childArgs = append(childArgs, "-"+f.Name+"="+f.Value.String())
		}
	})
	var rows []*row
	memNote := ""
	kernelList := list(*kernels)
	kernelInputs := strings.Split(*inputs, ",")
	if *kernels == "none" {
		kernelInputs = nil
	}
	timedInputs := kernelInputs
	if !*times {
		timedInputs = nil
	}
	for _, in := range timedInputs {
		m, why, err := bench.LoadInput(in)
		if err != nil {
			fail(err)
		}
		if m == nil {
			fmt.Fprintf(os.Stderr, "skipping %s: %s\n", in, why)
			continue
		}
		for _, kf := range bench.Kernels {
			if kernelList != nil && !slices.Contains(kernelList, kf.Name) {
				continue
			}
			cs, err := newCase(kf.Name, kf.Format, in, m, opts)
			if err != nil {
				fail(err)
			}
			if *printProg && in == strings.Split(*inputs, ",")[0] {
				fmt.Fprintf(os.Stderr, "== %s (fuse %v)\n%s\n", kf.Name, cs.Fuse.Elapsed.Round(time.Microsecond), sdql.Print(cs.Prog))
			}
			fmt.Fprintf(os.Stderr, "%s %s: time", kf.Name, in)
			r := measure(cs, opts, *rounds, *benchtime)
			if *mem {
				fmt.Fprintf(os.Stderr, ", memory")
				for i, v := range r.variants() {
					p, err := measurePeak(kf.Name, in, v.name, childArgs)
					if err != nil {
						fail(err)
					}
					if p.note != "" {
						memNote = p.note
					}
					r.peak[i] = p
				}
			}
			fmt.Fprintln(os.Stderr)
			rows = append(rows, r)
		}
	}
	fmt.Printf("# %d interleaved rounds, each variant >= %v a round; GOMAXPROCS=%d, %s %s/%s\n",
		*rounds, *benchtime, runtime.GOMAXPROCS(0), runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if kernelInputs != nil {
		if timedInputs != nil {
			printTimes(rows)
			fmt.Println()
			printMemory(rows, *mem)
			if memNote != "" {
				fmt.Printf("peak+ not measured: %s\n", memNote)
			}
		}
		kernelVariantTables(kernelInputs, list(*vinputs), kernelList, *variants && opts.Opt == "", *threads, *jitFlag, opts, *rounds, *benchtime)
	}
	if *workloads != "none" {
		fmt.Println()
		workloadTables(workloadFlags{workloads: list(*workloads), inputs: list(*winputs), variantInputs: list(*vinputs),
			variants: *variants, threads: *threads, jit: *jitFlag, rounds: *rounds, benchtime: *benchtime})
	}
}

// row is one case's measurements.
type row struct {
	cs              *bench.Case
	hand, comp, gen *variant // gen is nil without a generated kernel
	// def is the default executor (nablasd.Options{}: Exec "auto") once
	// settled, where it settled; nil under other exec options
	def              *variant
	tier             nablasd.Tier
	allocsC, allocsG float64
	compile          time.Duration
	// allocH, allocC and allocG are the Go heap bytes allocated through
	// the first run (bench.AllocatedBy): of the hand-written loop's
	// buffers and run, of exec.Compile, NewResult and RunInto, and of
	// binding and running the generated Go.
	allocH, allocC, allocG int64
	// peak is the peak+ of the hand-written loop, the compiled kernel and
	// the generated Go, in the order of variants.
	peak [3]peak
}

func (r *row) variants() []*variant {
	if r.gen == nil {
		return []*variant{r.hand, r.comp}
	}
	return []*variant{r.hand, r.comp, r.gen}
}

// measure compiles and times one case and measures what its kernels
// allocate.
func measure(cs *bench.Case, opts exec.Options, rounds int, d time.Duration) *row {
	r := &row{cs: cs}
	var k *exec.Kernel
	var res *exec.Result
	var err error
	r.allocC = bench.AllocatedBy(func() {
		t0 := time.Now()
		if k, err = cs.Compile(opts); err != nil {
			return
		}
		r.compile = time.Since(t0)
		res = k.NewResult()
		err = k.RunInto(res, cs.Bindings)
	})
	if err != nil {
		fail(err)
	}
	r.allocH = bench.AllocatedBy(func() { cs.NewHand()() })
	r.hand = &variant{name: "hand", run: cs.Hand}
	r.comp = &variant{name: "compiled", run: func() { _ = k.RunInto(res, cs.Bindings) }}
	r.allocsC = testing.AllocsPerRun(3, r.comp.run)
	if opts.Opt == "" {
		var run func()
		r.allocG = bench.AllocatedBy(func() {
			if run = genKernel(cs.Kernel+"_"+cs.Format, cs.Bindings); run != nil {
				run()
			}
		})
		if run != nil {
			r.gen = &variant{name: "gen", run: run}
			r.allocsG = testing.AllocsPerRun(3, run)
		}
	}
	vs := r.variants()
	if opts.Dict == "" && !opts.NoDense && opts.Opt == "" && !opts.NoValidate {
		// what a user of the root package gets by default, settled as
		// a program that keeps running the kernel sees it
		cd, err := cs.CompileAuto()
		if err != nil {
			fail(err)
		}
		if r.tier, err = cd.Settle(settleLimit); err != nil {
			fail(fmt.Errorf("%s: %v", cs.Name(), err))
		}
		r.def = &variant{name: "default", run: func() { mustRun(cd.Run()) }}
		vs = append(vs, r.def)
	}
	runtime.GC() // no collection left running during the timing
	timeRounds(vs, rounds, d)
	return r
}

func printTimes(rows []*row) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kernel\tinput\tformat\thand µs\tcompiled µs\tcompiled÷hand\tgen µs\tgen÷hand\tdefault µs\tdefault÷hand\tdefault runs\tallocs/run\tcompile µs\t")
	for _, r := range rows {
		genUs, genRatio, allocs := "-", "-", fmt.Sprintf("%.0f/-", r.allocsC)
		if r.gen != nil {
			genUs, genRatio = usCell(median(r.gen.ns)), ratioCell(ratios(r.gen.ns, r.hand.ns))
			allocs = fmt.Sprintf("%.0f/%.0f", r.allocsC, r.allocsG)
		}
		defUs, defRatio, defRuns := "-", "-", "-"
		if r.def != nil {
			defUs, defRatio, defRuns = usCell(median(r.def.ns)), ratioCell(ratios(r.def.ns, r.hand.ns)), r.tier.Executor
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%d\t\n",
			r.cs.Kernel, r.cs.Input, r.cs.Format,
			usCell(median(r.hand.ns)), usCell(median(r.comp.ns)), ratioCell(ratios(r.comp.ns, r.hand.ns)),
			genUs, genRatio, defUs, defRatio, defRuns, allocs, r.compile.Microseconds())
	}
	w.Flush()
	fmt.Println("µs: median over the rounds; ÷hand: median of the per-round ratios, then min–max; allocs/run: compiled/generated")
	fmt.Println("default: the root package's default options (Options.Exec \"auto\", forward mode as the compiled column) once the executor has settled; default runs: the executor it kept")
}

func printMemory(rows []*row, mem bool) {
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "kernel\tinput\tin MB\tout MB\talloc MB h/c/g\tpeak+ MB h/c/g\t(in+alloc)/(in+out) c/g\t(in+peak+)/(in+out) c/g\t(in+peak+)/(in+hand's) c/g\t")
	for _, r := range rows {
		in, out := float64(r.cs.InputBytes), float64(r.cs.HandOutBytes)
		vs := r.variants()
		alloc := []int64{r.allocH, r.allocC, r.allocG}
		allocMB, peakMB := triple(len(vs), func(i int) string { return mb(alloc[i]) }), "-"
		allocRatio := pair(len(vs), func(i int) string { return ratio(in+float64(alloc[i]), in+out) })
		peakRatio, peakHand := "-", "-"
		if mem && r.peak[0].note == "" {
			peakMB = triple(len(vs), func(i int) string { return mb(r.peak[i].extra) })
			peakRatio = pair(len(vs), func(i int) string { return ratio(in+float64(r.peak[i].extra), in+out) })
			peakHand = pair(len(vs), func(i int) string { return ratio(in+float64(r.peak[i].extra), in+float64(r.peak[0].extra)) })
		}
		fmt.Fprintf(w, "%s\t%s\t%.2f\t%.2f\t%s\t%s\t%s\t%s\t%s\t\n",
			r.cs.Kernel, r.cs.Input, in/1e6, out/1e6, allocMB, peakMB, allocRatio, peakRatio, peakHand)
	}
	w.Flush()
	fmt.Println("MB = 10^6 bytes. in: the inputs' arrays; out: the hand-written output; h/c/g: hand-written, compiled, generated Go.")
	fmt.Println("alloc: Go heap allocated from allocating the buffers (h), exec.Compile (c) or binding (g) through the first run.")
	fmt.Println("peak+: peak resident memory (VmHWM) above the baseline (VmRSS) over the same, each in a child process of its own.")
}

func mb(b int64) string { return fmt.Sprintf("%.2f", float64(b)/1e6) }

func ratio(a, b float64) string { return fmt.Sprintf("%.2f", a/b) }

// triple joins the cells of the hand-written loop, the compiled kernel
// and the generated Go ("-" for a missing generated kernel).
func triple(n int, cell func(i int) string) string {
	c := []string{"-", "-", "-"}
	for i := range n {
		c[i] = cell(i)
	}
	return strings.Join(c, "/")
}

// pair joins the cells of the compiled kernel and the generated Go.
func pair(n int, cell func(i int) string) string {
	c := []string{"-", "-"}
	for i := 1; i < n; i++ {
		c[i-1] = cell(i)
	}
	return strings.Join(c, "/")
}

// newCase builds the case of a kernel over an input with the kernel
// options' program (the unoptimized BATAx for -opt none).
func newCase(kernel, format, input string, m *datasets.Coords, opts exec.Options) (*bench.Case, error) {
	cs, err := bench.NewCase(kernel, format, input, m)
	if err != nil {
		return nil, err
	}
	if opts.Opt == "none" && kernel == "batax" {
		if cs.Prog, err = bench.Program("batax_csr_none"); err != nil {
			return nil, err
		}
	}
	return cs, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "report:", err)
	os.Exit(1)
}

// genKernel binds the generated Go kernel of name, or returns nil when
// there is none or it was generated for other bindings (bench/gen is
// regenerated by go run ./bench/cmd/gengo).
func genKernel(name string, b map[string]sdql.Value) (run func()) {
	mk := gen.Kernels[name]
	if mk == nil {
		return nil
	}
	defer func() {
		if recover() != nil {
			run = nil
		}
	}()
	return mk(b)
}
