package paper

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
)

// Peak memory is measured as bench.PeakRSS does, around a cell's setup and
// first run in the child process that runs it: collect garbage and return
// free memory to the operating system, reset Linux's high-water mark of
// resident memory (write "5" to /proc/self/clear_refs), read the resident
// memory (VmRSS); afterwards the high-water mark (VmHWM) less that
// baseline is the cell's peak. py/peer.py does the same in Python.

// resetPeak resets the high-water mark and returns the resident memory
// (-1 where /proc cannot do it: not Linux, no permission).
func resetPeak() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		return -1
	}
	rss, err := procStatus(os.Getpid(), "VmRSS:")
	if err != nil {
		return -1
	}
	return rss
}

// peakSince is the high-water mark above base (-1 when unknown).
func peakSince(base int64) int64 {
	if base < 0 {
		return -1
	}
	hwm, err := procStatus(os.Getpid(), "VmHWM:")
	if err != nil {
		return -1
	}
	return max(hwm-base, 0)
}

// procStatus reads one of the memory fields of /proc/PID/status in bytes.
func procStatus(pid int, key string) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		f := bytes.Fields(sc.Bytes())
		if len(f) == 3 && string(f[0]) == key && string(f[2]) == "kB" {
			n, err := strconv.ParseInt(string(f[1]), 10, 64)
			if err != nil {
				return 0, err
			}
			return n << 10, nil
		}
	}
	return 0, fmt.Errorf("/proc/%d/status has no %s", pid, key)
}
