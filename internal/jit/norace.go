//go:build !race

package jit

// raceBuild: this binary has no race detector.
const raceBuild = false
