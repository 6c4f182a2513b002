package sdql

import "fmt"

// Pos is a position in a source text: a 1-based line and column (columns
// count bytes). The zero Pos means "no position" (e.g. a generated node).
type Pos struct {
	Line, Col int
}

// IsValid reports whether p is a real position.
func (p Pos) IsValid() bool { return p.Line > 0 }

// String prints p as line:col, or "-" when p is not valid.
func (p Pos) String() string {
	if !p.IsValid() {
		return "-"
	}
	return fmt.Sprintf("%d:%d", p.Line, p.Col)
}
