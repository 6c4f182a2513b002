package sdql

import (
	"slices"
	"strconv"
	"strings"
)

// LineWidth is the width the printer tries to keep lines within.
const LineWidth = 80

// Print formats e as SDQLite source that parses back to the same tree:
// print(parse(print(e))) == print(e). Expressions that fit in LineWidth
// columns are printed on one line; longer ones are broken after sum
// headers, let bindings and if conditions, with two-space indentation, in
// the layout of the paper's listings. It takes time linear in the size of
// what it prints.
func Print(e Expr) string {
	pr := newPrinter()
	pr.layout(e, 0, 0)
	return pr.b.String()
}

// PrintLines is Print stopped after max lines (max > 0): the lines
// printed, and whether the program has more. It takes time linear in the
// program's size at most, and in what it prints when e is a tree
// (not a graph that shares subterms).
func PrintLines(e Expr, max int) (lines []string, more bool) {
	pr := newPrinter()
	pr.maxLines = max
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopPrinting); !ok {
					panic(r)
				}
				more = true
			}
		}()
		pr.layout(e, 0, 0)
	}()
	s := pr.b.String()
	if more {
		// the line limit stops printing just after a newline
		s = s[:strings.LastIndexByte(s, '\n')]
	}
	return strings.Split(s, "\n"), more
}

// PrintFlat formats e on a single line.
func PrintFlat(e Expr) string {
	pr := newPrinter()
	pr.flat(e, 0)
	return pr.b.String()
}

// printWork is the printer's work on e (nodes measured and printed), for
// the test of its growth; it stops counting past limit steps.
func printWork(e Expr, limit int) int {
	pr := newPrinter()
	pr.maxWork = limit
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(stopPrinting); !ok {
					panic(r)
				}
			}
		}()
		pr.layout(e, 0, 0)
	}()
	return pr.work
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

// printer prints into one buffer. Whether a subexpression fits on a line
// is decided from its flat width, computed once per node and capped just
// past LineWidth (widths), so printing is linear in the program's size
// (Wadler's and Oppen's pretty-printers decide the same way): no
// subexpression is printed twice, even to measure it. work counts the
// nodes measured and printed, for the test that checks the growth.
type printer struct {
	b      strings.Builder
	widths map[Expr]int
	// lines counts the newlines written; past maxLines (when positive)
	// printing stops (PrintLines)
	lines, maxLines int
	// work counts steps; past maxWork (when positive) printing stops
	work, maxWork int
	// spines, free and openIf remember what the parenthesization of a
	// binder's body needs (trapMin, thenMin)
	spines map[Expr]spine
	free   map[Expr]map[string]bool
	openIf map[Expr]bool
}

func newPrinter() *printer { return &printer{widths: map[Expr]int{}} }

// stopPrinting is panicked when the line limit (or the work limit) is
// reached, and recovered by PrintLines (printWork).
type stopPrinting struct{}

func (pr *printer) str(s string) { pr.b.WriteString(s) }

// step counts one step of work.
func (pr *printer) step() {
	pr.work++
	if pr.maxWork > 0 && pr.work > pr.maxWork {
		panic(stopPrinting{})
	}
}

// newline starts a line indented by ind columns.
func (pr *printer) newline(ind int) {
	pr.b.WriteByte('\n')
	pr.lines++
	if pr.maxLines > 0 && pr.lines >= pr.maxLines {
		panic(stopPrinting{})
	}
	for range ind {
		pr.b.WriteByte(' ')
	}
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

// wideWidth is the width of everything wider than a line: widths are
// capped there, since only whether a width exceeds LineWidth matters.
const wideWidth = LineWidth + 1

// capAdd adds widths, capped at wideWidth.
func capAdd(ws ...int) int {
	n := 0
	for _, w := range ws {
		n += w
		if n >= wideWidth {
			return wideWidth
		}
	}
	return n
}

// width is the length of e printed on one line with parentheses when its
// precedence is below min, capped at wideWidth.
func (pr *printer) width(e Expr, min int) int {
	w := pr.bareWidth(e)
	if exprPrec(e) < min {
		return capAdd(w, 2)
	}
	return w
}

// bareWidth is the length of e printed flat without enclosing
// parentheses, capped at wideWidth; each node's is computed once.
func (pr *printer) bareWidth(e Expr) int {
	if w, ok := pr.widths[e]; ok {
		return w
	}
	pr.step()
	var w int
	switch e := e.(type) {
	case *Ident:
		w = len(e.Name)
	case *IntLit:
		w = len(strconv.Itoa(e.Value))
	case *RealLit:
		w = len(formatRealLit(e.Value))
	case *BoolLit:
		w = len(strconv.FormatBool(e.Value))
	case *SumExpr:
		w = capAdd(len("sum(<, > in ) "), len(e.Key.Name), len(e.Val.Name), pr.width(e.Src, 0), pr.width(e.Body, pr.trapMin(e)))
	case *DictExpr:
		if len(e.Entries) == 0 {
			w = 2
			break
		}
		w = len("{  }") + len(", ")*(len(e.Entries)-1)
		for _, en := range e.Entries {
			w = capAdd(w, pr.width(en.Key, 0), len(" -> "), pr.width(en.Val, 0))
		}
	case *LookupExpr:
		w = capAdd(pr.width(e.X, precPostfix), 2, pr.width(e.Key, 0))
	case *SliceExpr:
		w = capAdd(pr.width(e.X, precPostfix), 3, pr.width(e.Lo, 0), pr.width(e.Hi, 0))
	case *RangeExpr:
		w = capAdd(3, pr.width(e.Lo, 0), pr.width(e.Hi, 0))
	case *LetExpr:
		w = capAdd(pr.letHeadWidth(e), len(" in "), pr.width(e.Body, 0))
	case *IfExpr:
		w = capAdd(len("if  then "), pr.width(e.Cond, 0))
		if e.Else == nil {
			w = capAdd(w, pr.width(e.Then, pr.trapMin(e)))
		} else {
			w = capAdd(w, pr.width(e.Then, pr.thenMin(e.Then)), len(" else "), pr.width(e.Else, pr.trapMin(e)))
		}
	case *UnaryExpr:
		if e.Op == NOT {
			w = capAdd(len("not "), pr.width(e.X, precNot))
		} else {
			w = capAdd(1, pr.width(e.X, precPrefix))
		}
	case *BinaryExpr:
		lmin, rmin := operandPrecs(e.Op)
		w = capAdd(pr.width(e.X, lmin), 2+len(e.Op.String()), pr.width(e.Y, rmin))
	case *CallExpr:
		w = capAdd(len(e.Op), 2, pr.width(e.X, 0))
		if e.Y != nil {
			w = capAdd(w, 2, pr.width(e.Y, 0))
		}
	case *UniqueExpr:
		w = capAdd(len("unique()"), pr.width(e.X, 0))
	case *ZeroExpr:
		w = capAdd(len("zero[]"), len(e.T.String()))
	case *OneHotExpr:
		w = capAdd(len("onehot[] "), len(e.T.String()), pr.width(e.X, precPostfix))
	default:
		panic("internal error: print of unknown expression")
	}
	pr.widths[e] = w
	return w
}

// operandPrecs are the precedences a binary operator's left and right
// operands need.
func operandPrecs(op Kind) (lmin, rmin int) {
	p := binaryPrec(op)
	lmin, rmin = p, p+1
	if p == precCompare {
		lmin = p + 1
	}
	return max(lmin, 1), rmin
}

// flat prints e on one line, parenthesized when its precedence is below min.
func (pr *printer) flat(e Expr, min int) {
	if exprPrec(e) < min {
		pr.str("(")
		pr.flatBare(e)
		pr.str(")")
		return
	}
	pr.flatBare(e)
}

func (pr *printer) flatBare(e Expr) {
	pr.step()
	switch e := e.(type) {
	case *Ident:
		pr.str(e.Name)
	case *IntLit:
		pr.str(strconv.Itoa(e.Value))
	case *RealLit:
		pr.str(formatRealLit(e.Value))
	case *BoolLit:
		pr.str(strconv.FormatBool(e.Value))
	case *SumExpr:
		pr.str("sum(<")
		pr.str(formatBinder(e.Key))
		pr.str(", ")
		pr.str(formatBinder(e.Val))
		pr.str("> in ")
		pr.flat(e.Src, 0)
		pr.str(") ")
		pr.flat(e.Body, pr.trapMin(e))
	case *DictExpr:
		if len(e.Entries) == 0 {
			pr.str("{}")
			return
		}
		pr.str("{ ")
		for i, en := range e.Entries {
			if i > 0 {
				pr.str(", ")
			}
			pr.flat(en.Key, 0)
			pr.str(" -> ")
			pr.flat(en.Val, 0)
		}
		pr.str(" }")
	case *LookupExpr:
		pr.flat(e.X, precPostfix)
		pr.str("(")
		pr.flat(e.Key, 0)
		pr.str(")")
	case *SliceExpr:
		pr.flat(e.X, precPostfix)
		pr.str("(")
		pr.flat(e.Lo, 0)
		pr.str(":")
		pr.flat(e.Hi, 0)
		pr.str(")")
	case *RangeExpr:
		pr.str("(")
		pr.flat(e.Lo, 0)
		pr.str(":")
		pr.flat(e.Hi, 0)
		pr.str(")")
	case *LetExpr:
		pr.letHead(e, pr.flat)
		pr.str(" in ")
		pr.flat(e.Body, 0)
	case *IfExpr:
		pr.str("if ")
		pr.flat(e.Cond, 0)
		pr.str(" then ")
		if e.Else == nil {
			pr.flat(e.Then, pr.trapMin(e))
		} else {
			// an if without else inside then would capture our else
			pr.flat(e.Then, pr.thenMin(e.Then))
			pr.str(" else ")
			pr.flat(e.Else, pr.trapMin(e))
		}
	case *UnaryExpr:
		if e.Op == NOT {
			pr.str("not ")
			pr.flat(e.X, precNot)
		} else {
			pr.str("-")
			pr.flat(e.X, precPrefix)
		}
	case *BinaryExpr:
		lmin, rmin := operandPrecs(e.Op)
		pr.flat(e.X, lmin)
		pr.str(" ")
		pr.str(e.Op.String())
		pr.str(" ")
		pr.flat(e.Y, rmin)
	case *CallExpr:
		pr.str(e.Op)
		pr.str("(")
		pr.flat(e.X, 0)
		if e.Y != nil {
			pr.str(", ")
			pr.flat(e.Y, 0)
		}
		pr.str(")")
	case *UniqueExpr:
		pr.str("unique(")
		pr.flat(e.X, 0)
		pr.str(")")
	case *ZeroExpr:
		pr.str("zero[")
		pr.str(e.T.String())
		pr.str("]")
	case *OneHotExpr:
		pr.str("onehot[")
		pr.str(e.T.String())
		pr.str("] ")
		pr.flat(e.X, precPostfix)
	default:
		panic("internal error: print of unknown expression")
	}
}

// trapMin is the precedence the body of a sum (or the last branch of an
// if) e needs: parenthesized when it ends in a + or - that a reader could
// take to be outside (TrapOperator, Lint). The printer decides it for
// every node from what it knows of the node's body (spineOf), in constant
// time once the body's is known.
func (pr *printer) trapMin(e Expr) int {
	var s spine
	switch b := e.(type) {
	case *SumExpr:
		s = pr.spineOf(b.Body)
		if s.op != nil && !s.binds && (pr.freeIn(b.Key.Name, s.op.Y) || pr.freeIn(b.Val.Name, s.op.Y)) {
			s.binds = true
		}
	case *IfExpr:
		if b.Else != nil {
			s = pr.spineOf(b.Else)
		} else {
			s = pr.spineOf(b.Then)
		}
	default:
		return 0
	}
	if s.op != nil && !s.binds {
		return precPrimary + 1
	}
	return 0
}

// spine is what trapMin needs to know of an expression: the + or - its
// chain of binder bodies (sum and let bodies, last if branches) ends in,
// and whether a name bound on the way is free in that operator's right
// operand.
type spine struct {
	op    *BinaryExpr
	binds bool
}

// spineOf returns x's spine, computed once per node.
func (pr *printer) spineOf(x Expr) spine {
	if s, ok := pr.spines[x]; ok {
		return s
	}
	pr.step()
	var s spine
	switch b := x.(type) {
	case *SumExpr:
		s = pr.spineOf(b.Body)
		if s.op != nil && !s.binds {
			s.binds = pr.freeIn(b.Key.Name, s.op.Y) || pr.freeIn(b.Val.Name, s.op.Y)
		}
	case *LetExpr:
		s = pr.spineOf(b.Body)
		for _, n := range b.Names {
			if s.op != nil && !s.binds {
				s.binds = pr.freeIn(n.Name, s.op.Y)
			}
		}
	case *IfExpr:
		if b.Else != nil {
			s = pr.spineOf(b.Else)
		} else {
			s = pr.spineOf(b.Then)
		}
	case *BinaryExpr:
		if b.Op == ADD || b.Op == SUB {
			s.op = b
		}
	}
	if pr.spines == nil {
		pr.spines = map[Expr]spine{}
	}
	pr.spines[x] = s
	return s
}

// freeIn reports whether name is free in e.
func (pr *printer) freeIn(name string, e Expr) bool { return pr.freeSet(e)[name] }

// freeSet returns e's free names, computed once per node from its
// children's.
func (pr *printer) freeSet(e Expr) map[string]bool {
	if fv, ok := pr.free[e]; ok {
		return fv
	}
	pr.step()
	fv := map[string]bool{}
	if id, ok := e.(*Ident); ok {
		fv[id.Name] = true
	}
	for i, k := range Children(e) {
		bound := Binders(e, i)
		for n := range pr.freeSet(k) {
			if !slices.Contains(bound, n) {
				fv[n] = true
			}
		}
	}
	if pr.free == nil {
		pr.free = map[Expr]map[string]bool{}
	}
	pr.free[e] = fv
	return fv
}

// thenMin is the precedence the then-branch of an if-else needs: an if
// without else there must be parenthesized.
func (pr *printer) thenMin(x Expr) int {
	if pr.endsInOpenIf(x) {
		return precBinder + 1
	}
	return 0
}

// endsInOpenIf reports whether the rightmost construct of x is an if
// without else, which would capture a following else; computed once per
// node.
func (pr *printer) endsInOpenIf(x Expr) bool {
	if v, ok := pr.openIf[x]; ok {
		return v
	}
	pr.step()
	v := false
	switch e := x.(type) {
	case *IfExpr:
		v = e.Else == nil || pr.endsInOpenIf(e.Else)
	case *SumExpr:
		v = pr.endsInOpenIf(e.Body)
	case *LetExpr:
		v = pr.endsInOpenIf(e.Body)
	}
	if pr.openIf == nil {
		pr.openIf = map[Expr]bool{}
	}
	pr.openIf[x] = v
	return v
}

// letHead prints "let x = e" or "let <a, b> = <e1, e2>", its values by
// sub.
func (pr *printer) letHead(e *LetExpr, sub func(Expr, int)) {
	pr.str("let ")
	if len(e.Names) == 1 {
		pr.str(formatBinder(e.Names[0]))
		pr.str(" = ")
		sub(e.Values[0], 0)
		return
	}
	pr.str("<")
	for i, n := range e.Names {
		if i > 0 {
			pr.str(", ")
		}
		pr.str(formatBinder(n))
	}
	pr.str("> = <")
	for i, v := range e.Values {
		if i > 0 {
			pr.str(", ")
		}
		// inside <...> a '>' would close the tuple
		sub(v, precAdd)
	}
	pr.str(">")
}

// letHeadWidth is the width of e's letHead printed flat.
func (pr *printer) letHeadWidth(e *LetExpr) int {
	if len(e.Names) == 1 {
		return capAdd(len("let  = "), len(e.Names[0].Name), pr.width(e.Values[0], 0))
	}
	w := len("let <> = <>") + 2*len(", ")*(len(e.Names)-1)
	for i, n := range e.Names {
		w = capAdd(w, len(n.Name), pr.width(e.Values[i], precAdd))
	}
	return w
}

// layout prints e on a line whose indentation is ind, breaking long
// binders over several lines: flat when it fits in LineWidth columns
// from ind.
func (pr *printer) layout(e Expr, ind, min int) {
	if pr.width(e, min)+ind <= LineWidth {
		pr.flat(e, min)
		return
	}
	if exprPrec(e) < min {
		pr.str("(")
		pr.layoutBare(e, ind+1)
		pr.str(")")
		return
	}
	pr.layoutBare(e, ind)
}

func (pr *printer) layoutBare(e Expr, ind int) {
	pr.step()
	switch e := e.(type) {
	case *SumExpr:
		pr.str("sum(<")
		pr.str(formatBinder(e.Key))
		pr.str(", ")
		pr.str(formatBinder(e.Val))
		pr.str("> in ")
		pr.layout(e.Src, ind+2, 0)
		pr.str(")")
		pr.newline(ind + 2)
		pr.layout(e.Body, ind+2, pr.trapMin(e))
	case *LetExpr:
		pr.letHead(e, func(x Expr, min int) { pr.layout(x, ind+2, min) })
		pr.str(" in")
		pr.newline(ind)
		if _, chained := e.Body.(*LetExpr); chained {
			pr.layoutBare(e.Body, ind) // a broken let chain: one binding a line
			return
		}
		pr.layout(e.Body, ind, 0)
	case *IfExpr:
		pr.str("if ")
		pr.layout(e.Cond, ind+2, 0)
		pr.str(" then")
		pr.newline(ind + 2)
		if e.Else == nil {
			pr.layout(e.Then, ind+2, pr.trapMin(e))
			return
		}
		pr.layout(e.Then, ind+2, pr.thenMin(e.Then))
		pr.newline(ind)
		pr.str("else")
		pr.newline(ind + 2)
		pr.layout(e.Else, ind+2, pr.trapMin(e))
	case *DictExpr:
		pr.str("{ ")
		for i, en := range e.Entries {
			if i > 0 {
				pr.str(",")
				pr.newline(ind + 2)
			}
			pr.layout(en.Key, ind+2, 0)
			pr.str(" ->")
			pr.newline(ind + 2)
			pr.layout(en.Val, ind+2, 0)
		}
		pr.str(" }")
	case *BinaryExpr:
		lmin, rmin := operandPrecs(e.Op)
		start := pr.b.Len()
		pr.layout(e.X, ind, lmin)
		pr.str(" ")
		pr.str(e.Op.String())
		// the left operand's length, counted over its lines
		if capAdd(pr.width(e.Y, rmin), pr.b.Len()-start, 1) > LineWidth {
			// a long right operand starts its own line
			pr.newline(ind + 2)
		} else {
			pr.str(" ")
		}
		pr.layout(e.Y, ind+2, rmin)
	case *LookupExpr:
		pr.layout(e.X, ind, precPostfix)
		pr.str("(")
		pr.layout(e.Key, ind+2, 0)
		pr.str(")")
	case *CallExpr:
		pr.str(e.Op)
		pr.str("(")
		pr.layout(e.X, ind+2, 0)
		if e.Y != nil {
			pr.str(", ")
			pr.layout(e.Y, ind+2, 0)
		}
		pr.str(")")
	case *UnaryExpr:
		if e.Op == NOT {
			pr.str("not ")
			pr.layout(e.X, ind+2, precNot)
			return
		}
		pr.str("-")
		pr.layout(e.X, ind+2, precPrefix)
	default:
		pr.flatBare(e)
	}
}
