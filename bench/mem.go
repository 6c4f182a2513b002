package bench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// Memory of a kernel, measured two ways (bench/cmd/report prints both).
//
// AllocatedBy is a sound upper bound on the live heap a piece of code adds:
// every byte it allocates on the Go heap (runtime.MemStats.TotalAlloc),
// whether or not it is still reachable, freed or ever touched. It counts
// nothing outside the Go heap (stacks, the runtime's own metadata, code)
// and is exact regardless of the garbage collector's pacing.
//
// PeakRSS measures process memory: the operating system's high-water mark
// of resident memory (VmHWM) over a piece of code, less the resident
// memory (VmRSS) before it, after a full collection has returned every
// free page to the operating system. It sees what the process really
// holds at its peak: garbage the collector has not yet reclaimed (with
// GOGC=100 a heap of L live bytes may grow to about 2L before the next
// collection), slices whose capacity exceeds their length, the runtime's
// span and arena metadata, stacks, and code pages touched for the first
// time. Its limits: it is Linux only; its granularity is the page (4 KiB),
// and small allocations that fit in spans already resident are not seen,
// so on inputs of a few hundred kilobytes the runtime's own overhead is of
// the size of what is measured; and it is one run of the garbage
// collector's pacing, not a bound.

// AllocatedBy returns the bytes f allocates on the Go heap
// (runtime.MemStats.TotalAlloc before and after). Other goroutines'
// allocations in the meantime are counted too.
func AllocatedBy(f func()) int64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// ErrNoPeakRSS is returned by PeakRSS where the operating system cannot
// reset or report a process's peak resident memory.
var ErrNoPeakRSS = errors.New("peak resident memory needs Linux's /proc/self/clear_refs and /proc/self/status")

// PeakRSS runs f and returns the process's peak resident memory during f
// above its resident memory just before f (both in bytes), and that
// baseline. Before f it collects garbage and returns free memory to the
// operating system (runtime.GC, debug.FreeOSMemory), then resets the
// kernel's high-water mark (VmHWM) by writing "5" to /proc/self/clear_refs
// and reads the baseline (VmRSS) from /proc/self/status; after f it reads
// VmHWM. The high-water mark is the whole process's, so PeakRSS is meant
// for a process doing nothing else (bench/cmd/report runs each measurement
// in a child process of its own). The error wraps ErrNoPeakRSS where /proc
// cannot be written or read (not Linux, a kernel before 4.0, no
// permission).
func PeakRSS(f func()) (extra, baseline int64, err error) {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrNoPeakRSS, err)
	}
	baseline, _, err = procStatus()
	if err != nil {
		return 0, 0, err
	}
	f()
	_, hwm, err := procStatus()
	if err != nil {
		return 0, 0, err
	}
	return hwm - baseline, baseline, nil
}

// procStatus reads VmRSS and VmHWM, in bytes, from /proc/self/status.
func procStatus() (rss, hwm int64, err error) {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, 0, fmt.Errorf("%w: %v", ErrNoPeakRSS, err)
	}
	rss, hwm = -1, -1
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) != 3 || string(f[2]) != "kB" {
			continue
		}
		var dst *int64
		switch string(f[0]) {
		case "VmRSS:":
			dst = &rss
		case "VmHWM:":
			dst = &hwm
		default:
			continue
		}
		n, err := strconv.ParseInt(string(f[1]), 10, 64)
		if err != nil {
			return 0, 0, fmt.Errorf("%w: /proc/self/status: %v", ErrNoPeakRSS, err)
		}
		*dst = n << 10
	}
	if rss < 0 || hwm < 0 {
		return 0, 0, fmt.Errorf("%w: /proc/self/status has no VmRSS or VmHWM", ErrNoPeakRSS)
	}
	return rss, hwm, nil
}
