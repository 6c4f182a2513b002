// Package batch is what nablasd's batch jobs share between the
// single-machine command (cmd/nablasd) and the distributed one on Apache
// Beam (beam/cmd/nablasd-beam), so that both run one implementation and
// give the same results: binding inputs from --in NAME=VALUE flags
// (numbers, tensor files, tables), preparing a program over them with the
// command line's messages, opening a grouped job's inputs, the per-group
// step (compiled once, run for every group), a grouped fit's step and rows
// (FitStep, FitRows: one model per group), and results as tables.
//
// The table reading, grouping and writing themselves are in
// github.com/nablasd/nablasd/datasets; the pipeline in the root package.
package batch

import "fmt"

// UsageError is bad usage of a command line (a flag's value that cannot
// be right whatever the files hold): the commands exit with status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return &UsageError{fmt.Sprintf(format, args...)}
}
