package bench

import (
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/nablasd/nablasd/exec"
)

// BenchmarkThreads runs each kernel serially and on two goroutines
// (exec.Options.Threads) over every input, the two next to each other so
// that a noisy machine affects both alike. The goroutines metric is what
// a run used (exec.Kernel.Threads): 1 where the work is too small to
// share; cpu-ns/op is the process's CPU time per run (user and system),
// which a machine busy with other work does not inflate as it does the
// wall time: two goroutines that get no more CPU than one show it.
func BenchmarkThreads(b *testing.B) {
	eachCase(b, func(cs *Case) {
		for _, threads := range []int{1, 2} {
			k, err := cs.Compile(exec.Options{Threads: threads})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/threads=%d", cs.Name(), threads), func(b *testing.B) {
				res := k.NewResult()
				if err := k.RunInto(res, cs.Bindings); err != nil { // sizes the buffers
					b.Fatal(err)
				}
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					if err := k.RunInto(res, cs.Bindings); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
				b.ReportMetric(float64(k.Threads()), "goroutines")
			})
		}
	})
}

// cpuTime is the process's user and system CPU time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
