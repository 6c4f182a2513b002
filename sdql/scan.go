package sdql

import "fmt"

// scanner turns a source text into tokens. It never fails: problems become
// ILLEGAL tokens whose Text is the message.
type scanner struct {
	src       string
	off       int
	line, col int
}

func newScanner(src string) *scanner { return &scanner{src: src, line: 1, col: 1} }

func (s *scanner) advance(n int) {
	for i := 0; i < n && s.off < len(s.src); i++ {
		if s.src[s.off] == '\n' {
			s.line++
			s.col = 1
		} else {
			s.col++
		}
		s.off++
	}
}

func isLetter(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }

// peekKind returns the kind of the token next would return, without
// consuming it.
func (s *scanner) peekKind() Kind {
	c := *s
	return c.next().Kind
}

// next returns the next token.
func (s *scanner) next() Token {
	nl := false
	for s.off < len(s.src) {
		c := s.src[s.off]
		switch {
		case c == '\n':
			nl = true
			s.advance(1)
		case c == ' ' || c == '\t' || c == '\r':
			s.advance(1)
		case c == '/' && s.off+1 < len(s.src) && s.src[s.off+1] == '/':
			for s.off < len(s.src) && s.src[s.off] != '\n' {
				s.advance(1)
			}
		default:
			goto token
		}
	}
token:
	tok := Token{Pos: Pos{s.line, s.col}, NewlineBefore: nl}
	if s.off >= len(s.src) {
		tok.Kind = EOF
		return tok
	}
	start := s.off
	c := s.src[s.off]
	switch {
	case isLetter(c):
		end := s.off
		for end < len(s.src) && (isLetter(s.src[end]) || isDigit(s.src[end])) {
			end++
		}
		for end < len(s.src) && s.src[end] == '\'' {
			end++
		}
		tok.Text = s.src[start:end]
		s.advance(end - start)
		if k, ok := keywords[tok.Text]; ok {
			tok.Kind = k
		} else {
			tok.Kind = IDENT
		}
		return tok
	case isDigit(c) || c == '.' && s.off+1 < len(s.src) && isDigit(s.src[s.off+1]):
		return s.number(tok)
	}
	two := ""
	if s.off+1 < len(s.src) {
		two = s.src[s.off : s.off+2]
	}
	switch two {
	case "->":
		tok.Kind = ARROW
	case "==":
		tok.Kind = EQ
	case "!=":
		tok.Kind = NEQ
	case "<=":
		tok.Kind = LEQ
	case ">=":
		tok.Kind = GEQ
	case "&&":
		tok.Kind = LAND
	case "||":
		tok.Kind = LOR
	}
	if tok.Kind != EOF {
		tok.Text = two
		s.advance(2)
		return tok
	}
	one := map[byte]Kind{'(': LPAREN, ')': RPAREN, '{': LBRACE, '}': RBRACE, '[': LBRACK, ']': RBRACK,
		',': COMMA, ':': COLON, '=': ASSIGN, '<': LT, '>': GT, '+': ADD, '-': SUB, '*': MUL, '/': QUO}
	if k, ok := one[c]; ok {
		tok.Kind = k
		tok.Text = s.src[start : start+1]
		s.advance(1)
		return tok
	}
	tok.Kind = ILLEGAL
	if c >= 0x20 && c < 0x7f {
		tok.Text = fmt.Sprintf("unexpected character %q", c)
	} else {
		tok.Text = fmt.Sprintf("unexpected byte 0x%02x", c)
	}
	s.advance(1)
	return tok
}

// number scans an integer or real literal: 12, 1.5, .5, 1e-3, 2.5E+10.
func (s *scanner) number(tok Token) Token {
	start, end := s.off, s.off
	real := false
	for end < len(s.src) && isDigit(s.src[end]) {
		end++
	}
	if end < len(s.src) && s.src[end] == '.' && !(end+1 < len(s.src) && s.src[end+1] == '.') {
		real = true
		end++
		for end < len(s.src) && isDigit(s.src[end]) {
			end++
		}
	}
	if end < len(s.src) && (s.src[end] == 'e' || s.src[end] == 'E') {
		e := end + 1
		if e < len(s.src) && (s.src[e] == '+' || s.src[e] == '-') {
			e++
		}
		if e < len(s.src) && isDigit(s.src[e]) {
			real = true
			for e < len(s.src) && isDigit(s.src[e]) {
				e++
			}
			end = e
		}
	}
	tok.Text = s.src[start:end]
	tok.Kind = INT
	if real {
		tok.Kind = REAL
	}
	s.advance(end - start)
	return tok
}
