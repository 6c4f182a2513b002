package sdql

import (
	"fmt"
	"sort"
	"strings"
)

// Error is a problem found in a source text, at a position.
type Error struct {
	File string // the source's name; empty for inline text
	Pos  Pos
	Msg  string
}

// Error prints the error as file:line:col: msg (line:col: msg for inline text).
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		b.WriteByte(':')
	}
	if e.Pos.IsValid() {
		b.WriteString(e.Pos.String())
		b.WriteString(": ")
	} else if e.File != "" {
		b.WriteByte(' ')
	}
	b.WriteString(e.Msg)
	return b.String()
}

// MaxErrors caps the number of errors an ErrorList reports.
const MaxErrors = 10

// ErrorList is a list of errors, sorted by position when reported.
type ErrorList []*Error

// Add appends an error at pos.
func (l *ErrorList) Add(file string, pos Pos, format string, args ...any) {
	*l = append(*l, &Error{File: file, Pos: pos, Msg: fmt.Sprintf(format, args...)})
}

// Sort sorts the list by position.
func (l ErrorList) Sort() {
	sort.SliceStable(l, func(i, j int) bool {
		a, b := l[i].Pos, l[j].Pos
		if a.Line != b.Line {
			return a.Line < b.Line
		}
		return a.Col < b.Col
	})
}

// Error prints the first MaxErrors errors, one a line, and how many more
// there were.
func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i == MaxErrors {
			fmt.Fprintf(&b, "\n(and %d more errors)", len(l)-MaxErrors)
			break
		}
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Err returns the list as an error, or nil when it is empty. Duplicate
// messages at the same position are dropped.
func (l ErrorList) Err() error {
	if len(l) == 0 {
		return nil
	}
	l.Sort()
	out := l[:0:0]
	for i, e := range l {
		if i > 0 && e.Pos == l[i-1].Pos && e.Msg == l[i-1].Msg {
			continue
		}
		out = append(out, e)
	}
	return out
}
