package bench

import (
	"fmt"
	"sync"
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

// BenchmarkCopyThreads is the machine's yardstick for VVD's speedup: a
// hand-written copy of 1M reals (VVD's gradient on the synthetic input),
// on one goroutine and split in halves on two. Where two goroutines copy
// no faster than one, the memory bandwidth the cores share is the bound,
// and no kernel that copies can do better.
func BenchmarkCopyThreads(b *testing.B) {
	src, dst := make([]float64, 1<<20), make([]float64, 1<<20)
	for i := range src {
		src[i] = float64(i)
	}
	for _, w := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", w), func(b *testing.B) {
			for b.Loop() {
				var wg sync.WaitGroup
				for i := 0; i < w; i++ {
					lo, hi := len(src)*i/w, len(src)*(i+1)/w
					wg.Add(1)
					go func() {
						defer wg.Done()
						copy(dst[lo:hi], src[lo:hi])
					}()
				}
				wg.Wait()
			}
		})
	}
}
