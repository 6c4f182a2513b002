package main

import (
	"fmt"
	"io"
	"sort"
	"syscall"
	"time"
)

// runStats implements --repeat N and --stats.
type runStats struct {
	repeat int
	stats  bool
	times  []time.Duration
	// threads is the goroutines the compiled kernel's last run used,
	// reported when --threads asked for more than one (0: not asked).
	threads int
	// executor is what ran the kernel (Kernel.Executor after the runs)
	executor string
}

// measure runs f --repeat times.
func (r *runStats) measure(f func() error) error {
	for i := 0; i < r.repeat; i++ {
		start := time.Now()
		err := f()
		r.times = append(r.times, time.Since(start))
		if err != nil {
			return err
		}
	}
	return nil
}

// report prints compile_ms=… run_ms=… peak_rss_mb=… executor=… when
// --stats is set, and threads=N (the goroutines the kernel used) when
// --threads was given more than one.
func (r *runStats) report(w io.Writer, compile time.Duration) {
	if !r.stats {
		return
	}
	ts := append([]time.Duration(nil), r.times...)
	sort.Slice(ts, func(i, j int) bool { return ts[i] < ts[j] })
	median := ts[len(ts)/2]
	if len(ts)%2 == 0 {
		median = (ts[len(ts)/2-1] + ts[len(ts)/2]) / 2
	}
	fmt.Fprintf(w, "compile_ms=%s run_ms=%s peak_rss_mb=%s executor=%s", ms(compile), ms(median), peakRSS(), r.executor)
	if r.threads > 0 {
		fmt.Fprintf(w, " threads=%d", r.threads)
	}
	fmt.Fprintln(w)
}

// ms formats a duration in milliseconds with microsecond resolution.
func ms(d time.Duration) string {
	return fmt.Sprintf("%.3f", float64(d.Microseconds())/1000)
}

// peakRSS is the process's peak resident set size in MiB.
func peakRSS() string {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f", float64(ru.Maxrss)/1024) // Linux reports KiB
}
