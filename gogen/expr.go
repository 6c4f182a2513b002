package gogen

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// code is a Go expression and the precedence of its outermost operator
// (Go's: 5 * /, 4 + -, 3 comparisons, 2 &&, 1 ||; 6 unary, 7 primary).
type code struct {
	s    string
	prec int
}

const (
	precUnary   = 6
	precPrimary = 7
)

// paren is c as an operand needing at least precedence min.
func paren(c code, min int) string {
	if c.prec < min {
		return "(" + c.s + ")"
	}
	return c.s
}

// capture runs f with the output redirected and returns what it wrote.
func (g *gen) capture(f func()) []byte {
	saved := g.w
	g.w = &bytes.Buffer{}
	f()
	out := g.w.Bytes()
	g.w = saved
	return out
}

// exprAs emits e as a Go expression of kind k, usable as a statement's
// operand. Statements an expression needs (the branches of a Select, the
// right side of && and || when it needs any) are written first.
func (g *gen) exprAs(e lower.Expr, k lower.Kind) string { return g.code(e, k).s }

// code emits e converted to kind k.
func (g *gen) code(e lower.Expr, k lower.Kind) code {
	if c, ok := e.(*lower.Const); ok {
		return g.constant(c, k)
	}
	return g.convert(g.expr(e), e.Kind(), k)
}

// convert converts a Go expression of kind from to kind to, as the IR's
// interpreter does (bools are 0 and 1, any non-zero number is true).
func (g *gen) convert(c code, from, to lower.Kind) code {
	switch {
	case from == to:
		return c
	case to == lower.Real && from == lower.Int:
		return code{"float64(" + c.s + ")", precPrimary}
	case to == lower.Real && from == lower.Bool:
		g.helpers["b2f"] = true
		return code{g.pfx + "B2f(" + c.s + ")", precPrimary}
	case to == lower.Int && from == lower.Bool:
		g.helpers["b2i"] = true
		return code{g.pfx + "B2i(" + c.s + ")", precPrimary}
	case to == lower.Int && from == lower.Real:
		return code{"int(" + c.s + ")", precPrimary}
	}
	// a number as a bool
	return code{paren(c, 4) + " != 0", 3}
}

// constant prints a constant as a literal of kind k.
func (g *gen) constant(c *lower.Const, k lower.Kind) code {
	var f float64
	switch c.K {
	case lower.Real:
		f = c.F
	default:
		f = float64(c.I)
	}
	switch k {
	case lower.Bool:
		if f != 0 {
			return code{"true", precPrimary}
		}
		return code{"false", precPrimary}
	case lower.Int:
		if c.K == lower.Real {
			return code{strconv.Itoa(int(c.F)), precPrimary}
		}
		return code{strconv.Itoa(c.I), precPrimary}
	}
	switch {
	case math.IsNaN(f):
		g.imports["math"] = true
		return code{"math.NaN()", precPrimary}
	case math.IsInf(f, 1):
		g.imports["math"] = true
		return code{"math.Inf(1)", precPrimary}
	case math.IsInf(f, -1):
		g.imports["math"] = true
		return code{"math.Inf(-1)", precPrimary}
	case f == 0 && math.Signbit(f):
		g.imports["math"] = true
		return code{"math.Copysign(0, -1)", precPrimary}
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	if f < 0 {
		return code{s, precUnary}
	}
	return code{s, precPrimary}
}

// expr emits e in its own kind.
func (g *gen) expr(e lower.Expr) code {
	switch x := e.(type) {
	case *lower.Const:
		return g.constant(x, x.K)
	case *lower.Ref:
		return code{g.vars[x.V], precPrimary}
	case *lower.Load:
		if v, off := lower.OffsetIndex(x.Index); v != nil {
			if s, ok := g.override[segRef{x.A, off}.key(v)]; ok {
				return code{s, precPrimary}
			}
		}
		// read through an index let (letsegments.go)
		for i := len(g.segVars) - 1; i >= 0; i-- {
			if off, ok := g.loadOffset(x.Index, g.segVars[i]); ok {
				if s, ok := g.override[segRef{x.A, off}.key(g.segVars[i])]; ok {
					return code{s, precPrimary}
				}
			}
		}
		if s := g.backOverride(x); s != "" {
			return code{s, precPrimary} // backsegments.go
		}
		return code{g.arrays[x.A] + "[" + g.exprAs(x.Index, lower.Int) + "]", precPrimary}
	case *lower.Len:
		return code{"len(" + g.arrays[x.A] + ")", precPrimary}
	case *lower.Unary:
		return g.unary(x)
	case *lower.Binary:
		return g.binary(x)
	case *lower.Call:
		return g.call(x)
	case *lower.Select:
		return g.selectExpr(x)
	case *lower.ValAt:
		if s := g.backOverride(x); s != "" {
			return code{s, precPrimary} // backsegments.go
		}
		return code{g.ts[x.T].f(valsField) + "[" + g.exprAs(x.Pos, lower.Int) + "]", precPrimary}
	}
	g.failf("internal error: an expression %T", e)
	return code{}
}

// neg negates an operand, never writing "--".
func neg(c code) code {
	s := paren(c, precUnary)
	if strings.HasPrefix(s, "-") {
		s = "(" + s + ")"
	}
	return code{"-" + s, precUnary}
}

func (g *gen) unary(x *lower.Unary) code {
	switch x.Op {
	case lower.Neg:
		if x.X.Kind() == lower.Bool { // -b is non-zero exactly when b is
			return g.expr(x.X)
		}
		return neg(g.expr(x.X))
	case lower.Not:
		return code{"!" + paren(g.code(x.X, lower.Bool), precUnary), precUnary}
	case lower.ToReal:
		return g.code(x.X, lower.Real)
	}
	g.failf("internal error: a unary operator %d", x.Op)
	return code{}
}

var goOps = map[lower.BinaryOp]string{lower.Add: "+", lower.Sub: "-", lower.Mul: "*", lower.Div: "/",
	lower.Lt: "<", lower.Le: "<=", lower.Eq: "==", lower.Ne: "!=", lower.And: "&&", lower.Or: "||"}

func opPrec(op lower.BinaryOp) int {
	switch op {
	case lower.Or:
		return 1
	case lower.And:
		return 2
	case lower.Lt, lower.Le, lower.Eq, lower.Ne:
		return 3
	case lower.Add, lower.Sub:
		return 4
	}
	return 5
}

func (g *gen) binary(x *lower.Binary) code {
	op, p := goOps[x.Op], opPrec(x.Op)
	switch x.Op {
	case lower.And, lower.Or:
		return g.logical(x)
	case lower.Div:
		a, b := g.code(x.X, lower.Real), g.code(x.Y, lower.Real)
		return code{paren(a, p) + " / " + paren(b, p+1), p}
	case lower.FloorDiv: // ⌊a / b⌋, which Go's / is not for a < 0
		g.helpers["floorDiv"] = true
		a, b := g.code(x.X, lower.Int), g.code(x.Y, lower.Int)
		return code{g.pfx + "FloorDiv(" + a.s + ", " + b.s + ")", precPrimary}
	case lower.Lt, lower.Le, lower.Eq, lower.Ne:
		dom := lower.Int
		switch {
		case x.X.Kind() == lower.Real || x.Y.Kind() == lower.Real:
			dom = lower.Real
		case x.X.Kind() == lower.Bool && x.Y.Kind() == lower.Bool && (x.Op == lower.Eq || x.Op == lower.Ne):
			dom = lower.Bool
		}
		a, b := g.code(x.X, dom), g.code(x.Y, dom)
		return code{paren(a, 4) + " " + op + " " + paren(b, 4), 3}
	}
	// + - *: in the reals when either side is real, else in the ints
	dom := lower.Int
	if x.X.Kind() == lower.Real || x.Y.Kind() == lower.Real {
		dom = lower.Real
	}
	a, b := g.code(x.X, dom), g.code(x.Y, dom)
	c := code{paren(a, p) + " " + op + " " + paren(b, p+1), p}
	return g.convert(c, dom, x.Kind())
}

// logical emits && and ||, evaluating the right side only when needed
// even when it needs statements of its own.
func (g *gen) logical(x *lower.Binary) code {
	if c, ok := g.rangeCheck(x); ok {
		return c
	}
	op, p := goOps[x.Op], opPrec(x.Op)
	a := g.code(x.X, lower.Bool)
	var b code
	pre := g.capture(func() { b = g.code(x.Y, lower.Bool) })
	if len(pre) == 0 {
		return code{paren(a, p) + " " + op + " " + paren(b, p+1), p}
	}
	t := g.loc.name("c")
	g.line("%s := %s", t, a.s)
	if x.Op == lower.And {
		g.line("if %s {", t)
	} else {
		g.line("if !%s {", t)
	}
	g.w.Write(pre)
	g.line("%s = %s", t, b.s)
	g.line("}")
	return code{t, precPrimary}
}

// rangeCheck emits 0 <= a && a < n, n an extent an array was resliced
// to at entry (so n >= 0: lenFact), as the one unsigned comparison
// uint(a) < uint(n): the lookup of a dense vector's entry it guards then
// takes one branch instead of two (Go's compiler does not fuse them when
// n is not a constant).
func (g *gen) rangeCheck(x *lower.Binary) (code, bool) {
	if x.Op != lower.And {
		return code{}, false
	}
	le, ok1 := x.X.(*lower.Binary)
	lt, ok2 := x.Y.(*lower.Binary)
	if !ok1 || !ok2 || le.Op != lower.Le || lt.Op != lower.Lt || !isZero(le.X) {
		return code{}, false
	}
	a, ok1 := le.Y.(*lower.Ref)
	b, ok2 := lt.X.(*lower.Ref)
	n, ok3 := lt.Y.(*lower.Ref)
	if !ok1 || !ok2 || !ok3 || a.V != b.V || a.V.Kind != lower.Int || !g.resliced(n.V) {
		return code{}, false
	}
	ca, cn := g.code(a, lower.Int), g.code(n, lower.Int)
	return code{"uint(" + ca.s + ") < uint(" + cn.s + ")", 3}, true
}

// guardCheck emits the condition of a dense vector's guarded lookup,
// select(0 <= j && j < n, X[j], 0) (lower.GuardedLoad), X resliced to n
// at entry, as uint(j) < uint(len(X)): naming X's length lets Go's
// compiler drop the bounds check of the load X[j] the condition guards,
// which in a loop of its own function (outline.go), not knowing that the
// caller resliced X, is otherwise a second branch.
func (g *gen) guardCheck(x *lower.Select) (code, bool) {
	n, ld := lower.GuardedLoad(x)
	if c, ok := x.Cond.(*lower.Binary); ld == nil || !ok || c.Op != lower.And {
		return code{}, false // j < n alone: left as it is (0 <= j is known there)
	}
	r, ok := n.(*lower.Ref)
	if !ok || !g.reslicedTo(ld.A, r.V) {
		return code{}, false
	}
	j := g.code(ld.Index, lower.Int)
	return code{"uint(" + j.s + ") < uint(len(" + g.arrays[ld.A] + "))", 3}, true
}

// resliced reports whether an array was resliced to the extent v at
// entry (lenFact): v is then not negative when the body runs.
func (g *gen) resliced(v *lower.Var) bool {
	return g.reslicedTo(nil, v)
}

// reslicedTo reports whether the array a (nil: any) was resliced to the
// extent v at entry (lenFact): len(a) is then v.
func (g *gen) reslicedTo(a *lower.Array, v *lower.Var) bool {
	for _, f := range g.lens {
		if f.extent == v && (a == nil || f.a == a) {
			return true
		}
	}
	return false
}

// goFuncs are the Go functions of the language's operations; "PFX" ones
// are helpers of the file.
var goFuncs = map[string]string{
	"exp": "math.Exp", "log": "math.Log", "log1p": "math.Log1p", "expm1": "math.Expm1",
	"sin": "math.Sin", "cos": "math.Cos", "tan": "math.Tan", "sqrt": "math.Sqrt", "tanh": "math.Tanh",
	"abs": "math.Abs", "pow": "math.Pow", "max": "math.Max", "min": "math.Min",
	"sigmoid": "PFXSigmoid", "softplus": "PFXSoftplus", "sign": "PFXSign",
}

func (g *gen) call(x *lower.Call) code {
	fn, ok := goFuncs[x.Fn]
	if !ok {
		g.failf("the operation %s has no Go equivalent in this generator", x.Fn)
	}
	if name, ok := strings.CutPrefix(fn, "PFX"); ok {
		g.helpers[strings.ToLower(name)] = true
		fn = g.pfx + name
	} else {
		g.imports["math"] = true
	}
	args := make([]string, len(x.Args))
	for i, a := range x.Args {
		args[i] = g.exprAs(a, lower.Real)
	}
	return code{fn + "(" + strings.Join(args, ", ") + ")", precPrimary}
}

// safe reports whether evaluating e cannot fail (no loads), so it may be
// evaluated where the IR would not.
func safe(e lower.Expr) bool {
	switch e.(type) {
	case *lower.Const, *lower.Ref, *lower.Len:
		return true
	}
	return false
}

// selectExpr emits a Select as an if into a temporary: each branch
// evaluated only when taken.
func (g *gen) selectExpr(x *lower.Select) code {
	k := x.Kind()
	cond, ok := g.guardCheck(x)
	if !ok {
		cond = g.code(x.Cond, lower.Bool)
	}
	var a, b code
	preA := g.capture(func() { a = g.code(x.Then, k) })
	preB := g.capture(func() { b = g.code(x.Else, k) })
	t := g.loc.name("x")
	if len(preB) == 0 && safe(x.Else) {
		// b is a literal of kind k or typed: t := b declares t right
		g.line("%s := %s", t, b.s)
		g.line("if %s {", cond.s)
		g.w.Write(preA)
		g.line("%s = %s", t, a.s)
		g.line("}")
		return code{t, precPrimary}
	}
	g.line("var %s %s", t, goKind(k))
	g.line("if %s {", cond.s)
	g.w.Write(preA)
	g.line("%s = %s", t, a.s)
	g.line("} else {")
	g.w.Write(preB)
	g.line("%s = %s", t, b.s)
	g.line("}")
	return code{t, precPrimary}
}

// line writes a line of the function.
func (g *gen) line(format string, args ...any) {
	fmt.Fprintf(g.w, format, args...)
	g.w.WriteByte('\n')
}
