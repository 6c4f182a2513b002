package main

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/nablasd/nablasd"
)

// runStats implements --repeat N and --stats.
type runStats struct {
	repeat int
	stats  bool
	times  []time.Duration
	// ran is the executor of each run (--exec auto alternates the two
	// while it measures them)
	ran []string
	// threads is the goroutines the compiled kernel's last run used,
	// reported when --threads asked for more than one (0: not asked).
	threads int
	// executor is what ran the kernel (Kernel.Executor after the runs),
	// reason why (executorReason)
	executor, reason string
	// size is the result's bytes (nablasd.Result.Size)
	size int64
}

// measure runs the kernel --repeat times by f, noting the executor of
// each run.
func (r *runStats) measure(k *nablasd.Kernel, f func() error) error {
	for i := 0; i < r.repeat; i++ {
		start := time.Now()
		err := f()
		r.times = append(r.times, time.Since(start))
		if err != nil {
			return err
		}
		ran := k.Tier().Last
		if ran == "" {
			ran = k.Executor()
		}
		r.ran = append(r.ran, ran)
	}
	return nil
}

// report prints compile_ms=… run_ms=… peak_rss_mb=… result_mb=…
// executor=… reason="…" when --stats is set, and threads=N (the goroutines the
// kernel used) when --threads was given more than one. run_ms is the
// median of the runs by the executor reported.
func (r *runStats) report(w io.Writer, compile time.Duration) {
	if !r.stats {
		return
	}
	// the runs of the executor reported (all of them when it ran none:
	// a run that failed natively, say)
	var ts []time.Duration
	for i, d := range r.times {
		if i < len(r.ran) && r.ran[i] == r.executor {
			ts = append(ts, d)
		}
	}
	if len(ts) == 0 {
		ts = append(ts, r.times...)
	}
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	median := ts[len(ts)/2]
	if len(ts)%2 == 0 {
		median = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
	}
	fmt.Fprintf(w, "compile_ms=%s run_ms=%s peak_rss_mb=%s result_mb=%.1f executor=%s", ms(compile), ms(median), peakRSS(), float64(r.size)/(1<<20), r.executor)
	if r.threads > 0 {
		fmt.Fprintf(w, " threads=%d", r.threads)
	}
	fmt.Fprintf(w, " reason=%q\n", r.reason)
}

// executorReason says why the kernel ran on its executor, for --stats:
// the --exec flag that fixed it (and why --exec jit fell back to the
// closures), or for --exec auto the tier's state and reason
// (nablasd.Kernel.Tier).
func executorReason(k *nablasd.Kernel, exec string) string {
	t := k.Tier()
	if t.State == "fixed" {
		if t.Err != nil {
			return fmt.Sprintf("--exec %s, but the JIT cannot build the kernel: %v", exec, t.Err)
		}
		return "--exec " + exec
	}
	if t.State == "off" && t.Err == nil && strings.HasPrefix(t.Reason, "not in the JIT cache") {
		// the root package's reason names Options.JITAfter < 0, which a
		// one-shot command sets (oneShot)
		return "off: not in the JIT cache, and a one-shot command builds nothing (--exec jit builds the kernel and caches it)"
	}
	return t.State + ": " + t.Reason
}

// ms formats a duration in milliseconds with microsecond resolution.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3f", float64(d.Microseconds())/1000)
}

// peakRSS is the process's peak resident set size in MiB: /proc's
// VmHWM where there is one (this program's alone: the rusage of a process
// started by a Go program counts that program's memory, as Linux starts
// a CLONE_VM child's high-water mark at its parent's), else the rusage's.
func peakRSS() string {
	if status, err := os.ReadFile("/proc/self/status"); err == nil {
		for _, line := range strings.Split(string(status), "\n") {
			if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
				var kib float64
				if _, err := fmt.Sscanf(strings.TrimSpace(rest), "%g kB", &kib); err == nil {
					return fmt.Sprintf("%.1f", kib/1024)
				}
			}
		}
	}
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f", float64(ru.Maxrss)/1024) // Linux reports KiB
}
