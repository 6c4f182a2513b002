//go:build unix

package main

import (
	"os"
	"strings"
	"syscall"
	"time"
)

// processCPU is the processor time the process has used, all its threads
// (0 where getrusage fails).
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadAverage is /proc/loadavg's 1, 5 and 15 minute averages, or "-"
// where there is none.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "-"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "-"
	}
	return strings.Join(f[:3], " ")
}
