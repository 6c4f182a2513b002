package gogen

import (
	"go/token"
	"strconv"
	"strings"
	"unicode"
)

// namer hands out Go identifiers, each unique in the generated file's
// function (or file, for top-level names): a program's names where they
// are identifiers, otherwise sanitized (x' becomes x_prime), and never a
// Go keyword, a predeclared identifier or a name the generated code uses.
type namer struct{ used map[string]bool }

// reserved are the names the generated code must not shadow or reuse.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, s := range strings.Fields(`
		any append bool byte cap clear close complex complex64 complex128 copy delete error
		false float32 float64 imag int int8 int16 int32 int64 iota len make max min new nil
		panic print println real recover rune string true uint uint8 uint16 uint32 uint64
		uintptr fmt math runtime slices strconv strings dst ws err`) {
		m[s] = true
	}
	return m
}()

func newNamer() *namer { return &namer{used: map[string]bool{}} }

// sanitize turns any name into an identifier: ' becomes _prime, other
// characters that cannot be in an identifier become _.
func sanitize(name string) string {
	var b strings.Builder
	for i, r := range name {
		switch {
		case r == '\'':
			b.WriteString("_prime")
		case r == '_' || unicode.IsLetter(r) && r < unicode.MaxASCII || unicode.IsDigit(r) && r < unicode.MaxASCII && i > 0:
			b.WriteRune(r)
		case unicode.IsDigit(r) && r < unicode.MaxASCII:
			b.WriteString("v")
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	s := b.String()
	if s == "" || s == "_" {
		s = "v"
	}
	return s
}

// name returns a fresh identifier based on base.
func (n *namer) name(base string) string {
	s := sanitize(base)
	if token.IsKeyword(s) || reserved[s] {
		s += "_"
	}
	if !n.used[s] {
		n.used[s] = true
		return s
	}
	stem := strings.TrimRight(s, "0123456789")
	if stem == "" {
		stem = s
	}
	for i := 1; ; i++ {
		c := stem + strconv.Itoa(i)
		if !n.used[c] && !reserved[c] {
			n.used[c] = true
			return c
		}
	}
}

// reserve marks an identifier as taken.
func (n *namer) reserve(s string) { n.used[s] = true }

// taken reports whether s is reserved or was given out.
func (n *namer) taken(s string) bool { return n.used[s] }
