//go:build !unix

package main

// loadAverage is "-" without /proc/loadavg.
func loadAverage() string { return "-" }
