//go:build race

package main

// raceEnabled: the race detector is on (it reserves far more address
// space than a 4 GiB limit allows, and its shadow memory adds to a
// process's resident memory: the resident-memory bounds do not hold).
const raceEnabled = true
