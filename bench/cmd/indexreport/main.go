// Command indexreport measures the index-arithmetic workloads
// (bench/workloads: the 1-D convolution, the 2-D stencil, total
// variation, the strided downsampling, the banded Toeplitz product), each
// value and each gradient, against their hand-written Go and their
// NumPy/SciPy closed forms:
//
//	go run ./bench/cmd/indexreport [-workloads conv1d,tv] [-rounds 7] [-size 1000000] [-grid 1000] [-jit] [-cpu] [-python python3]
//
// For each it prints the median time of nablasd's closures (the default
// executor's first tier, what a one-shot run uses: Exec "compiled") on one
// goroutine and on two (--threads 2), with -jit the native kernel (the
// generated Go, Exec "jit") on one and two, the hand-written Go on one
// and two (bench.IndexData.HandThreads: the ceiling of a split of the same
// loops on this machine), and the NumPy/SciPy closed form on one thread
// ("not installed" without them), then the ratios the issue asks for:
// closures / NumPy, generated Go / hand-written Go, one goroutine / two. The Go variants run interleaved
// round by round (fixed seeds), so a shared machine's load spreads over
// all of them; every result is checked against the hand-written one
// first. With -cpu the one-goroutine variants and NumPy are timed by the
// processor time of their thread (process, for Python) instead of the
// wall clock: on a machine shared with other work, a variant's time then
// leaves out its waits for a core (the two-goroutine variants, whose
// processor time is their goroutines' sum, keep the wall clock, and the
// threads' ratio compares wall clocks). The threads' ratio of a variant
// is the median over the rounds of its one-goroutine wall clock over its
// two-goroutine wall clock in the same round (run one after the other).
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/sdql"
)

func main() {
	names := flag.String("workloads", "", "the workloads to measure, comma-separated (default: all)")
	rounds := flag.Int("rounds", 7, "interleaved rounds per variant (the median is reported)")
	size := flag.Int("size", bench.IndexSignal, "the signals' length")
	grid := flag.Int("grid", bench.IndexGrid, "the stencil's side")
	jit := flag.Bool("jit", false, "also time the native kernels (Exec \"jit\": the generated Go)")
	python := flag.String("python", "", "the Python with NumPy and SciPy (default python3 on PATH)")
	cpu := flag.Bool("cpu", false, "time the one-goroutine variants and NumPy by their processor time, not the wall clock")
	flag.Parse()
	if *cpu {
		// a one-goroutine variant runs locked to its thread, whose
		// processor time threadCPU reads (only while it runs: a thread
		// locked through the two-goroutine variants' runs halved their
		// speedup)
		if _, ok := threadCPU(); !ok {
			fail(fmt.Errorf("-cpu: this system gives no thread's processor time"))
		}
	}
	dir, err := os.MkdirTemp("", "indexreport")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(dir)
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\twrt\tclosures\tclosures×2\tjit\tjit×2\thand Go\thand×2\tNumPy/SciPy\tclosures/NumPy\tjit/hand\t1/2 threads\t")
	peerVersions := ""
	for _, w := range bench.IndexWorkloads {
		if *names != "" && !slices.Contains(strings.Split(*names, ","), w.Name) {
			continue
		}
		n := *size
		if w.Name == "stencil2d" {
			n = *grid
		}
		d, err := bench.NewIndexData(w.Name, n)
		if err != nil {
			fail(err)
		}
		for _, wrt := range append([]string{""}, w.Wrt...) {
			row, err := measure(d, wrt, *rounds, *jit, *cpu)
			if err != nil {
				fail(err)
			}
			peer, err := bench.RunIndexPeerClock(*python, dir, d, wrt, *rounds, *cpu)
			if err != nil {
				fail(err)
			}
			np := "not installed"
			ratio := "-"
			if peer.Missing == "" {
				t := median(peer.Times)
				np = ms(t)
				ratio = fmt.Sprintf("%.2f", float64(row.closures)/float64(t))
				peerVersions = fmt.Sprintf("numpy %s, scipy %s", peer.NumPy, peer.SciPy)
			} else {
				np = "not installed (" + peer.Missing + ")"
			}
			jitRatio, threads := "-", fmt.Sprintf("%.2f", row.closuresX2)
			if *jit {
				jitRatio = fmt.Sprintf("%.2f", float64(row.jit)/float64(row.hand))
				threads += fmt.Sprintf(" (jit %.2f", row.jitX2)
			} else {
				threads += " ("
			}
			threads += fmt.Sprintf(" hand %.2f)", row.handX2)
			what := wrt
			if what == "" {
				what = "value"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", w.Name, what, ms(row.closures), ms(row.closures2),
				ms(row.jit), ms(row.jit2), ms(row.hand), ms(row.hand2), np, ratio, jitRatio, threads)
		}
	}
	tw.Flush()
	if peerVersions != "" {
		fmt.Println("peer:", peerVersions)
	}
	clock := "the wall clock"
	if *cpu {
		clock = "processor time (×2: the wall clock)"
	}
	fmt.Printf("median of %d interleaved rounds by %s (1/2 threads: the median of the rounds' wall-clock ratios); signals of %d entries, a %d×%d stencil; %d CPUs\n", *rounds, clock, *size, *grid, *grid, nproc())
}

// row is one cell's median times (0: not measured): by the wall clock,
// or by processor time with -cpu but for the two-goroutine variants; and
// the one-goroutine variants' speedups on two, each the median over the
// rounds of a round's wall clock on one over its wall clock on two (the
// two run one after the other, so that a load that comes and goes
// weighs on both alike).
type row struct {
	closures, closures2, jit, jit2, hand, hand2 time.Duration
	closuresX2, jitX2, handX2                   float64
}

// measure compiles the value (wrt "") or gradient in each executor,
// checks each against the hand-written closed form, then times them all
// interleaved.
func measure(d *bench.IndexData, wrt string, rounds int, withJIT, cpu bool) (*row, error) {
	src, err := bench.IndexSource(d.Workload)
	if err != nil {
		return nil, err
	}
	handRun, handValue, err := d.Hand(wrt)
	if err != nil {
		return nil, err
	}
	handRun()
	want := handValue()
	type variant struct {
		name    string
		run     func() error
		t, wall []time.Duration
		dst     *time.Duration
		cpu     bool // timed by its thread's processor time
	}
	var vs []*variant
	r := &row{}
	add := func(name string, o nablasd.Options, dst *time.Duration) error {
		q, err := nablasd.Prepare(src, d.Inputs(), &o)
		if err != nil {
			return err
		}
		var k *nablasd.Kernel
		if wrt == "" {
			k, err = q.Compile()
		} else {
			k, err = q.Compile(wrt)
		}
		if err != nil {
			return err
		}
		res := k.NewResult()
		if err := k.Run(res, nil); err != nil {
			return err
		}
		if diff := sdql.DiffDicts(res.Value(), want, 1e-9); diff != "" {
			return fmt.Errorf("%s w.r.t. %q, %s: %s against the hand-written closed form", d.Workload, wrt, name, diff)
		}
		vs = append(vs, &variant{name: name, run: func() error { return k.Run(res, nil) }, dst: dst,
			cpu: cpu && max(o.Threads, 1) == 1})
		return nil
	}
	if err := add("closures", nablasd.Options{Exec: "compiled"}, &r.closures); err != nil {
		return nil, err
	}
	if err := add("closures×2", nablasd.Options{Exec: "compiled", Threads: 2}, &r.closures2); err != nil {
		return nil, err
	}
	if withJIT {
		if err := add("jit", nablasd.Options{Exec: "jit"}, &r.jit); err != nil {
			return nil, err
		}
		if err := add("jit×2", nablasd.Options{Exec: "jit", Threads: 2}, &r.jit2); err != nil {
			return nil, err
		}
	}
	vs = append(vs, &variant{name: "hand", run: func() error { handRun(); return nil }, dst: &r.hand, cpu: cpu})
	hand2Run, hand2Value, err := d.HandThreads(wrt, 2)
	if err != nil {
		return nil, err
	}
	hand2Run()
	if diff := sdql.DiffDicts(hand2Value(), want, 1e-9); diff != "" {
		return nil, fmt.Errorf("%s w.r.t. %q, the hand-written split: %s against the serial loop", d.Workload, wrt, diff)
	}
	vs = append(vs, &variant{name: "hand×2", run: func() error { hand2Run(); return nil }, dst: &r.hand2})
	for round := 0; round < rounds; round++ {
		for _, v := range vs {
			if v.cpu {
				runtime.LockOSThread()
			}
			c0, _ := threadCPU()
			t0 := time.Now()
			if err := v.run(); err != nil {
				return nil, err
			}
			wall := time.Since(t0)
			c1, _ := threadCPU()
			if v.cpu {
				runtime.UnlockOSThread()
			}
			v.wall = append(v.wall, wall)
			if v.cpu {
				v.t = append(v.t, c1-c0)
			} else {
				v.t = append(v.t, wall)
			}
		}
	}
	for _, v := range vs {
		*v.dst = median(v.t)
	}
	speedup := func(one, two string) float64 {
		var a, b *variant
		for _, v := range vs {
			switch v.name {
			case one:
				a = v
			case two:
				b = v
			}
		}
		if a == nil || b == nil {
			return 0
		}
		rs := make([]float64, len(a.wall))
		for i := range rs {
			rs[i] = float64(a.wall[i]) / float64(b.wall[i])
		}
		slices.Sort(rs)
		return rs[len(rs)/2]
	}
	r.closuresX2, r.jitX2, r.handX2 = speedup("closures", "closures×2"), speedup("jit", "jit×2"), speedup("hand", "hand×2")
	return r, nil
}

func median(ts []time.Duration) time.Duration {
	if len(ts) == 0 {
		return 0
	}
	s := slices.Clone(ts)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(t time.Duration) string {
	if t == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f ms", float64(t)/float64(time.Millisecond))
}

func nproc() int {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "processor\t:")
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "indexreport:", err)
	os.Exit(1)
}
