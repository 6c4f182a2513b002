//go:build !(linux || darwin || freebsd || netbsd || openbsd)

package nablasd

import "time"

// processCPU is the CPU time the process has used: not known here (0).
func processCPU() time.Duration { return 0 }
