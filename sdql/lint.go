package sdql

import "fmt"

// Lint parses a program and returns warnings about what is valid but
// probably not what its author meant, each an *Error with the file and
// position (the program still runs); a program that does not parse gives
// Parse's error. It reports one trap, the precedence of binders:
// sum and if extend as far to the right as possible, so in
//
//	let d = sum(<i, r> in A) { i -> r(0) } - b in ...
//
// b is subtracted in every iteration, not once from the sum. A sum or if
// whose body (through nested sums, lets and ifs: the else branch, or the
// then branch of an if without else) ends in a + or - whose right operand
// uses none of the variables bound on the way is reported (TrapOperator);
// parenthesizing the body, as the printer does, silences it. A let is not
// reported: its body and (let ...) - b are then the same value.
func Lint(filename, src string) ([]*Error, error) {
	p := &parser{file: filename, sc: newScanner(src), parens: map[Expr]bool{}}
	e, err := p.parse()
	if err != nil {
		return nil, err
	}
	var out []*Error
	seen := map[*BinaryExpr]bool{}
	Inspect(e, func(x Expr) bool {
		op := trapOperator(x, p.parens)
		if op == nil || seen[op] {
			return true
		}
		seen[op] = true
		what := "sum"
		if _, isIf := x.(*IfExpr); isIf {
			what = "if"
		}
		right := PrintFlat(op.Y)
		if len(right) > 40 {
			right = right[:37] + "..."
		}
		out = append(out, &Error{File: filename, Pos: op.OpPos, Msg: fmt.Sprintf(
			"the body of the %s at %s extends over '%s %s', which uses none of the variables it binds: did you mean (%s …) %s %s? (parenthesize the body if not)",
			what, x.Pos(), op.Op, right, what, op.Op, right)})
		return true
	})
	return out, nil
}

// TrapOperator returns the + or - that a sum or if expression's body
// extends over although its right operand uses none of the names bound
// by the binders on the way (see Lint), or nil.
func TrapOperator(e Expr) *BinaryExpr { return trapOperator(e, nil) }

// trapOperator is TrapOperator where the source parenthesized the nodes
// in parens: a parenthesized body says what it means.
func trapOperator(e Expr, parens map[Expr]bool) *BinaryExpr {
	bound := map[string]bool{}
	var x Expr
	switch b := e.(type) {
	case *SumExpr:
		bound[b.Key.Name], bound[b.Val.Name] = true, true
		x = b.Body
	case *IfExpr:
		x = b.Else
		if x == nil {
			x = b.Then
		}
	default:
		return nil
	}
	for {
		if parens[x] {
			return nil
		}
		switch b := x.(type) {
		case *SumExpr:
			bound[b.Key.Name], bound[b.Val.Name] = true, true
			x = b.Body
		case *LetExpr:
			for _, n := range b.Names {
				bound[n.Name] = true
			}
			x = b.Body
		case *IfExpr:
			x = b.Else
			if x == nil {
				x = b.Then
			}
		case *BinaryExpr:
			if b.Op != ADD && b.Op != SUB {
				return nil
			}
			for _, v := range FreeVars(b.Y) {
				if bound[v] {
					return nil
				}
			}
			return b
		default:
			return nil
		}
	}
}
