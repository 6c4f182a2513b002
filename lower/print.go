package lower

import (
	"fmt"
	"strconv"
	"strings"
)

// Print prints a program in a Go-like notation, one statement a line:
// its parameters, its tensors with their levels' storage, its body, and
// the primitive and parallel mark of each loop that has one
// (`for i := 0; i < A_len; i++ { // parallel sum(s)`). It is what
// `nablasd plan` shows as the loops stage and what the golden files pin.
func Print(p *Program) string {
	pr := &printer{}
	var params []string
	for _, pa := range p.Params {
		switch {
		case pa.Var != nil:
			params = append(params, pa.Name+" "+pa.Var.Kind.String())
		case pa.Array != nil:
			params = append(params, pa.Name+" []"+pa.Array.Kind.String())
		case pa.Tensor != nil:
			params = append(params, pa.Name+" "+pa.Tensor.Type.String())
		}
	}
	res := "?"
	switch {
	case p.ResultVar != nil:
		res = p.ResultVar.Name + " " + p.ResultVar.Kind.String()
	case p.ResultTensor != nil:
		res = p.ResultTensor.Name
	}
	pr.line("kernel(%s) -> %s", strings.Join(params, ", "), res)
	for _, t := range p.Tensors {
		if t.Input {
			continue
		}
		pr.line("tensor %s", tensorDecl(t))
	}
	pr.stmt(p.Body)
	return pr.b.String()
}

// tensorDecl describes a tensor's levels: "t: dense(A_len) × hash -> real".
func tensorDecl(t *Tensor) string {
	var ls []string
	for _, l := range t.Levels {
		s := l.Storage.String()
		switch l.Storage {
		case Dense, Sparse:
			if l.Size != nil {
				s += "(" + ExprString(l.Size) + ")"
			}
			if l.Full {
				s += " full"
			}
			if l.Unmarked {
				s += " unmarked"
			}
		case Diagonal:
			if l.Full {
				s += " full"
			}
		case Positions:
			if l.Of != nil {
				s += "(" + l.Of.Idx.Name + ")"
			}
			if l.Full {
				s += " full"
			}
		}
		ls = append(ls, s)
	}
	return t.Name + ": " + strings.Join(ls, " × ") + " -> " + t.Leaf.String()
}

type printer struct {
	b      strings.Builder
	indent int
}

func (pr *printer) line(format string, args ...any) {
	pr.b.WriteString(strings.Repeat("  ", pr.indent))
	fmt.Fprintf(&pr.b, format, args...)
	pr.b.WriteByte('\n')
}

func (pr *printer) body(s Stmt) {
	pr.indent++
	pr.stmt(s)
	pr.indent--
}

func (pr *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case nil:
	case *Block:
		for _, x := range s.List {
			pr.stmt(x)
		}
	case *Let:
		pr.line("%s := %s", s.V.Name, ExprString(s.X))
	case *Assign:
		op := "="
		if s.Op == AddTo {
			op = "+="
		}
		pr.line("%s %s %s", s.V.Name, op, ExprString(s.X))
	case *If:
		pr.line("if %s {", ExprString(s.Cond))
		pr.body(s.Then)
		if s.Else != nil {
			pr.line("} else {")
			pr.body(s.Else)
		}
		pr.line("}")
	case *For:
		var notes []string
		if s.Prim != nil {
			notes = append(notes, s.Prim.Name)
		}
		if s.Par != nil {
			notes = append(notes, parString(s.Par))
		}
		if s.Steady {
			notes = append(notes, "steady")
		}
		comment := ""
		if len(notes) > 0 {
			comment = " // " + strings.Join(notes, ", ")
		}
		pr.line("for %s := %s; %s < %s; %s++ {%s", s.V.Name, ExprString(s.Lo), s.V.Name, ExprString(s.Hi), s.V.Name, comment)
		pr.body(s.Body)
		pr.line("}")
	case *ForLevel:
		pos := "_"
		if s.Pos != nil {
			pos = s.Pos.Name
		}
		pr.line("for %s, %s := range %s.level%d[%s] {", s.Key.Name, pos, s.T.Name, s.Level, ExprString(s.Parent))
		pr.body(s.Body)
		pr.line("}")
	case *Search:
		op := "search"
		if s.Gallop {
			op = "gallop"
		}
		pr.line("if %s := %s(%s[%s:%s], %s); found {", s.Pos.Name, op, s.A.Name, ExprString(s.Lo), ExprString(s.Hi), ExprString(s.Key))
		pr.body(s.Body)
		pr.line("}")
	case *Insert:
		if s.At != nil {
			pr.line("%s := insert(%s.level%d[%s], %s) at %s", s.Pos.Name, s.T.Name, s.Level, ExprString(s.Parent), ExprString(s.Key), ExprString(s.At))
			break
		}
		pr.line("%s := insert(%s.level%d[%s], %s)", s.Pos.Name, s.T.Name, s.Level, ExprString(s.Parent), ExprString(s.Key))
	case *Locate:
		pr.line("if %s := locate(%s.level%d[%s], %s); found {", s.Pos.Name, s.T.Name, s.Level, ExprString(s.Parent), ExprString(s.Key))
		pr.body(s.Body)
		pr.line("}")
	case *Store:
		op := "="
		if s.Op == AddTo {
			op = "+="
		}
		pr.line("%s.val[%s] %s %s", s.T.Name, ExprString(s.Pos), op, ExprString(s.X))
	case *Init:
		switch {
		case s.Covered != nil:
			pr.line("init %s, uncleared when %s", s.T.Name, ExprString(s.Covered))
		case s.SetFirst:
			pr.line("init %s, values set before read", s.T.Name)
		default:
			pr.line("init %s", s.T.Name)
		}
	case *Transpose:
		pr.line("%s, %s, %s, %s := transpose(%s, %s, %s..%s)", s.TPos.Name, s.Parent.Name, s.At.Name, s.N.Name,
			s.Pos.Name, s.Idx.Name, ExprString(s.Lo), ExprString(s.Hi))
	case *Fail:
		args := make([]string, len(s.Args))
		for i, a := range s.Args {
			args[i] = ExprString(a)
		}
		pr.line("fail(%q%s)", s.Msg, strings.Join(append([]string{""}, args...), ", "))
	default:
		pr.line("?%T", s)
	}
}

func parString(p *Par) string {
	var what []string
	for _, t := range p.Tensors {
		what = append(what, t.Name)
	}
	for _, v := range p.Reduce {
		what = append(what, v.Name)
	}
	s := "parallel"
	if len(what) > 0 {
		s += " sum(" + strings.Join(what, ", ") + ")"
	}
	if len(p.Shared) > 0 {
		var ws []string
		for _, t := range p.Shared {
			ws = append(ws, t.Name)
		}
		s += " disjoint(" + strings.Join(ws, ", ") + ")"
	}
	if len(p.Private) > 0 {
		var ws []string
		for _, t := range p.Private {
			ws = append(ws, t.Name)
		}
		s += " private(" + strings.Join(ws, ", ") + ")"
	}
	return s
}

// precedence of binary operators, Go's.
func prec(op BinaryOp) int {
	switch op {
	case Or:
		return 1
	case And:
		return 2
	case Lt, Le, Eq, Ne:
		return 3
	case Add, Sub:
		return 4
	}
	return 5
}

var binOps = map[BinaryOp]string{Add: "+", Sub: "-", Mul: "*", Div: "/", Lt: "<", Le: "<=", Eq: "==", Ne: "!=", And: "&&", Or: "||"}

// ExprString prints an expression in Go's syntax and precedence.
func ExprString(e Expr) string { return exprString(e, 0) }

func exprString(e Expr, outer int) string {
	switch e := e.(type) {
	case nil:
		return "<nil>"
	case *Const:
		switch e.K {
		case Real:
			s := strconv.FormatFloat(e.F, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eEn") {
				s += ".0"
			}
			return s
		case Bool:
			if e.I != 0 {
				return "true"
			}
			return "false"
		}
		return strconv.Itoa(e.I)
	case *Ref:
		return e.V.Name
	case *Load:
		return e.A.Name + "[" + exprString(e.Index, 0) + "]"
	case *Len:
		return "len(" + e.A.Name + ")"
	case *Unary:
		switch e.Op {
		case Neg:
			return "-" + exprString(e.X, 6)
		case Not:
			return "!" + exprString(e.X, 6)
		}
		return "real(" + exprString(e.X, 0) + ")"
	case *Binary:
		if e.Op == FloorDiv { // ⌊x / y⌋, which Go's / is not
			return "floorDiv(" + exprString(e.X, 0) + ", " + exprString(e.Y, 0) + ")"
		}
		p := prec(e.Op)
		s := exprString(e.X, p) + " " + binOps[e.Op] + " " + exprString(e.Y, p+1)
		if p < outer {
			return "(" + s + ")"
		}
		return s
	case *Call:
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			args[i] = exprString(a, 0)
		}
		return e.Fn + "(" + strings.Join(args, ", ") + ")"
	case *Select:
		return "select(" + exprString(e.Cond, 0) + ", " + exprString(e.Then, 0) + ", " + exprString(e.Else, 0) + ")"
	case *ValAt:
		return e.T.Name + ".val[" + exprString(e.Pos, 0) + "]"
	}
	return fmt.Sprintf("?%T", e)
}
