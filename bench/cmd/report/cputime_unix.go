//go:build unix

package main

import (
	"os"
	"strings"
)

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
