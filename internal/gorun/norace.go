//go:build !race

package gorun

const raceEnabled = false
