package main

import (
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID: the calling
// thread's processor time, to the nanosecond (getrusage's is counted in
// scheduler ticks, too coarse for a run of a millisecond).
const clockThreadCPUTime = 3

// threadCPU is the processor time the calling thread has used, and
// whether the system gives it.
func threadCPU() (time.Duration, bool) {
	var ts syscall.Timespec
	if _, _, errno := syscall.RawSyscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		return 0, false
	}
	return time.Duration(ts.Nano()), true
}
