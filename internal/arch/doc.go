// Package arch holds the architecture tests: the import rules of
// DESIGN.md's package table, read from `go list`, and the rule that only
// package formats compares storage formats by kind.
package arch
