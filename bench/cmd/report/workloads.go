package main

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/sdql"
)

// The workload tables (see the package comment): the workloads against
// their hand-written closed forms, the spelled variants against their
// originals, and two goroutines against one.

// workloadFlags select what the workload tables measure.
type workloadFlags struct {
	workloads, inputs []string // nil workloads: all
	variantInputs     []string // inputs whose variants are timed
	variants, threads bool
	jit               bool // time the JIT (Options.Exec "jit") too
	rounds            int
	benchtime         time.Duration
}

// manyEntries is the size from which an input gets the threads table.
const manyEntries = 1_000_000

// workloadRow is one workload's value or gradient over one input.
type workloadRow struct {
	cs              *bench.WorkloadCase
	hand, comp, gen *variant // gen is nil without generated Go
	jit             *variant // nil where the JIT fell back (jitWhy says why)
	jitWhy          string
	// def is the default executor (Options{}: Exec "auto") once settled,
	// tier where it settled
	def     *variant
	tier    nablasd.Tier
	allocs  float64
	compile time.Duration
}

// settleLimit bounds the runs that settle the default executor (the
// closures up to Options.JITAfter, the build, the measured runs): the
// first build on a machine takes 10–30 s.
const settleLimit = 2 * time.Minute

// ratioRow is a set of variants timed against a reference (variant 0):
// spelled variants against their original, or two goroutines against one.
type ratioRow struct {
	program, input, mode, prog string
	vs                         []*variant
	threads                    int    // goroutines the last run of vs[1] used (threads table)
	exec                       string // what runs the kernels (threads table): compiled or jit
}

// workloadTables measures and prints the workload tables.
func workloadTables(f workloadFlags) {
	var rows []*workloadRow
	var spell, threads []*ratioRow
	for _, in := range f.inputs {
		m, why, err := bench.LoadInput(in)
		if err != nil {
			fail(err)
		}
		if m == nil {
			fmt.Fprintf(os.Stderr, "skipping %s: %s\n", in, why)
			continue
		}
		d, err := bench.NewWorkloadData(in, m, bench.FactorizationK)
		if err != nil {
			fail(err)
		}
		m = nil
		for _, w := range bench.Workloads {
			if f.workloads != nil && !slices.Contains(f.workloads, w.Name) {
				continue
			}
			for _, mode := range bench.Modes {
				cs, why, err := bench.NewWorkloadCase(w, mode, d, nil)
				if err != nil {
					fail(err)
				}
				if why != "" {
					fmt.Fprintf(os.Stderr, "no workload tables: %s\n", why)
					return
				}
				fmt.Fprintf(os.Stderr, "%s %s %s: time", w.Name, mode, in)
				c, err := cs.Compile(1)
				if err != nil {
					fail(err)
				}
				r := &workloadRow{cs: cs, compile: c.Time}
				r.hand = &variant{name: "hand", run: cs.Hand}
				r.comp = &variant{name: "compiled", run: func() { mustRun(c.Run()) }}
				r.allocs = allocsOnce(r.comp.run)
				vs := []*variant{r.hand, r.comp}
				if f.jit {
					cj, err := cs.CompileWith(nablasd.Options{Exec: "jit"})
					if err != nil {
						fail(err)
					}
					if cj.Kernel.Executor() != "jit" {
						r.jitWhy = "the JIT fell back to the compiled kernel"
						if ws := cj.Query.Warnings(); len(ws) > 0 {
							r.jitWhy = ws[len(ws)-1]
						}
					} else {
						r.jit = &variant{name: "jit", run: func() { mustRun(cj.Run()) }}
						vs = append(vs, r.jit)
					}
				}
				// the default executor as a program that keeps running
				// the kernel gets it: after the closures, the build (a
				// cache hit when the JIT column built it) and the runs
				// that choose, the executor chosen
				cd, err := cs.CompileWith(nablasd.Options{})
				if err != nil {
					fail(err)
				}
				if r.tier, err = cd.Settle(settleLimit); err != nil {
					fail(fmt.Errorf("%s: %v", cs.Name(), err))
				}
				r.def = &variant{name: "default", run: func() { mustRun(cd.Run()) }}
				vs = append(vs, r.def)
				run, err := cs.Generated()
				if err != nil {
					fail(err)
				}
				if run != nil {
					r.gen = &variant{name: "gen", run: run}
					vs = append(vs, r.gen)
				}
				runtime.GC()
				timeRounds(vs, f.rounds, f.benchtime)
				rows = append(rows, r)
				if f.variants && slices.Contains(f.variantInputs, in) {
					fmt.Fprintf(os.Stderr, ", variants")
					spell = append(spell, workloadVariants(w, mode, d, c, f))
				}
				if f.threads && d.A.NNZ() >= manyEntries {
					fmt.Fprintf(os.Stderr, ", threads")
					c2, err := cs.Compile(2)
					if err != nil {
						fail(err)
					}
					tr := &ratioRow{program: w.Name, input: in, mode: mode, exec: "compiled", vs: []*variant{
						{name: "1", run: func() { mustRun(c.Run()) }},
						{name: "2", run: func() { mustRun(c2.Run()) }}}}
					var jr *jitRatioRow
					if f.jit {
						jr = jitThreads(w.Name, in, mode, cs.CompileWith)
					}
					threads = append(threads, timeThreads(tr, c2.Kernel.Threads, jr, cs.HandThreads, f.rounds, f.benchtime)...)
				}
				fmt.Fprintln(os.Stderr)
			}
		}
	}
	printWorkloads(rows)
	if f.variants {
		fmt.Println()
		printRatios("spelled variants of the workloads, compiled: each ÷ its original", "variant", spell)
	}
	if f.threads {
		fmt.Println()
		printRatios(fmt.Sprintf("two goroutines against one (Options.Threads), inputs of ≥ %d entries: speedup = 1 thread ÷ 2", manyEntries), "threads", threads)
	}
}

// jitRatioRow is a threads row of JIT kernels, with the two-goroutine
// kernel whose Threads the table reports.
type jitRatioRow struct {
	ratioRow
	kernel *nablasd.Kernel
}

// jitThreads compiles a program's JIT kernel (Options.Exec "jit") for one
// goroutine and for two with compile, and returns their threads row, or
// nil (with a note on standard error) where the JIT fell back.
func jitThreads(program, input, mode string, compile func(nablasd.Options) (*bench.Compiled, error)) *jitRatioRow {
	r := &jitRatioRow{ratioRow: ratioRow{program: program, input: input, mode: mode, exec: "jit"}}
	for _, t := range []int{1, 2} {
		c, err := compile(nablasd.Options{Exec: "jit", Threads: t})
		if err != nil {
			fail(err)
		}
		if c.Kernel.Executor() != "jit" {
			fmt.Fprintf(os.Stderr, " (the JIT fell back: %v)", c.Query.Warnings())
			return nil
		}
		r.vs = append(r.vs, &variant{name: fmt.Sprint(t), run: func() { mustRun(c.Run()) }})
		r.kernel = c.Kernel
	}
	return r
}

// handThreadsRow is the threads row of a hand-written loop on one
// goroutine and on two (bench's HandThreads): the machine's ceiling for
// the loop beside the kernels' rows.
func handThreadsRow(program, input, mode string, hand func(t int) (func(), func() sdql.Value)) *ratioRow {
	r := &ratioRow{program: program, input: input, mode: mode, exec: "hand", threads: 2}
	for _, t := range []int{1, 2} {
		run, _ := hand(t)
		r.vs = append(r.vs, &variant{name: fmt.Sprint(t), run: run})
	}
	return r
}

// timeThreads times one program's threads rows in the same rounds, so
// that they see the machine alike, within the budget of a set per row
// (each row gets the rounds it would get timed alone): the compiled
// kernels' row r, the JIT's jr (nil: none) and the hand-written split's
// (hand nil: none). It returns the rows, r's and jr's goroutines used
// filled in (threads: r's two-goroutine kernel's Threads).
func timeThreads(r *ratioRow, threads func() int, jr *jitRatioRow, hand func(int) (func(), func() sdql.Value), rounds int, d time.Duration) []*ratioRow {
	rows := []*ratioRow{r}
	if jr != nil {
		rows = append(rows, &jr.ratioRow)
	}
	if hand != nil {
		rows = append(rows, handThreadsRow(r.program, r.input, r.mode, hand))
	}
	var vs []*variant
	for _, x := range rows {
		vs = append(vs, x.vs...)
	}
	runtime.GC()
	timeRoundsWithin(vs, rounds, d, budget*time.Duration(len(rows)))
	r.threads = threads()
	if jr != nil {
		jr.threads = jr.kernel.Threads()
	}
	return rows
}

// workloadVariants times the compiled kernels of the workload's spelled
// variants against its original's (cs).
func workloadVariants(w bench.Workload, mode string, d *bench.WorkloadData, orig *bench.Compiled, f workloadFlags) *ratioRow {
	vs, err := bench.VariantsOf(bench.OfWorkload, w.Name)
	if err != nil {
		fail(err)
	}
	r := &ratioRow{program: w.Name, input: d.Input, mode: mode,
		vs: []*variant{{name: "original", run: func() { mustRun(orig.Run()) }}}}
	for _, v := range vs {
		cs, _, err := bench.NewWorkloadCase(w, mode, d, v)
		if err != nil {
			fail(err)
		}
		c, err := cs.Compile(1)
		if err != nil {
			fail(err)
		}
		r.vs = append(r.vs, &variant{name: v.Spelling, run: func() { mustRun(c.Run()) }})
	}
	runtime.GC()
	timeRounds(r.vs, f.rounds, f.benchtime)
	return r
}

// kernelVariantTables times the six kernels' spelled variants against
// their originals (the compiled gradient, as the kernels' time table) and
// the kernels on two goroutines against one, over the kernels' inputs.
func kernelVariantTables(inputs, variantInputs, kernels []string, variants, threads, jit bool, opts exec.Options, rounds int, d time.Duration) {
	var spell, thr []*ratioRow
	for _, in := range inputs {
		doVariants := variants && slices.Contains(variantInputs, in)
		if !doVariants && !threads {
			continue
		}
		m, why, err := bench.LoadInput(in)
		if err != nil {
			fail(err)
		}
		if m == nil {
			fmt.Fprintf(os.Stderr, "skipping %s: %s\n", in, why)
			continue
		}
		doThreads := threads && m.NNZ() >= manyEntries
		for _, kf := range bench.Kernels {
			if kernels != nil && !slices.Contains(kernels, kf.Name) {
				continue
			}
			if doVariants {
				fmt.Fprintf(os.Stderr, "%s %s: variants\n", kf.Name, in)
				spell = append(spell, kernelVariants(kf.Name, kf.Format, in, m, opts, rounds, d)...)
			}
			if doThreads {
				fmt.Fprintf(os.Stderr, "%s %s: threads\n", kf.Name, in)
				cs, err := bench.NewCase(kf.Name, kf.Format, in, m)
				if err != nil {
					fail(err)
				}
				r := &ratioRow{program: kf.Name, input: in, mode: "grad", exec: "compiled"}
				var k2 *exec.Kernel
				for _, t := range []int{1, 2} {
					o := opts
					o.Threads = t
					k, err := cs.Compile(o)
					if err != nil {
						fail(err)
					}
					res := k.NewResult()
					mustRun(k.RunInto(res, cs.Bindings))
					r.vs = append(r.vs, &variant{name: fmt.Sprint(t), run: func() { mustRun(k.RunInto(res, cs.Bindings)) }})
					k2 = k
				}
				var jr *jitRatioRow
				if jit {
					// the JIT's kernel through the root package, of the
					// same program (forward mode, as bench.Pipeline)
					compile := func(o nablasd.Options) (*bench.Compiled, error) {
						return compileKernel(kf.Name, cs.Inputs, o)
					}
					jr = jitThreads(kf.Name, in, "grad", compile)
				}
				thr = append(thr, timeThreads(r, k2.Threads, jr, cs.HandThreads, rounds, d)...)
			}
		}
	}
	if variants {
		fmt.Println()
		printRatios("spelled variants of the six kernels, compiled gradient: each ÷ its original (prog physical: the hand-written physical program of bench/kernels)", "variant", spell)
	}
	if threads {
		fmt.Println()
		printRatios(fmt.Sprintf("the six kernels on two goroutines against one, inputs of ≥ %d entries: speedup = 1 thread ÷ 2", manyEntries), "threads", thr)
	}
}

// kernelVariants times one kernel's variants against their originals.
func kernelVariants(kernel, format, input string, m *datasets.Coords, opts exec.Options, rounds int, d time.Duration) []*ratioRow {
	vcs, err := bench.KernelVariantCases(kernel, format)
	if err != nil {
		fail(err)
	}
	var out []*ratioRow
	for _, vc := range vcs {
		r := &ratioRow{program: kernel, input: input, mode: "grad", prog: vc.Prog}
		for _, v := range append([]*bench.Variant{nil}, vc.Variants...) {
			cs, err := vc.Case(input, m, v)
			if err != nil {
				fail(err)
			}
			k, err := cs.Compile(opts)
			if err != nil {
				fail(err)
			}
			res := k.NewResult()
			mustRun(k.RunInto(res, cs.Bindings))
			name := "original"
			if v != nil {
				name = v.Spelling
			}
			r.vs = append(r.vs, &variant{name: name, run: func() { mustRun(k.RunInto(res, cs.Bindings)) }})
		}
		runtime.GC()
		timeRounds(r.vs, rounds, d)
		out = append(out, r)
	}
	return out
}

func printWorkloads(rows []*workloadRow) {
	fmt.Println("# workloads (../shared/workloads) against their hand-written closed forms (bench/hand_workloads.go), one goroutine")
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "program\tinput\tmode\thand µs\tcompiled µs\tcompiled÷hand\tjit µs\tjit÷hand\tdefault µs\tdefault÷hand\tdefault runs\tgen µs\tgen÷hand\tallocs/run\tcompile ms\t")
	var why []string
	for _, r := range rows {
		genUs, genRatio := "-", "-"
		if r.gen != nil {
			genUs, genRatio = usCell(median(r.gen.ns)), ratioCell(ratios(r.gen.ns, r.hand.ns))
		}
		jitUs, jitRatio := "-", "-"
		if r.jit != nil {
			jitUs, jitRatio = usCell(median(r.jit.ns)), ratioCell(ratios(r.jit.ns, r.hand.ns))
		}
		if r.jitWhy != "" && !slices.Contains(why, r.jitWhy) {
			why = append(why, r.jitWhy)
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f\t%.1f\t\n",
			r.cs.Program, r.cs.Input, r.cs.Mode,
			usCell(median(r.hand.ns)), usCell(median(r.comp.ns)), ratioCell(ratios(r.comp.ns, r.hand.ns)),
			jitUs, jitRatio, usCell(median(r.def.ns)), ratioCell(ratios(r.def.ns, r.hand.ns)), r.tier.Executor,
			genUs, genRatio, r.allocs, float64(r.compile.Microseconds())/1e3)
	}
	w.Flush()
	for _, x := range why {
		fmt.Println("jit: -: " + x)
	}
	fmt.Println("compiled: nablasd's kernel through the root package (Kernel.Run into a reused Result), Options.Exec \"compiled\" (the closures); jit: the same with Options.Exec \"jit\" (the generated Go built as a plugin);")
	fmt.Println("default: the default options (Options.Exec \"auto\") once the executor has settled (the closures, the build awaited, the runs that measure both), default runs: the executor it kept;")
	fmt.Println("gen: Go generated ahead of time (bench/gen, go run ./bench/cmd/gengo);")
	fmt.Println("compile: Prepare, Compile and the first run; allocs/run: of one compiled run after the first")
}

// printRatios prints sets of variants against their reference: each
// variant's median time and the median (min–max) of its per-round ratios.
// For the threads table the ratio is reference ÷ variant (the speedup).
func printRatios(title, col string, rows []*ratioRow) {
	fmt.Println("# " + title)
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	if len(rows) == 0 {
		fmt.Println("(nothing measured)")
		return
	}
	if col == "threads" {
		fmt.Fprintln(w, "program\tinput\tmode\texec\t1 thread µs\t2 threads µs\tspeedup\tcpu µs 1/2\tcpu 2÷1\tgoroutines used\t")
		for _, r := range rows {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s/%s\t%s\t%d\t\n", r.program, r.input, r.mode, r.exec,
				usCell(median(r.vs[0].ns)), usCell(median(r.vs[1].ns)), ratioCell(ratios(r.vs[0].ns, r.vs[1].ns)),
				usCell(median(r.vs[0].cpu)), usCell(median(r.vs[1].cpu)), ratioCell(ratios(r.vs[1].cpu, r.vs[0].cpu)), r.threads)
		}
		w.Flush()
		fmt.Println("exec: compiled, the closures (exec); jit, the generated Go built as a plugin (Options.Exec \"jit\"); hand, the hand-written loop split by hand (bench/hand_threads.go: rows split by entries, a scatter into a private copy per goroutine but the first, merged after), the machine's ceiling for the loop; a program's rows are timed in the same rounds")
		fmt.Println("speedup: median of the per-round ratios (1 thread ÷ 2), then min–max; a machine busy with other work gives two goroutines no more CPU than one")
		fmt.Println("cpu: the process's processor time per run (getrusage, every thread), medians; cpu 2÷1: the per-round ratios of two goroutines' processor time to one's (near 1 when the split adds no work)")
		fmt.Printf("load average before the table: %s\n", loadAverage())
		return
	}
	fmt.Fprintln(w, "program\tinput\tmode\tprog\tvariant\toriginal µs\tvariant µs\tvariant÷original\t")
	for _, r := range rows {
		prog := r.prog
		if prog == "" {
			prog = "logical"
		}
		for _, v := range r.vs[1:] {
			fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.program, r.input, r.mode, prog, v.name,
				usCell(median(r.vs[0].ns)), usCell(median(v.ns)), ratioCell(ratios(v.ns, r.vs[0].ns)))
		}
	}
	w.Flush()
	fmt.Println("variant÷original: median of the per-round ratios, then min–max (bench/variants/*.sdql)")
}

// allocsOnce returns the heap allocations of one run of f.
func allocsOnce(f func()) float64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return float64(after.Mallocs - before.Mallocs)
}

func mustRun(err error) {
	if err != nil {
		fail(err)
	}
}

// list splits a comma-separated flag value ("" gives nil).
func list(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// compileKernel compiles a kernel's gradient through the root package, as
// bench.Pipeline plans it (forward mode), with the options o, and runs it
// once.
func compileKernel(kernel string, inputs nablasd.Inputs, o nablasd.Options) (*bench.Compiled, error) {
	o.File, o.Mode = kernel, "forward"
	q, err := nablasd.Prepare(bench.Logical[kernel], inputs, &o)
	if err != nil {
		return nil, err
	}
	k, err := q.Compile(bench.Wrt[kernel])
	if err != nil {
		return nil, err
	}
	c := &bench.Compiled{Threads: o.Threads, Query: q, Kernel: k, Result: k.NewResult()}
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%s: %v", kernel, err)
	}
	return c, nil
}
