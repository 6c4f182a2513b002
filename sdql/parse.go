package sdql

import (
	"fmt"
	"strconv"
)

// MaxDepth bounds the nesting of expressions the parser accepts, so that
// deeply nested input gives an error rather than exhausting the stack of
// later passes.
const MaxDepth = 5000

// Parse parses a program of SDQLite (logical and physical) as specified in
// doc/spec.md. The filename is used in error messages (file:line:col);
// pass "" for inline text (line:col). Syntax errors are returned as an
// ErrorList.
func Parse(filename, src string) (e Expr, err error) {
	p := &parser{file: filename, sc: newScanner(src)}
	return p.parse()
}

func (p *parser) parse() (e Expr, err error) {
	defer p.recover(&err)
	p.next()
	e = p.parseExpr()
	if p.tok.Kind != EOF {
		p.errorf(p.tok.Pos, "expected an operator or the end of the program, found %s", p.describe())
	}
	return e, nil
}

// ParseType parses a type: real, int, bool, dense_int, tensor n, {K -> V}.
func ParseType(filename, src string) (t Type, err error) {
	p := &parser{file: filename, sc: newScanner(src)}
	defer p.recover(&err)
	p.next()
	t = p.parseType()
	if p.tok.Kind != EOF {
		p.errorf(p.tok.Pos, "expected the end of the type, found %s", p.describe())
	}
	return t, nil
}

// MustParse is Parse for programs known to be valid (tests, built-in
// definitions); it panics on error.
func MustParse(src string) Expr {
	e, err := Parse("", src)
	if err != nil {
		panic(fmt.Sprintf("sdql.MustParse(%q): %v", src, err))
	}
	return e
}

type bailout struct{}

type parser struct {
	file  string
	sc    *scanner
	tok   Token
	depth int
	noGT  bool // inside a tuple element: '>' closes the tuple
	errs  ErrorList
	// parens, when not nil, records the expressions the source wrote in
	// parentheses (for Lint)
	parens map[Expr]bool
}

func (p *parser) recover(err *error) {
	if r := recover(); r != nil {
		if _, ok := r.(bailout); !ok {
			panic(r)
		}
		*err = p.errs.Err()
	}
}

func (p *parser) next() {
	p.tok = p.sc.next()
	if p.tok.Kind == ILLEGAL {
		p.errorf(p.tok.Pos, "%s", p.tok.Text)
	}
}

func (p *parser) errorf(pos Pos, format string, args ...any) {
	p.errs.Add(p.file, pos, format, args...)
	panic(bailout{})
}

func (p *parser) describe() string {
	switch p.tok.Kind {
	case EOF:
		return "end of input"
	case IDENT:
		return fmt.Sprintf("identifier %s", p.tok.Text)
	case INT, REAL:
		return fmt.Sprintf("number %s", p.tok.Text)
	}
	return fmt.Sprintf("'%s'", p.tok.Kind)
}

func (p *parser) expect(k Kind, context string) Pos {
	pos := p.tok.Pos
	if p.tok.Kind != k {
		p.errorf(pos, "expected '%s' %s, found %s", k, context, p.describe())
	}
	p.next()
	return pos
}

func (p *parser) enter() {
	p.depth++
	if p.depth > MaxDepth {
		p.errorf(p.tok.Pos, "expression nested too deeply (more than %d levels)", MaxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

// parseExpr parses a whole expression (the lowest precedence level).
func (p *parser) parseExpr() Expr {
	p.enter()
	defer p.leave()
	return p.parseBinary(1)
}

func (p *parser) isComparison(k Kind) bool {
	switch k {
	case EQ, NEQ, LT, LEQ, GEQ:
		return true
	case GT:
		return !p.noGT
	}
	return false
}

// parseBinary parses the binary operator levels: 1 ||, 2 &&, 3 not (prefix),
// 4 comparisons (not chained), 5 + -, 6 * / (left-associative).
func (p *parser) parseBinary(level int) Expr {
	switch level {
	case 3:
		if p.tok.Kind == NOT {
			pos := p.tok.Pos
			p.next()
			p.enter()
			defer p.leave()
			return &UnaryExpr{OpPos: pos, Op: NOT, X: p.parseBinary(3)}
		}
		return p.parseBinary(4)
	case 4:
		x := p.parseBinary(5)
		if p.isComparison(p.tok.Kind) {
			op, pos := p.tok.Kind, p.tok.Pos
			p.next()
			x = &BinaryExpr{X: x, OpPos: pos, Op: op, Y: p.parseBinary(5)}
			if p.isComparison(p.tok.Kind) {
				p.errorf(p.tok.Pos, "comparison operators do not chain; use parentheses")
			}
		}
		return x
	case 7:
		return p.parseUnary()
	}
	var ops []Kind
	switch level {
	case 1:
		ops = []Kind{LOR}
	case 2:
		ops = []Kind{LAND}
	case 5:
		ops = []Kind{ADD, SUB}
	case 6:
		ops = []Kind{MUL, QUO}
	}
	x := p.parseBinary(level + 1)
	for n := 0; p.tok.Kind == ops[0] || len(ops) > 1 && p.tok.Kind == ops[1]; n++ {
		op, pos := p.tok.Kind, p.tok.Pos
		if n+p.depth > MaxDepth {
			// a chain is a tree as deep as it is long
			p.errorf(pos, "expression nested too deeply (a chain of more than %d operators)", MaxDepth)
		}
		p.next()
		x = &BinaryExpr{X: x, OpPos: pos, Op: op, Y: p.parseBinary(level + 1)}
	}
	return x
}

func (p *parser) parseUnary() Expr {
	if p.tok.Kind == SUB {
		pos := p.tok.Pos
		p.next()
		p.enter()
		defer p.leave()
		return &UnaryExpr{OpPos: pos, Op: SUB, X: p.parseUnary()}
	}
	return p.parsePostfix()
}

// parsePostfix parses a primary expression followed by lookups e(k) and
// sub-arrays e(lo:hi).
func (p *parser) parsePostfix() Expr {
	start := p.tok.Kind
	x := p.parsePrimary()
	if start == SUM || start == LET || start == IF {
		return x // their bodies already took everything
	}
	for p.tok.Kind == LPAREN && !p.tok.NewlineBefore {
		p.next()
		saved := p.noGT
		p.noGT = false
		k := p.parseExpr()
		if p.tok.Kind == COLON {
			p.next()
			hi := p.parseExpr()
			p.expect(RPAREN, "to close the sub-array")
			x = &SliceExpr{X: x, Lo: k, Hi: hi}
		} else {
			p.expect(RPAREN, "to close the lookup")
			x = &LookupExpr{X: x, Key: k}
		}
		p.noGT = saved
	}
	return x
}

func (p *parser) parsePrimary() Expr {
	p.enter()
	defer p.leave()
	tok := p.tok
	switch tok.Kind {
	case IDENT:
		p.next()
		if op, ok := Ops[tok.Text]; ok && p.tok.Kind == LPAREN {
			return p.parseCall(tok, op)
		}
		if p.tok.Kind == LPAREN && !p.tok.NewlineBefore {
			p.checkKeywordTypo(tok)
		}
		return &Ident{NamePos: tok.Pos, Name: tok.Text}
	case INT:
		p.next()
		v, err := strconv.Atoi(tok.Text)
		if err != nil {
			p.errorf(tok.Pos, "integer literal %s out of range", tok.Text)
		}
		return &IntLit{ValuePos: tok.Pos, Value: v}
	case REAL:
		p.next()
		v, err := strconv.ParseFloat(tok.Text, 64)
		if err != nil {
			p.errorf(tok.Pos, "real literal %s out of range", tok.Text)
		}
		return &RealLit{ValuePos: tok.Pos, Value: v}
	case TRUE, FALSE:
		p.next()
		return &BoolLit{ValuePos: tok.Pos, Value: tok.Kind == TRUE}
	case LPAREN:
		p.next()
		saved := p.noGT
		p.noGT = false
		x := p.parseExpr()
		if p.tok.Kind == COLON {
			p.next()
			hi := p.parseExpr()
			p.expect(RPAREN, "to close the range")
			p.noGT = saved
			return &RangeExpr{Lparen: tok.Pos, Lo: x, Hi: hi}
		}
		p.expect(RPAREN, "to close the parenthesis")
		p.noGT = saved
		if p.parens != nil {
			p.parens[x] = true
		}
		return x
	case LBRACE:
		return p.parseDict()
	case SUM:
		return p.parseSum()
	case LET:
		return p.parseLet()
	case IF:
		return p.parseIf()
	case UNIQUE:
		p.next()
		p.expect(LPAREN, "after unique")
		saved := p.noGT
		p.noGT = false
		x := p.parseExpr()
		p.noGT = saved
		p.expect(RPAREN, "to close unique")
		return &UniqueExpr{Unique: tok.Pos, X: x}
	case ZERO:
		p.next()
		t := p.parseTypeArg("zero")
		return &ZeroExpr{Zero: tok.Pos, T: t}
	case ONEHOT:
		p.next()
		t := p.parseTypeArg("onehot")
		x := p.parsePostfix()
		return &OneHotExpr{OneHot: tok.Pos, T: t, X: x}
	case NOT:
		p.next()
		return &UnaryExpr{OpPos: tok.Pos, Op: NOT, X: p.parseUnary()}
	case LT:
		p.errorf(tok.Pos, "a tuple <...> may only appear in a tupled let")
	}
	if IsKeyword(tok.Text) && tok.Kind != EOF {
		p.errorf(tok.Pos, "expected an expression, found keyword %s", tok.Text)
	}
	p.errorf(tok.Pos, "expected an expression, found %s", p.describe())
	panic("unreachable")
}

// parseCall parses op(x) or op(x, y) after the operation's name.
func (p *parser) parseCall(name Token, op *Op) Expr {
	p.next()
	saved := p.noGT
	p.noGT = false
	defer func() { p.noGT = saved }()
	call := &CallExpr{NamePos: name.Pos, Op: op.Name, X: p.parseExpr()}
	if op.Arity == 2 {
		if p.tok.Kind != COMMA {
			p.errorf(p.tok.Pos, "expected ',' and a second argument: %s takes two, %s(x, y); found %s", op.Name, op.Name, p.describe())
		}
		p.next()
		call.Y = p.parseExpr()
	} else if p.tok.Kind == COMMA {
		p.errorf(p.tok.Pos, "%s takes one argument, %s(x); found ','", op.Name, op.Name)
	}
	p.expect(RPAREN, "to close the call of "+op.Name)
	return call
}

// checkKeywordTypo reports a misspelt sum or let before an opening
// parenthesis, as in summ(<i, v> in e): it would otherwise be a lookup
// whose key is a tuple.
func (p *parser) checkKeywordTypo(name Token) {
	if p.sc.peekKind() != LT {
		return
	}
	if kw := Suggest(name.Text, []string{"sum", "let"}); kw != "" {
		p.errorf(name.Pos, "unknown function or keyword %s (did you mean %s?)", name.Text, kw)
	}
	p.errorf(name.Pos, "%s", UnknownFunction(name.Text))
}

func (p *parser) parseDict() Expr {
	pos := p.expect(LBRACE, "")
	saved := p.noGT
	p.noGT = false
	d := &DictExpr{Lbrace: pos}
	for p.tok.Kind != RBRACE {
		k := p.parseExpr()
		p.expect(ARROW, "between a key and its value")
		v := p.parseExpr()
		d.Entries = append(d.Entries, Entry{Key: k, Val: v})
		if p.tok.Kind != COMMA {
			break
		}
		p.next()
	}
	p.expect(RBRACE, "to close the dictionary")
	p.noGT = saved
	return d
}

func (p *parser) parseBinder(context string) Binder {
	tok := p.tok
	if tok.Kind != IDENT {
		p.errorf(tok.Pos, "expected a variable name %s, found %s", context, p.describe())
	}
	if _, ok := Ops[tok.Text]; ok {
		p.errorf(tok.Pos, "%s is a built-in operation and cannot be bound", tok.Text)
	}
	p.next()
	return Binder{NamePos: tok.Pos, Name: tok.Text}
}

func (p *parser) parseSum() Expr {
	pos := p.expect(SUM, "")
	p.expect(LPAREN, "after sum")
	p.expect(LT, "to open the <key, value> pair")
	k := p.parseBinder("for the key")
	p.expect(COMMA, "between key and value")
	v := p.parseBinder("for the value")
	p.expect(GT, "to close the <key, value> pair")
	p.expect(IN, "in sum(<k, v> in e)")
	saved := p.noGT
	p.noGT = false
	src := p.parseExpr()
	p.expect(RPAREN, "to close sum(...)")
	body := p.parseExpr()
	p.noGT = saved
	return &SumExpr{Sum: pos, Key: k, Val: v, Src: src, Body: body}
}

func (p *parser) parseLet() Expr {
	pos := p.expect(LET, "")
	let := &LetExpr{Let: pos}
	if p.tok.Kind == LT {
		p.next()
		for {
			let.Names = append(let.Names, p.parseBinder("in the tuple"))
			if p.tok.Kind != COMMA {
				break
			}
			p.next()
		}
		p.expect(GT, "to close the tuple of names")
		p.expect(ASSIGN, "in let")
		tpos := p.expect(LT, "to open the tuple of values")
		saved := p.noGT
		p.noGT = true
		for {
			let.Values = append(let.Values, p.parseExpr())
			if p.tok.Kind != COMMA {
				break
			}
			p.next()
		}
		p.noGT = saved
		p.expect(GT, "to close the tuple of values")
		if len(let.Names) != len(let.Values) {
			p.errorf(tpos, "tupled let binds %d names to %d values", len(let.Names), len(let.Values))
		}
	} else {
		let.Names = []Binder{p.parseBinder("after let")}
		p.expect(ASSIGN, "in let")
		saved := p.noGT
		p.noGT = false
		let.Values = []Expr{p.parseExpr()}
		p.noGT = saved
	}
	switch {
	case p.tok.Kind == IN:
		p.next()
	case p.tok.NewlineBefore && p.tok.Kind != EOF:
		// the paper's line form: let x = e, a newline, then the body
	default:
		p.errorf(p.tok.Pos, "expected 'in' or a new line after the let binding, found %s", p.describe())
	}
	let.Body = p.parseExpr()
	return let
}

func (p *parser) parseIf() Expr {
	pos := p.expect(IF, "")
	saved := p.noGT
	p.noGT = false
	cond := p.parseExpr()
	p.expect(THEN, "after the condition of if")
	p.noGT = saved
	then := p.parseExpr()
	var els Expr
	if p.tok.Kind == ELSE {
		p.next()
		els = p.parseExpr()
	}
	return &IfExpr{If: pos, Cond: cond, Then: then, Else: els}
}

func (p *parser) parseTypeArg(what string) Type {
	p.expect(LBRACK, "after "+what)
	t := p.parseType()
	p.expect(RBRACK, "to close "+what+"[...]")
	return t
}

// parseType parses real, int, bool, dense_int, tensor n, {K -> V}, and the
// paper's misprinted [K -> V] (Section 4.3) as a synonym of {K -> V}.
func (p *parser) parseType() Type {
	p.enter()
	defer p.leave()
	tok := p.tok
	switch tok.Kind {
	case REALTY:
		p.next()
		return RealType
	case INTTY:
		p.next()
		return IntType
	case BOOLTY:
		p.next()
		return BoolType
	case DENSEINT:
		p.next()
		return DenseIntType
	case TENSOR:
		p.next()
		if p.tok.Kind != INT {
			p.errorf(p.tok.Pos, "expected the order of the tensor, found %s", p.describe())
		}
		n, err := strconv.Atoi(p.tok.Text)
		if err != nil || n > 64 {
			p.errorf(p.tok.Pos, "tensor order %s out of range 0..64", p.tok.Text)
		}
		p.next()
		return Tensor(n)
	case LBRACE, LBRACK:
		closeKind := RBRACE
		if tok.Kind == LBRACK {
			closeKind = RBRACK
		}
		p.next()
		k := p.parseType()
		if k != IntType && k != DenseIntType {
			p.errorf(tok.Pos, "dictionary keys must be int or dense_int, not %s", k)
		}
		p.expect(ARROW, "in the dictionary type")
		v := p.parseType()
		p.expect(closeKind, "to close the dictionary type")
		return &DictType{Key: k, Val: v}
	}
	p.errorf(tok.Pos, "expected a type, found %s", p.describe())
	panic("unreachable")
}
