//go:build !unix

package main

import "time"

// processCPU is 0 where getrusage is missing: the cpu columns show 0.
func processCPU() time.Duration { return 0 }

// loadAverage is "-" without /proc/loadavg.
func loadAverage() string { return "-" }
