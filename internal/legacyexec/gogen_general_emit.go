// Expression translation of the general Go code generator (GoValue): each
// SDQL construct as Go statements followed by a Go expression of its value,
// mirroring sdql/eval.go.

package legacyexec

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/nablasd/nablasd/sdql"
)

// gvOps are the Go functions of sdql.Ops ("" for the generated helpers).
var gvOps = map[string]string{"exp": "math.Exp", "log": "math.Log", "log1p": "math.Log1p", "expm1": "math.Expm1",
	"sin": "math.Sin", "cos": "math.Cos", "tan": "math.Tan", "sqrt": "math.Sqrt", "tanh": "math.Tanh", "abs": "math.Abs",
	"pow": "math.Pow", "max": "math.Max", "min": "math.Min", "sigmoid": "", "softplus": "", "sign": ""}

// gvReserved are predeclared names generated code uses besides goReserved's.
var gvReserved = map[string]bool{"panic": true, "nil": true, "ok": true}

// p emits a line.
func (g *gvGen) p(format string, args ...any) {
	fmt.Fprintf(g.b, format, args...)
	g.b.WriteByte('\n')
}

// capture returns what f emits instead of emitting it.
func (g *gvGen) capture(f func()) string {
	saved := g.b
	g.b = &strings.Builder{}
	f()
	s := g.b.String()
	g.b = saved
	return s
}

// fresh returns a new local name close to base.
func (g *gvGen) fresh(base string) string {
	var sb strings.Builder
	for _, r := range base {
		switch {
		case r == '\'':
			sb.WriteByte('d')
		case r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z', (r == '_' || r >= '0' && r <= '9') && sb.Len() > 0:
			sb.WriteRune(r)
		}
	}
	base = sb.String()
	if base == "" {
		base = "t"
	}
	for g.clashes(base) {
		base = "v" + base
	}
	for i := 0; ; i++ {
		n := base
		if i > 0 {
			n = base + strconv.Itoa(i)
		}
		if !g.used[n] && !goReserved[n] && !gvReserved[n] {
			g.used[n] = true
			return n
		}
	}
}

// clashes reports whether n may name a function of the file: the kernel
// and its helpers, named after the kernel and an upper-case word.
func (g *gvGen) clashes(n string) bool {
	return n == g.fn || strings.HasPrefix(n, g.fn) && len(n) > len(g.fn) && unicode.IsUpper(rune(n[len(g.fn)]))
}

// mark follows the declaration of a local (see gvUseLocals).
func (g *gvGen) mark(names ...string) {
	for _, n := range names {
		if n != "" && n != "_" {
			g.p("%s%s*/", gvUseMarker, n)
		}
	}
}

// local declares a new local holding v.
func (g *gvGen) local(base string, v gvVal) gvVal {
	n := g.fresh(base)
	g.p("%s := %s", n, v.x)
	g.mark(n)
	return gvAtomic(v.rep, n)
}

// hold returns v with its expressions held in locals unless they are names
// or literals, so that it can be used more than once.
func (g *gvGen) hold(base string, v gvVal) gvVal {
	switch v.rep.kind {
	case gvSeq, gvRange:
		if v.lo != "" {
			v.lo, v.hi = g.holdInt(base+"Lo", v.lo), g.holdInt(base+"Hi", v.hi)
		}
		return v
	}
	if isSimple(v.x) {
		return v
	}
	return g.local(base, v)
}

// holdInt is hold for an int expression.
func (g *gvGen) holdInt(base, x string) string {
	if isSimple(x) {
		return x
	}
	return g.local(base, gvAtomic(gvInt, x)).x
}

// goFloat writes a float64 as a Go expression: a float constant, or a
// call for infinities and NaN.
func goFloat(f float64) gvVal {
	s := sdql.FormatReal(f)
	switch s {
	case "inf":
		return gvAtomic(gvReal, "math.Inf(1)")
	case "-inf":
		return gvAtomic(gvReal, "math.Inf(-1)")
	case "nan":
		return gvAtomic(gvReal, "math.NaN()")
	}
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return gvConst(gvReal, s)
}

// gvConst is the value of a Go constant s (a literal).
func gvConst(r *gvRep, s string) gvVal {
	p := precAtom
	if strings.HasPrefix(s, "-") {
		p = precUnary
	}
	return gvVal{rep: r, x: s, prec: p, konst: true}
}

// emit translates e in env: it emits the statements computing e's value
// and returns the value.
func (g *gvGen) emit(e sdql.Expr, env *gvEnv) gvVal {
	switch e := e.(type) {
	case *sdql.Ident:
		v, ok := env.lookup(e.Name)
		if !ok {
			g.fail(e, "undefined: %s", e.Name)
		}
		return v
	case *sdql.IntLit:
		if g.static(e) == sdql.RealType {
			return goFloat(float64(e.Value))
		}
		return gvConst(gvInt, strconv.Itoa(e.Value))
	case *sdql.RealLit:
		return goFloat(e.Value)
	case *sdql.BoolLit:
		return gvConst(gvBool, strconv.FormatBool(e.Value))
	case *sdql.SumExpr:
		return g.sum(e, env)
	case *sdql.DictExpr:
		return g.dict(e, env)
	case *sdql.LookupExpr:
		return g.lookup(e, env)
	case *sdql.SliceExpr:
		g.rep(e, env)
		x := g.emit(e.X, env)
		lo := g.holdInt("lo", g.key(e.Lo, env).x)
		hi := g.holdInt("hi", g.key(e.Hi, env).x)
		n := x.hi
		if x.lo == "" {
			n = "len(" + x.x + ")"
		}
		g.p("if %s < 0 || %s > %s || %s > %s {", lo, hi, n, lo, hi)
		msg := "sub-array out of range"
		if e.Lo.Pos().IsValid() {
			msg = e.Lo.Pos().String() + ": " + msg
		}
		g.p("panic(%q)", msg)
		g.p("}")
		return gvVal{rep: x.rep, x: x.x, lo: lo, hi: hi, prec: precAtom}
	case *sdql.RangeExpr:
		lo := g.holdInt("lo", g.key(e.Lo, env).x)
		hi := g.holdInt("hi", g.key(e.Hi, env).x)
		return gvVal{rep: gvRangeRep, lo: lo, hi: hi, prec: precAtom}
	case *sdql.LetExpr:
		return g.emit(e.Body, g.let(e, env))
	case *sdql.IfExpr:
		return g.ifExpr(e, env)
	case *sdql.UnaryExpr:
		rep := g.rep(e, env)
		x := g.emit(e.X, env)
		if e.Op == sdql.NOT {
			return gvVal{rep: gvBool, x: "!" + par(x, precAtom), prec: precUnary}
		}
		if x.rep.kind == gvScalar {
			// a negative literal, but for the real -0.0, which Go's
			// constants do not have
			if f, err := strconv.ParseFloat(x.x, 64); x.konst && err == nil && x.x[0] != '-' && (f != 0 || x.rep.base == "int") {
				return gvConst(x.rep, "-"+x.x)
			}
			if x.konst {
				x = g.local("c", x)
			}
			return gvVal{rep: x.rep, x: "-" + par(x, precAtom), prec: precUnary}
		}
		return gvAtomic(rep, g.helperNeg(rep)+"("+g.conv(x, rep).x+")")
	case *sdql.BinaryExpr:
		return g.binary(e, env)
	case *sdql.CallExpr:
		g.rep(e, env)
		x := g.conv(g.emit(e.X, env), gvReal)
		f := gvOps[e.Op]
		switch e.Op {
		case "sigmoid":
			f = g.helperSigmoid()
		case "softplus":
			f = g.helperSoftplus()
		case "sign":
			f = g.helperSign()
		}
		if e.Y != nil {
			y := g.conv(g.emit(e.Y, env), gvReal)
			return gvAtomic(gvReal, f+"("+x.x+", "+y.x+")")
		}
		return gvAtomic(gvReal, f+"("+x.x+")")
	case *sdql.UniqueExpr:
		return g.emit(e.X, env)
	case *sdql.ZeroExpr:
		return g.zero(g.rep(e, env))
	case *sdql.OneHotExpr:
		return g.oneHot(e, env)
	}
	g.fail(e, "cannot generate the expression %T", e)
	return gvVal{}
}

// zero is the zero of a scalar or map representation.
func (g *gvGen) zero(r *gvRep) gvVal {
	switch {
	case r.kind == gvMap:
		return gvAtomic(r, r.goType()+"{}")
	case r.base == "bool":
		return gvConst(r, "false")
	case r.base == "int":
		return gvConst(r, "0")
	}
	return gvConst(r, "0.0")
}

// key translates a dictionary key: an int, or a float64 that must be
// integral (the interpreter's key).
func (g *gvGen) key(e sdql.Expr, env *gvEnv) gvVal {
	v := g.emit(e, env)
	switch {
	case v.rep.same(gvInt):
		return v
	case v.rep.same(gvReal):
		return gvAtomic(gvInt, g.helperKey()+"("+v.x+")")
	}
	g.fail(e, "cannot generate a key of %s", v.rep)
	return gvVal{}
}

// conv converts v to the representation to, which holds v's values.
func (g *gvGen) conv(v gvVal, to *gvRep) gvVal {
	switch {
	case v.rep.same(to):
		return v
	case v.rep.same(gvInt) && to.same(gvReal):
		if _, err := strconv.Atoi(v.x); err == nil {
			return gvConst(gvReal, v.x+".0")
		}
		return gvVal{rep: gvReal, x: "float64(" + v.x + ")", prec: precAtom, konst: v.konst}
	case (v.rep.kind == gvSeq || v.rep.kind == gvRange) && to.kind == gvMap:
		return g.conv(g.materialize(v), to)
	case v.rep.kind == gvMap && to.kind == gvMap:
		return gvAtomic(to, g.helperConv(v.rep, to)+"("+v.x+")")
	}
	panic(fmt.Sprintf("internal error: exec: GenerateGo: converting %s to %s", v.rep, to))
}

// materialize builds a map of a sequence or range.
func (g *gvGen) materialize(v gvVal) gvVal {
	switch v.rep.kind {
	case gvSeq:
		lo, hi := v.lo, v.hi
		if lo == "" {
			lo, hi = "0", "len("+v.x+")"
		}
		return gvAtomic(v.rep.built(), fmt.Sprintf("%s(%s, %s, %s)", g.helperMapOf(v.rep.base), v.x, lo, hi))
	case gvRange:
		return gvAtomic(v.rep.built(), fmt.Sprintf("%s(%s, %s)", g.helperMapOfRange(), v.lo, v.hi))
	}
	return v
}

// let emits the bindings of a let that its body uses and returns the
// environment of its body.
func (g *gvGen) let(e *sdql.LetExpr, env *gvEnv) *gvEnv {
	used := gvLetUses(e)
	for i, n := range e.Names {
		if !used[i] {
			continue
		}
		v := g.hold(n.Name, g.emit(e.Values[i], env))
		env = env.with(n.Name, v)
	}
	return env
}

// dict builds a dictionary; values of equal keys add.
func (g *gvGen) dict(e *sdql.DictExpr, env *gvEnv) gvVal {
	rep := g.rep(e, env)
	switch len(e.Entries) {
	case 0:
		return g.zero(rep)
	case 1:
		k := g.key(e.Entries[0].Key, env)
		v := g.conv(g.emit(e.Entries[0].Val, env), rep.val)
		return gvAtomic(rep, fmt.Sprintf("%s{%s: %s}", rep.goType(), k.x, v.x))
	}
	d := g.fresh("d")
	g.p("%s := %s{}", d, rep.goType())
	for _, en := range e.Entries {
		k := g.holdInt("k", g.key(en.Key, env).x)
		v := g.conv(g.emit(en.Val, env), rep.val)
		target := d + "[" + k + "]"
		if rep.val.kind == gvScalar {
			g.addScalar(target, rep.val, v)
		} else {
			g.p("%s = %s(%s, %s)", target, g.helperAdd(rep.val), target, v.x)
		}
	}
	return gvAtomic(rep, d)
}

// lookup is X(Key): a missing key gives the zero of the value.
func (g *gvGen) lookup(e *sdql.LookupExpr, env *gvEnv) gvVal {
	rep := g.rep(e, env)
	x := g.emit(e.X, env)
	k := g.key(e.Key, env)
	var v gvVal
	switch x.rep.kind {
	case gvMap:
		v = gvAtomic(x.rep.val, par(x, precAtom)+"["+k.x+"]")
	case gvSeq:
		at := g.helperAt(x.rep.base)
		if x.lo == "" {
			v = gvAtomic(x.rep.elem(), fmt.Sprintf("%s(%s, %s)", at, x.x, k.x))
		} else {
			v = gvAtomic(x.rep.elem(), fmt.Sprintf("%s(%s[%s:%s], %s-%s)", at, x.x, x.lo, x.hi, par(k, precAdd), x.lo))
		}
	case gvRange:
		v = gvAtomic(gvInt, fmt.Sprintf("%s(%s, %s, %s)", g.helperInRange(), x.lo, x.hi, k.x))
	}
	return g.conv(v, rep)
}

// ifExpr evaluates one branch into a variable; a missing else is the
// zero of the if's type.
func (g *gvGen) ifExpr(e *sdql.IfExpr, env *gvEnv) gvVal {
	rep := g.rep(e, env)
	c := g.emit(e.Cond, env)
	t := g.fresh("t")
	res := gvAtomic(rep, t)
	switch rep.kind {
	case gvScalar, gvMap:
		g.p("var %s %s", t, rep.goType())
		g.mark(t)
	case gvSeq:
		res.lo, res.hi = g.fresh(t+"Lo"), g.fresh(t+"Hi")
		g.p("var %s %s", t, rep.goType())
		g.p("var %s, %s int", res.lo, res.hi)
		g.mark(t, res.lo, res.hi)
	case gvRange:
		res.x, res.lo, res.hi = "", g.fresh(t+"Lo"), g.fresh(t+"Hi")
		g.p("var %s, %s int", res.lo, res.hi)
		g.mark(res.lo, res.hi)
	}
	g.p("if %s {", c.x)
	g.assign(res, g.emit(e.Then, env))
	if e.Else != nil {
		g.p("} else {")
		g.assign(res, g.emit(e.Else, env))
	}
	g.p("}")
	return res
}

// assign stores v into the variables of to.
func (g *gvGen) assign(to, v gvVal) {
	switch to.rep.kind {
	case gvSeq:
		lo, hi := v.lo, v.hi
		if lo == "" {
			lo, hi = "0", "len("+v.x+")"
		}
		g.p("%s, %s, %s = %s, %s, %s", to.x, to.lo, to.hi, v.x, lo, hi)
	case gvRange:
		g.p("%s, %s = %s, %s", to.lo, to.hi, v.lo, v.hi)
	default:
		g.p("%s = %s", to.x, g.conv(v, to.rep).x)
	}
}

// gvCmpOps are the Go comparison operators.
var gvCmpOps = map[sdql.Kind]string{sdql.EQ: "==", sdql.NEQ: "!=", sdql.LT: "<", sdql.LEQ: "<=", sdql.GT: ">", sdql.GEQ: ">="}

// binary translates the binary operators (sdql.Add, sdql.Mul, ...).
func (g *gvGen) binary(e *sdql.BinaryExpr, env *gvEnv) gvVal {
	rep := g.rep(e, env)
	x := g.emit(e.X, env)
	if e.Op == sdql.LAND || e.Op == sdql.LOR {
		op, p := "&&", precAnd
		if e.Op == sdql.LOR {
			op, p = "||", precOr
		}
		var y gvVal
		code := g.capture(func() { y = g.emit(e.Y, env) })
		if code == "" {
			return gvVal{rep: gvBool, x: par(x, p) + " " + op + " " + par(y, p+1), prec: p}
		}
		c := g.fresh("c")
		g.p("%s := %s", c, x.x)
		if e.Op == sdql.LAND {
			g.p("if %s {", c)
		} else {
			g.p("if !%s {", c)
		}
		g.b.WriteString(code)
		g.p("%s = %s", c, y.x)
		g.p("}")
		return gvAtomic(gvBool, c)
	}
	y := g.emit(e.Y, env)
	if x.rep.kind == gvScalar && y.rep.kind == gvScalar {
		return g.scalarOp(e.Op, x, y, rep)
	}
	switch e.Op {
	case sdql.ADD, sdql.SUB:
		a, b := g.conv(x, rep), g.conv(y, rep)
		if e.Op == sdql.SUB {
			b = gvAtomic(rep, g.helperNeg(rep)+"("+b.x+")")
		}
		return gvAtomic(rep, fmt.Sprintf("%s(%s, %s)", g.helperAdd(rep), a.x, b.x))
	case sdql.MUL:
		a, b := g.conv(x, x.rep.built()), g.conv(y, y.rep.built())
		return gvAtomic(rep, fmt.Sprintf("%s(%s, %s)", g.helperMul(a.rep, b.rep), a.x, b.x))
	case sdql.QUO:
		a := g.conv(x, x.rep.built())
		return gvAtomic(rep, fmt.Sprintf("%s(%s, %s)", g.helperDiv(a.rep), a.x, g.conv(y, gvReal).x))
	}
	panic("internal error: exec: GenerateGo: operator " + e.Op.String())
}

// scalarOp is a binary operator on scalars. Two constant operands are
// not folded by the Go compiler (whose exact constant arithmetic differs
// from float64's): the left one is held in a variable.
func (g *gvGen) scalarOp(op sdql.Kind, x, y gvVal, rep *gvRep) gvVal {
	if x.konst && y.konst {
		x = g.local("c", x)
	}
	bin := func(a gvVal, sym string, b gvVal, p int) string {
		return par(a, p) + " " + sym + " " + par(b, p+1)
	}
	switch op {
	case sdql.ADD, sdql.SUB, sdql.MUL:
		if x.rep.base == "bool" { // or, and
			if op == sdql.ADD {
				return gvVal{rep: gvBool, x: bin(x, "||", y, precOr), prec: precOr}
			}
			return gvVal{rep: gvBool, x: bin(x, "&&", y, precAnd), prec: precAnd}
		}
		j := gvJoin(x.rep, y.rep, false)
		sym, p := map[sdql.Kind]string{sdql.ADD: "+", sdql.SUB: "-", sdql.MUL: "*"}[op], precAdd
		if op == sdql.MUL {
			p = precMul
		}
		return g.conv(gvVal{rep: j, x: bin(g.conv(x, j), sym, g.conv(y, j), p), prec: p}, rep)
	case sdql.QUO:
		return gvVal{rep: gvReal, x: bin(g.conv(x, gvReal), "/", g.conv(y, gvReal), precMul), prec: precMul}
	}
	j := gvJoin(x.rep, y.rep, false)
	return gvVal{rep: gvBool, x: bin(g.conv(x, j), gvCmpOps[op], g.conv(y, j), precCmp+1), prec: precCmp}
}
