package sdql

import (
	"strconv"
	"strings"
)

// LineWidth is the width the printer tries to keep lines within.
const LineWidth = 80

// Print formats e as SDQLite source that parses back to the same tree:
// print(parse(print(e))) == print(e). Expressions that fit in LineWidth
// columns are printed on one line; longer ones are broken after sum
// headers, let bindings and if conditions, with two-space indentation, in
// the layout of the paper's listings.
func Print(e Expr) string {
	pr := &printer{flatCache: map[Expr]string{}}
	return pr.layout(e, 0, 0)
}

// PrintFlat formats e on a single line.
func PrintFlat(e Expr) string {
	pr := &printer{flatCache: map[Expr]string{}}
	return pr.flat(e, 0)
}

// Precedence levels of the printer (higher binds tighter).
const (
	precBinder  = 0 // sum, let, if
	precOr      = 1
	precAnd     = 2
	precNot     = 3
	precCompare = 4
	precAdd     = 5
	precMul     = 6
	precPrefix  = 7 // unary -, onehot
	precPostfix = 8 // e(k), e(lo:hi)
	precPrimary = 9
)

func binaryPrec(k Kind) int {
	switch k {
	case LOR:
		return precOr
	case LAND:
		return precAnd
	case EQ, NEQ, LT, LEQ, GT, GEQ:
		return precCompare
	case ADD, SUB:
		return precAdd
	}
	return precMul
}

// exprPrec returns the precedence level of e's top-level construct.
func exprPrec(e Expr) int {
	switch e := e.(type) {
	case *SumExpr, *LetExpr, *IfExpr:
		return precBinder
	case *BinaryExpr:
		return binaryPrec(e.Op)
	case *UnaryExpr:
		if e.Op == NOT {
			return precNot
		}
		return precPrefix
	case *OneHotExpr:
		return precPrefix
	case *LookupExpr, *SliceExpr:
		return precPostfix
	case *IntLit:
		if e.Value < 0 {
			return precPrefix
		}
	case *RealLit:
		if e.Value < 0 || e.Value == 0 && strings.HasPrefix(FormatReal(e.Value), "-") {
			return precPrefix
		}
	}
	return precPrimary
}

type printer struct {
	flatCache map[Expr]string
}

// formatRealLit prints a real literal so that it scans as a real again.
func formatRealLit(f float64) string {
	s := FormatReal(f)
	switch s {
	case "nan":
		return "(0.0 / 0.0)"
	case "inf":
		return "(1.0 / 0.0)"
	case "-inf":
		return "(-1.0 / 0.0)"
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return s
}

func formatBinder(b Binder) string { return b.Name }

// flat prints e on one line, parenthesized when its precedence is below min.
func (pr *printer) flat(e Expr, min int) string {
	s, ok := pr.flatCache[e]
	if !ok {
		s = pr.flatBare(e)
		pr.flatCache[e] = s
	}
	if exprPrec(e) < min {
		return "(" + s + ")"
	}
	return s
}

func (pr *printer) flatBare(e Expr) string {
	var b strings.Builder
	switch e := e.(type) {
	case *Ident:
		return e.Name
	case *IntLit:
		return strconv.Itoa(e.Value)
	case *RealLit:
		return formatRealLit(e.Value)
	case *BoolLit:
		return strconv.FormatBool(e.Value)
	case *SumExpr:
		b.WriteString("sum(<")
		b.WriteString(formatBinder(e.Key))
		b.WriteString(", ")
		b.WriteString(formatBinder(e.Val))
		b.WriteString("> in ")
		b.WriteString(pr.flat(e.Src, 0))
		b.WriteString(") ")
		b.WriteString(pr.flat(e.Body, trapMin(e)))
	case *DictExpr:
		if len(e.Entries) == 0 {
			return "{}"
		}
		b.WriteString("{ ")
		for i, en := range e.Entries {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(pr.flat(en.Key, 0))
			b.WriteString(" -> ")
			b.WriteString(pr.flat(en.Val, 0))
		}
		b.WriteString(" }")
	case *LookupExpr:
		b.WriteString(pr.flat(e.X, precPostfix))
		b.WriteString("(")
		b.WriteString(pr.flat(e.Key, 0))
		b.WriteString(")")
	case *SliceExpr:
		b.WriteString(pr.flat(e.X, precPostfix))
		b.WriteString("(")
		b.WriteString(pr.flat(e.Lo, 0))
		b.WriteString(":")
		b.WriteString(pr.flat(e.Hi, 0))
		b.WriteString(")")
	case *RangeExpr:
		b.WriteString("(")
		b.WriteString(pr.flat(e.Lo, 0))
		b.WriteString(":")
		b.WriteString(pr.flat(e.Hi, 0))
		b.WriteString(")")
	case *LetExpr:
		b.WriteString(pr.letHead(e, func(x Expr, min int) string { return pr.flat(x, min) }))
		b.WriteString(" in ")
		b.WriteString(pr.flat(e.Body, 0))
	case *IfExpr:
		b.WriteString("if ")
		b.WriteString(pr.flat(e.Cond, 0))
		b.WriteString(" then ")
		if e.Else == nil {
			b.WriteString(pr.flat(e.Then, trapMin(e)))
		} else {
			// an if without else inside then would capture our else
			b.WriteString(pr.flat(e.Then, pr.thenMin(e.Then)))
			b.WriteString(" else ")
			b.WriteString(pr.flat(e.Else, trapMin(e)))
		}
	case *UnaryExpr:
		if e.Op == NOT {
			b.WriteString("not ")
			b.WriteString(pr.flat(e.X, precNot))
		} else {
			b.WriteString("-")
			b.WriteString(pr.flat(e.X, precPrefix))
		}
	case *BinaryExpr:
		p := binaryPrec(e.Op)
		lmin, rmin := p, p+1
		if p == precCompare {
			lmin = p + 1
		}
		b.WriteString(pr.flat(e.X, max(lmin, 1)))
		b.WriteString(" ")
		b.WriteString(e.Op.String())
		b.WriteString(" ")
		b.WriteString(pr.flat(e.Y, rmin))
	case *CallExpr:
		b.WriteString(e.Op)
		b.WriteString("(")
		b.WriteString(pr.flat(e.X, 0))
		if e.Y != nil {
			b.WriteString(", ")
			b.WriteString(pr.flat(e.Y, 0))
		}
		b.WriteString(")")
	case *UniqueExpr:
		b.WriteString("unique(")
		b.WriteString(pr.flat(e.X, 0))
		b.WriteString(")")
	case *ZeroExpr:
		b.WriteString("zero[")
		b.WriteString(e.T.String())
		b.WriteString("]")
	case *OneHotExpr:
		b.WriteString("onehot[")
		b.WriteString(e.T.String())
		b.WriteString("] ")
		b.WriteString(pr.flat(e.X, precPostfix))
	default:
		panic("internal error: print of unknown expression")
	}
	return b.String()
}

// trapMin is the precedence the body of a sum (or the last branch of an
// if) needs: parenthesized when it ends in a + or - that a reader could
// take to be outside (TrapOperator, Lint).
func trapMin(e Expr) int {
	if TrapOperator(e) != nil {
		return precPrimary + 1
	}
	return 0
}

// thenMin is the precedence the then-branch of an if-else needs: an if
// without else there must be parenthesized.
func (pr *printer) thenMin(x Expr) int {
	if endsInOpenIf(x) {
		return precBinder + 1
	}
	return 0
}

// endsInOpenIf reports whether the rightmost construct of x is an if
// without else, which would capture a following else.
func endsInOpenIf(x Expr) bool {
	for {
		switch e := x.(type) {
		case *IfExpr:
			if e.Else == nil {
				return true
			}
			x = e.Else
		case *SumExpr:
			x = e.Body
		case *LetExpr:
			x = e.Body
		default:
			return false
		}
	}
}

// letHead prints "let x = e" or "let <a, b> = <e1, e2>".
func (pr *printer) letHead(e *LetExpr, sub func(Expr, int) string) string {
	var b strings.Builder
	b.WriteString("let ")
	if len(e.Names) == 1 {
		b.WriteString(formatBinder(e.Names[0]))
		b.WriteString(" = ")
		b.WriteString(sub(e.Values[0], 0))
		return b.String()
	}
	b.WriteString("<")
	for i, n := range e.Names {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(formatBinder(n))
	}
	b.WriteString("> = <")
	for i, v := range e.Values {
		if i > 0 {
			b.WriteString(", ")
		}
		// inside <...> a '>' would close the tuple
		b.WriteString(sub(v, precAdd))
	}
	b.WriteString(">")
	return b.String()
}

func indent(n int) string { return strings.Repeat(" ", n) }

// layout prints e starting at column col of a line whose indentation is ind,
// breaking long binders over several lines.
func (pr *printer) layout(e Expr, ind, min int) string {
	flat := pr.flat(e, min)
	if len(flat)+ind <= LineWidth && !strings.Contains(flat, "\n") {
		return flat
	}
	if exprPrec(e) < min {
		return "(" + pr.layoutBare(e, ind+1) + ")"
	}
	return pr.layoutBare(e, ind)
}

func (pr *printer) layoutBare(e Expr, ind int) string {
	switch e := e.(type) {
	case *SumExpr:
		return "sum(<" + formatBinder(e.Key) + ", " + formatBinder(e.Val) + "> in " +
			pr.layout(e.Src, ind+2, 0) + ")\n" + indent(ind+2) + pr.layout(e.Body, ind+2, trapMin(e))
	case *LetExpr:
		head := pr.letHead(e, func(x Expr, min int) string { return pr.layout(x, ind+2, min) })
		body := pr.layout(e.Body, ind, 0)
		if _, chained := e.Body.(*LetExpr); chained {
			body = pr.layoutBare(e.Body, ind) // a broken let chain: one binding a line
		}
		return head + " in\n" + indent(ind) + body
	case *IfExpr:
		s := "if " + pr.layout(e.Cond, ind+2, 0) + " then\n" + indent(ind+2)
		if e.Else == nil {
			return s + pr.layout(e.Then, ind+2, trapMin(e))
		}
		return s + pr.layout(e.Then, ind+2, pr.thenMin(e.Then)) + "\n" + indent(ind) + "else\n" +
			indent(ind+2) + pr.layout(e.Else, ind+2, trapMin(e))
	case *DictExpr:
		var b strings.Builder
		b.WriteString("{ ")
		for i, en := range e.Entries {
			if i > 0 {
				b.WriteString(",\n" + indent(ind+2))
			}
			b.WriteString(pr.layout(en.Key, ind+2, 0))
			b.WriteString(" ->\n" + indent(ind+2))
			b.WriteString(pr.layout(en.Val, ind+2, 0))
		}
		b.WriteString(" }")
		return b.String()
	case *BinaryExpr:
		p := binaryPrec(e.Op)
		lmin, rmin := p, p+1
		if p == precCompare {
			lmin = p + 1
		}
		left := pr.layout(e.X, ind, max(lmin, 1)) + " " + e.Op.String()
		if len(pr.flat(e.Y, rmin))+len(left)+1 > LineWidth {
			// a long right operand starts its own line
			return left + "\n" + indent(ind+2) + pr.layout(e.Y, ind+2, rmin)
		}
		return left + " " + pr.layout(e.Y, ind+2, rmin)
	case *LookupExpr:
		return pr.layout(e.X, ind, precPostfix) + "(" + pr.layout(e.Key, ind+2, 0) + ")"
	case *CallExpr:
		if e.Y != nil {
			return e.Op + "(" + pr.layout(e.X, ind+2, 0) + ", " + pr.layout(e.Y, ind+2, 0) + ")"
		}
		return e.Op + "(" + pr.layout(e.X, ind+2, 0) + ")"
	case *UnaryExpr:
		if e.Op == NOT {
			return "not " + pr.layout(e.X, ind+2, precNot)
		}
		return "-" + pr.layout(e.X, ind+2, precPrefix)
	}
	return pr.flatBare(e)
}
