package main

import (
	"os"
	"syscall"
	"unsafe"
)

// isTerminalFile reports whether f is a terminal: whether it answers the
// terminal's ioctl (TCGETS), as isatty(3) asks. A character device that
// is not a terminal (/dev/null) is not one.
func isTerminalFile(f *os.File) bool {
	var t syscall.Termios
	_, _, errno := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), syscall.TCGETS, uintptr(unsafe.Pointer(&t)))
	return errno == 0
}
