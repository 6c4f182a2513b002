//go:build !race

package crosscheck

// raceEnabled: the race detector is on.
const raceEnabled = false
