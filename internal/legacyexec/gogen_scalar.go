// Scalar expressions of the Go code generator: reals, ints and bools as Go
// expressions and statements.

package legacyexec

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// ---- scalars

func (g *gogen) real(e sdql.Expr) string { return g.scalar(e, false) }

func (g *gogen) int(e sdql.Expr) string { return g.scalar(e, true) }

func (g *gogen) lookupVar(e *sdql.Ident) *gvar {
	v, ok := g.vars[e.Name]
	if !ok {
		g.failf(e, "undefined: %s", e.Name)
		return &gvar{kind: "real", g: "0"}
	}
	return v
}

// scalar returns a Go expression of type float64 (int when asInt); it may
// first emit statements computing parts of it.
func (g *gogen) scalar(e sdql.Expr, asInt bool) string {
	k := kindOf(g.typeOf(e))
	conv := func(s string, isInt bool) string {
		switch {
		case asInt && !isInt:
			return "int(" + s + ")"
		case !asInt && isInt:
			return "float64(" + s + ")"
		}
		return s
	}
	if k == kBool {
		c := g.name("c")
		g.p("%s := 0.0", c)
		g.p("if %s {", g.boolean(e))
		g.p("%s = 1", c)
		g.p("}")
		return conv(c, false)
	}
	if k == kDict {
		return g.failf(e, "a dictionary where a scalar is expected")
	}
	switch e := e.(type) {
	case *sdql.IntLit:
		if asInt {
			return strconv.Itoa(e.Value)
		}
		return strconv.FormatFloat(float64(e.Value), 'g', -1, 64)
	case *sdql.RealLit:
		s := strconv.FormatFloat(e.Value, 'g', -1, 64)
		if !strings.ContainsAny(s, ".e") {
			s += ".0"
		}
		return conv(s, false)
	case *sdql.Ident:
		v := g.lookupVar(e)
		switch v.kind {
		case "int":
			return conv(v.g, true)
		case "real":
			return conv(v.g, false)
		}
		return g.failf(e, "%s is not a scalar", e.Name)
	case *sdql.UniqueExpr:
		return g.scalar(e.X, asInt)
	case *sdql.LookupExpr:
		d := g.dictRef(e.X)
		if d == nil {
			return "0"
		}
		return conv(g.lookup(d, e), k == kInt)
	case *sdql.BinaryExpr:
		op := map[sdql.Kind]string{sdql.ADD: "+", sdql.SUB: "-", sdql.MUL: "*", sdql.QUO: "/"}[e.Op]
		if op == "" {
			return g.failf(e, "operator %s", e.Op)
		}
		if e.Op == sdql.QUO || k != kInt {
			return conv(paren(g.real(e.X))+" "+op+" "+paren(g.real(e.Y)), false)
		}
		return conv(paren(g.int(e.X))+" "+op+" "+paren(g.int(e.Y)), true)
	case *sdql.UnaryExpr:
		return "-" + paren(g.scalar(e.X, asInt))
	case *sdql.CallExpr:
		return conv(g.call(e), false)
	case *sdql.ZeroExpr:
		return conv("0", asInt)
	case *sdql.SumExpr, *sdql.IfExpr, *sdql.LetExpr:
		acc := g.name("s")
		if asInt {
			g.p("%s := 0", acc)
		} else {
			g.p("%s := 0.0", acc)
		}
		save := g.clone()
		g.scalarStmt(e, acc)
		g.vars = save
		return acc
	}
	return g.failf(e, "cannot generate %T", e)
}

// scalarStmt emits statements adding the value of e to acc.
func (g *gogen) scalarStmt(e sdql.Expr, acc string) {
	asInt := kindOf(g.typeOf(e)) == kInt
	switch e := e.(type) {
	case *sdql.SumExpr:
		if f, cond := g.flatten(e); f != nil {
			g.p("if %s {", cond)
			g.loop(f, func() { g.scalarStmt(f.Body, acc) })
			g.p("}")
			return
		}
		g.loop(e, func() { g.scalarStmt(e.Body, acc) })
	case *sdql.IfExpr:
		g.p("if %s {", g.boolean(e.Cond))
		save := g.clone()
		g.scalarStmt(e.Then, acc)
		g.vars = save
		if e.Else != nil {
			g.p("} else {")
			g.scalarStmt(e.Else, acc)
			g.vars = save
		}
		g.p("}")
	case *sdql.LetExpr:
		save := g.clone()
		g.let(e)
		g.scalarStmt(e.Body, acc)
		g.vars = save
	case *sdql.ZeroExpr:
	default:
		g.p("%s += %s", acc, g.scalar(e, asInt))
	}
}

func (g *gogen) boolean(e sdql.Expr) string {
	switch e := e.(type) {
	case *sdql.BoolLit:
		return strconv.FormatBool(e.Value)
	case *sdql.Ident:
		v := g.lookupVar(e)
		if v.kind == "bool" {
			return v.g
		}
	case *sdql.UnaryExpr:
		return "!(" + g.boolean(e.X) + ")"
	case *sdql.BinaryExpr:
		switch e.Op {
		case sdql.LAND:
			return "(" + g.boolean(e.X) + " && " + g.boolean(e.Y) + ")"
		case sdql.LOR:
			return "(" + g.boolean(e.X) + " || " + g.boolean(e.Y) + ")"
		}
		op := map[sdql.Kind]string{sdql.EQ: "==", sdql.NEQ: "!=", sdql.LT: "<", sdql.LEQ: "<=", sdql.GT: ">", sdql.GEQ: ">="}[e.Op]
		if op != "" && kindOf(g.typeOf(e.X)) != kBool && kindOf(g.typeOf(e.X)) != kDict {
			if kindOf(g.typeOf(e.X)) == kInt && kindOf(g.typeOf(e.Y)) == kInt {
				return "(" + g.int(e.X) + " " + op + " " + g.int(e.Y) + ")"
			}
			return "(" + g.real(e.X) + " " + op + " " + g.real(e.Y) + ")"
		}
	}
	g.failf(e, "cannot generate the condition %s", sdql.PrintFlat(e))
	return "false"
}

// goMath are the operations of sdql.Ops that are a function of package
// math of the same arguments.
var goMath = map[string]string{"exp": "math.Exp", "log": "math.Log", "log1p": "math.Log1p", "expm1": "math.Expm1",
	"sin": "math.Sin", "cos": "math.Cos", "tan": "math.Tan", "sqrt": "math.Sqrt", "tanh": "math.Tanh", "abs": "math.Abs",
	"pow": "math.Pow", "max": "math.Max", "min": "math.Min"}

// call returns the Go of an operation of sdql.Ops: the same float64
// arithmetic as the operation's Fn, so that results agree bit for bit.
func (g *gogen) call(e *sdql.CallExpr) string {
	x := g.real(e.X)
	switch e.Op {
	case "sigmoid": // sdql.Sigmoid
		return "1 / (1 + math.Exp(-" + paren(x) + "))"
	case "softplus": // sdql.Softplus
		t := g.name("t")
		g.p("%s := float64(%s)", t, x)
		return fmt.Sprintf("math.Max(%s, 0) + math.Log1p(math.Exp(-math.Abs(%s)))", t, t)
	case "sign":
		t := g.name("t")
		g.p("%s := float64(%s)", t, x)
		g.p("switch {\ncase %s > 0:\n%s = 1\ncase %s < 0:\n%s = -1\ndefault:\n%s = 0\n}", t, t, t, t, t)
		return t
	}
	fn := goMath[e.Op]
	if fn == "" {
		return g.failf(e, "operation %s", e.Op)
	}
	if e.Y != nil {
		return fn + "(" + x + ", " + g.real(e.Y) + ")"
	}
	return fn + "(" + x + ")"
}
