//go:build !race

package datasets

// raceEnabled: the race detector is on.
const raceEnabled = false
