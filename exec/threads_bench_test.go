package exec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// crossoverInput is a square CSR matrix A with 10 random entries a row
// and nnz entries in all, bound as threadInput does, with B = A.
func crossoverInput(nnz int) threadInput {
	r := rand.New(rand.NewPCG(3, uint64(nnz)))
	n := max(nnz/10, 1)
	in := newThreadInput(fmt.Sprint(nnz), n, 1, true, r, func(int) []int {
		c := make([]int, 0, 10)
		for len(c) < min(10, n) {
			j := r.IntN(n)
			if !slices.Contains(c, j) {
				c = append(c, j)
			}
		}
		slices.Sort(c)
		return c
	})
	for _, a := range []string{"_len", "_pos", "_idx", "_val"} {
		in.b["B"+a] = in.b["A"+a]
	}
	in.cols = n
	return in
}

// BenchmarkThreadsCrossover measures the parallel steps with every
// threshold at its least (a fork for any work) against the serial kernel
// over growing inputs: where threads=2 starts to win is where the
// thresholds of team.go belong. cpu-ns/op is the process's CPU time per
// run: what the parallel run costs beyond the serial one, whatever else
// the machine is doing.
func BenchmarkThreadsCrossover(b *testing.B) {
	c, d, s, o, i := minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations
	defer func() { minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations = c, d, s, o, i }()
	names := map[string]bool{"vvd": true, "vsm": true, "vva": true, "smvm": true, "smmm": true, "batax": true, "general-own": true}
	for _, nnz := range []int{1 << 12, 1 << 14, 1 << 16, 1 << 18, 1 << 20, 1 << 22} {
		in := crossoverInput(nnz)
		for _, pg := range threadPrograms {
			if !names[pg.name] || pg.name == "batax" && nnz > 1<<18 || pg.name == "general-own" && nnz > 1<<20 {
				continue
			}
			prog, err := sdql.Parse(pg.name, pg.src)
			if err != nil {
				b.Fatal(err)
			}
			var shape []int
			if pg.shape != nil {
				shape = pg.shape(in)
			}
			for _, threads := range []int{1, 2} {
				k, err := CompileFor(prog, in.b, Options{Threads: threads, ResultShape: shape})
				if err != nil {
					b.Fatal(err)
				}
				r := k.NewResult()
				b.Run(fmt.Sprintf("kernel=%s/nnz=%d/threads=%d", pg.name, nnz, threads), func(b *testing.B) {
					minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations = 1, 1, 1, 1, 1
					defer func() { minCopyWork, minDenseWork, minScatterWork, minOuterWork, minSplitIterations = c, d, s, o, i }()
					cpu0 := cpuTime()
					for b.Loop() {
						if err := k.RunInto(r, in.b); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
				})
			}
		}
	}
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
