//go:build race

package jit

// raceBuild: this binary has the race detector, so its plugins must too.
const raceBuild = true
