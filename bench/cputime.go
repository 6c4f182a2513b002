package bench

import (
	"syscall"
	"time"
)

// ProcessCPU is the processor time the process has used so far, user and
// system, all its threads (0 where getrusage fails): what the commands'
// processor-time columns read, for a machine shared with other work.
func ProcessCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
