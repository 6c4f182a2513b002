package main

import (
	"fmt"
	"io"
	"os"

	"github.com/nablasd/nablasd"
)

// Printing a result on standard output
//
// --print all streams the literal from the result in place
// (nablasd.Result.WriteTo): a buffer beside the result, never the whole
// text; --print summary prints the first and last summaryEdge keys of each
// dictionary, with the shape and the number of entries, as NumPy prints a
// large array (nablasd.Result.WriteSummary). --print auto, the default,
// summarises a result of more than summaryThreshold entries on a terminal,
// and prints everything anywhere else (a pipe, a file).

// summaryThreshold is the most entries --print auto prints whole on a
// terminal (NumPy's threshold); summaryEdge the keys it keeps at each end
// of a dictionary (NumPy's edgeitems).
const (
	summaryThreshold = 1000
	summaryEdge      = 3
)

// printModes are the values of --print.
var printModes = []string{"auto", "all", "summary"}

// printResult prints a result on w after label (as "grad x: "; "" for
// none), whole or as a summary as --print says.
func (a *evalArgs) printResult(w io.Writer, res *nablasd.Result, label string, stderr io.Writer) error {
	if label != "" {
		if _, err := io.WriteString(w, label+": "); err != nil {
			return err
		}
	}
	summary := a.print == "summary"
	if a.print == "auto" && isTerminal(w) {
		summary = res.Count(summaryThreshold) > summaryThreshold
	}
	if summary {
		if err := res.WriteSummary(w, summaryEdge); err != nil {
			return err
		}
		if a.print == "auto" {
			fmt.Fprintf(stderr, "nablasd: a summary of a large result on a terminal: --print all prints every entry\n")
		}
		return nil
	}
	if _, err := res.WriteTo(w); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminalFile(f)
}
