//go:build race

package exec

// raceEnabled: the race detector is on (it allocates, and sync.Pool drops
// frames at random under it, so allocation counts mean nothing).
const raceEnabled = true
