package bench

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
)

// BenchmarkWriteResult times nablasd's --out path (Result.WriteMatrixMarket
// into datasets.WriteFileAtomic, a file on disk) for results of 10M
// entries held in the kinds of destination a kernel fills: a dense vector
// (a gradient with respect to a dense input), a growable dense one (keys
// found as the kernel runs), a hashed one (keys too sparse for an array)
// and a matrix. It reports the file's MB/s, the result's storage
// (result-MB, Result.Size), what writing allocates (alloc-MB) and the process's
// peak resident memory above its size before writing (peak-MB, Linux), and
// (result + peak) / result, and the CPU seconds a write takes (cpu-s/op,
// the process's user and system time: on a shared machine the wall time
// is longer): the issue asks for 3 s and 1.5× at most.
func BenchmarkWriteResult(b *testing.B) {
	const n = 10_000_000
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i%1000) / 7
	}
	side := 3163 // side² ≈ 10M
	cases := []struct {
		kind, prog, wrt string
		in              nablasd.Inputs
	}{
		{"dense", "sum(<i, a> in v) a * a * s", "v", nablasd.Inputs{"v": v, "s": 0.5}},
		{"growable", "sum(<i, a> in v) { i -> a * s }", "", nablasd.Inputs{"v": v, "s": 0.5}},
		{"hashed", "sum(<i, a> in v) { 1000 * i -> a * s }", "", nablasd.Inputs{"v": v, "s": 0.5}},
		{"matrix", "sum(<i, a> in u) { i -> sum(<j, c> in u) { j -> a * c } }", "", nablasd.Inputs{"u": v[:side]}},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("kind=%s/entries=10M", c.kind), func(b *testing.B) {
			// the closures' destination, whose size Result.Size gives
			q, err := nablasd.Prepare(c.prog, c.in, &nablasd.Options{Exec: "compiled"})
			if err != nil {
				b.Fatal(err)
			}
			var wrt []string
			if c.wrt != "" {
				wrt = []string{c.wrt}
			}
			k, err := q.Compile(wrt...)
			if err != nil {
				b.Fatal(err)
			}
			res := k.NewResult()
			if err := k.Run(res, nil); err != nil {
				b.Fatal(err)
			}
			resultBytes := float64(res.Size())
			path := filepath.Join(b.TempDir(), "out.mtx")
			write := func() {
				err := datasets.WriteFileAtomic(path, func(w io.Writer) error { return res.WriteMatrixMarket(w, nil) })
				if err != nil {
					b.Fatal(err)
				}
			}
			alloc := AllocatedBy(write)
			peak, _, perr := PeakRSS(write)
			st, _ := os.Stat(path)
			b.SetBytes(st.Size())
			cpu0 := cpuTime()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				write()
			}
			b.StopTimer()
			// CPU seconds a write takes: what the wall time would be on an
			// idle core (the machine is shared)
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(resultBytes/1e6, "result-MB")
			b.ReportMetric(float64(alloc)/1e6, "alloc-MB")
			if perr == nil {
				b.ReportMetric(float64(peak)/1e6, "peak-MB")
				b.ReportMetric((resultBytes+float64(peak))/resultBytes, "peak/result")
			}
			runtime.KeepAlive(res)
		})
	}
}
