//go:build race

package gorun

// raceEnabled: the test binary has the race detector, so kernels run on
// several goroutines are built with it too.
const raceEnabled = true
