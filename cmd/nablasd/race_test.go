//go:build race

package main

// raceEnabled: the race detector is on (it reserves far more address
// space than a 4 GiB limit allows).
const raceEnabled = true
