//go:build !race

package exec

// raceEnabled: the race detector is on.
const raceEnabled = false
