//go:build race

package datasets

// raceEnabled: the race detector is on (it slows reading about tenfold;
// the corruption tests then try fewer offsets).
const raceEnabled = true
