//go:build !race

package main

// raceEnabled: the race detector is on.
const raceEnabled = false
