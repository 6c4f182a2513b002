//go:build !linux

package main

import "time"

// threadCPU is the calling thread's processor time where the system gives
// it (Linux); here it does not.
func threadCPU() (time.Duration, bool) { return 0, false }
