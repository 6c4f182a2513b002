//go:build !linux

package main

import "os"

// isTerminalFile reports whether f is a character device: a terminal
// where a system call to ask is not at hand.
func isTerminalFile(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
