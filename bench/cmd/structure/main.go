// Command structure times programs written inline against the same
// programs written with their lets: every workload with lets
// (../shared/workloads) against its inline variant (bench/variants, the
// spelling inline or, where each let is used once, let_inlined) and the
// examples of issue 33 (bench.Examples) against theirs, value (eval) and
// gradient (grad), on one core, and prints a Markdown table of the
// inline form's time over the let-bound form's:
//
//	go run ./bench/cmd/structure [-inputs bcspwr10,e40r0000] [-rounds 41] [-benchtime 5ms]
//
// Both forms are compiled by the root package (Options.Exec "compiled",
// one goroutine) and run into a reused Result, in interleaved rounds:
// every round runs each form for at least -benchtime of CPU time, the
// let-bound form first in odd rounds and second in even ones, and
// inline÷let-bound is the median of the per-round ratios (then their
// range). Time is the CPU time of the thread that runs the kernels (on
// Linux; the wall clock elsewhere), which other work on a busy machine
// does not inflate. Each pair's results must be equal as functions
// (sdql.Equal) or the command fails.
package main

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/sdql"
)

// pair is a program in its two structures.
type pair struct {
	name, wrt        string
	letBound, inline string
}

func main() {
	inputs := flag.String("inputs", "bcspwr10,e40r0000", "SuiteSparse matrices to run on")
	rounds := flag.Int("rounds", 41, "interleaved rounds")
	benchtime := flag.Duration("benchtime", 5*time.Millisecond, "least time of each form in a round")
	flag.Parse()
	runtime.GOMAXPROCS(1)
	runtime.LockOSThread()
	pairs, err := pairs()
	if err != nil {
		fail(err)
	}
	fmt.Println("| program | input | mode | let-bound ms | inline ms | inline ÷ let-bound (range) |")
	fmt.Println("| --- | --- | --- | ---: | ---: | --- |")
	for _, in := range strings.Split(*inputs, ",") {
		m, why, err := bench.LoadInput(in)
		if err != nil {
			fail(err)
		}
		if m == nil {
			fail(fmt.Errorf("%s: %s", in, why))
		}
		d, err := bench.NewWorkloadData(in, m, bench.FactorizationK)
		if err != nil {
			fail(err)
		}
		for _, p := range pairs {
			for _, mode := range bench.Modes {
				row, err := timePair(p, mode, d, *rounds, *benchtime)
				if err != nil {
					fail(fmt.Errorf("%s %s on %s: %v", p.name, mode, in, err))
				}
				fmt.Println(row)
			}
		}
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "structure:", err)
	os.Exit(1)
}

// pairs are the workloads with lets and the examples, each with its inline
// variant.
func pairs() ([]pair, error) {
	var out []pair
	inline := func(kind, name string) (*bench.Variant, error) {
		vs, err := bench.VariantsOf(kind, name)
		if err != nil {
			return nil, err
		}
		for _, s := range []string{"inline", "let_inlined"} {
			for _, v := range vs {
				if v.Spelling == s {
					return v, nil
				}
			}
		}
		return nil, nil
	}
	for _, w := range bench.Workloads {
		src, _, why, err := bench.WorkloadSource(w.Name)
		if err != nil {
			return nil, err
		}
		if why != "" {
			return nil, fmt.Errorf("%s", why)
		}
		if !strings.Contains(src, "let ") {
			continue // no let: written inline already
		}
		v, err := inline(bench.OfWorkload, w.Name)
		if err != nil || v == nil {
			return nil, fmt.Errorf("workload %s has no inline variant (%v)", w.Name, err)
		}
		out = append(out, pair{w.Name, w.Wrt, src, v.Src})
	}
	for _, x := range bench.Examples {
		src, err := bench.ExampleSource(x)
		if err != nil {
			return nil, err
		}
		v, err := inline(bench.OfExample, x)
		if err != nil || v == nil {
			return nil, fmt.Errorf("example %s has no inline variant (%v)", x, err)
		}
		out = append(out, pair{x, bench.ExampleWrt, src, v.Src})
	}
	return out, nil
}

// compiled is one form compiled, with its destination.
type compiled struct {
	k   *nablasd.Kernel
	r   *nablasd.Result
	in  nablasd.Inputs
	nss []float64
}

func compile(src, mode, wrt string, d *bench.WorkloadData) (*compiled, error) {
	e, err := sdql.Parse("", src)
	if err != nil {
		return nil, err
	}
	in, err := d.Inputs(sdql.FreeVars(e))
	if err != nil {
		return nil, err
	}
	q, err := nablasd.Prepare(src, in, &nablasd.Options{Exec: "compiled", Threads: 1})
	if err != nil {
		return nil, err
	}
	var ws []string
	if mode == "grad" {
		ws = []string{wrt}
	}
	k, err := q.Compile(ws...)
	if err != nil {
		return nil, err
	}
	c := &compiled{k: k, r: k.NewResult(), in: in}
	return c, c.run()
}

func (c *compiled) run() error { return c.k.Run(c.r, c.in) }

// timeFor runs c for at least d of the thread's CPU time and returns the
// ns per run.
func (c *compiled) timeFor(d time.Duration) float64 {
	n := 0
	start := threadTime()
	for n == 0 || threadTime()-start < d {
		if err := c.run(); err != nil {
			fail(err)
		}
		n++
	}
	return float64((threadTime() - start).Nanoseconds()) / float64(n)
}

func timePair(p pair, mode string, d *bench.WorkloadData, rounds int, bt time.Duration) (string, error) {
	lb, err := compile(p.letBound, mode, p.wrt, d)
	if err != nil {
		return "", err
	}
	in, err := compile(p.inline, mode, p.wrt, d)
	if err != nil {
		return "", err
	}
	if !sdql.Equal(lb.r.Value(), in.r.Value()) {
		return "", fmt.Errorf("the inline form's result differs from the let-bound form's")
	}
	runtime.GC()
	var ratios []float64
	for r := range rounds {
		a, b := lb, in
		if r%2 == 1 {
			a, b = in, lb
		}
		a.nss = append(a.nss, a.timeFor(bt))
		b.nss = append(b.nss, b.timeFor(bt))
		ratios = append(ratios, in.nss[r]/lb.nss[r])
	}
	slices.Sort(ratios)
	return fmt.Sprintf("| %s | %s | %s | %.3f | %.3f | %.2f (%.2f–%.2f) |", p.name, d.Input, mode,
		median(lb.nss)/1e6, median(in.nss)/1e6, ratios[len(ratios)/2], ratios[0], ratios[len(ratios)-1]), nil
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
