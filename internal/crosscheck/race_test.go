//go:build race

package crosscheck

// raceEnabled: the race detector is on (it slows the pipeline about
// tenfold; the cross-check then runs a sample).
const raceEnabled = true
