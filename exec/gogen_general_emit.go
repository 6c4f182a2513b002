// Expression translation of the general Go code generator (GoValue): each
// SDQL construct as Go statements followed by a Go expression of its value,
// mirroring sdql/eval.go.

package exec

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/nablasd/nablasd/sdql"
)

// gvOps are the Go functions of sdql.Ops ("" for the generated helpers).
var gvOps = map[string]string{"exp": "math.Exp", "log": "math.Log", "sin": "math.Sin", "cos": "math.Cos",
	"tan": "math.Tan", "sqrt": "math.Sqrt", "tanh": "math.Tanh", "abs": "math.Abs", "sigmoid": "", "sign": ""}

// gvReserved are predeclared names generated code uses besides goReserved's.
var gvReserved = map[string]bool{"panic": true, "nil": true, "ok": true}

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
		case "sign":
			f = g.helperSign()
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

// open starts a loop over a dictionary value, binding its keys to the
// local kn and its values to vn ("" where unused), and returns the Go
// expressions of the key and the value inside the loop. The caller closes
// the loop.
func (g *gvGen) open(src gvVal, kn, vn string) (string, string) {
	rangeLoop := func(x string) {
		switch {
		case kn == "" && vn == "":
			g.p("for range %s {", x)
		case vn == "":
			g.p("for %s := range %s {", kn, x)
		case kn == "":
			g.p("for _, %s := range %s {", vn, x)
		default:
			g.p("for %s, %s := range %s {", kn, vn, x)
		}
		g.mark(kn, vn)
	}
	switch src.rep.kind {
	case gvMap:
		rangeLoop(src.x)
		return kn, vn
	case gvSeq:
		if src.lo == "" {
			rangeLoop(src.x)
			return kn, vn
		}
		i := kn
		if i == "" {
			i = g.fresh("p")
		}
		g.p("for %s := %s; %s < %s; %s++ {", i, src.lo, i, src.hi, i)
		if vn != "" {
			g.p("%s := %s[%s]", vn, src.x, i)
			g.mark(vn)
		}
		return i, vn
	case gvRange:
		i := kn
		if i == "" {
			i = vn
		}
		if i == "" {
			i = g.fresh("i")
		}
		g.p("for %s := %s; %s < %s; %s++ {", i, src.lo, i, src.hi, i)
		return i, i
	}
	panic("internal error: exec: GenerateGo: iterating a scalar")
}

// loop opens the loop of a sum over src and returns its body's
// environment.
func (g *gvGen) loop(src gvVal, e *sdql.SumExpr, env *gvEnv) *gvEnv {
	kUsed := e.Key.Name != e.Val.Name && gvLive(e.Body, e.Key.Name)
	vUsed := gvLive(e.Body, e.Val.Name)
	kn, vn := "", ""
	if kUsed {
		kn = g.fresh(e.Key.Name)
	}
	if vUsed {
		vn = g.fresh(e.Val.Name)
		if src.rep.kind == gvRange && kUsed {
			vn = kn // a range binds each key as its value
		}
	}
	k, v := g.open(src, kn, vn)
	if kUsed {
		env = env.with(e.Key.Name, gvAtomic(gvInt, k))
	}
	if vUsed {
		env = env.with(e.Val.Name, gvAtomic(src.rep.elem(), v))
	}
	return env
}

// sum folds the body over the source with semi-ring addition into an
// accumulator it owns (the interpreter's sum).
func (g *gvGen) sum(e *sdql.SumExpr, env *gvEnv) gvVal {
	rep := g.rep(e, env)
	src := g.emit(e.Src, env)
	acc := g.fresh("acc")
	if rep.kind == gvScalar {
		g.p("var %s %s", acc, rep.base)
	} else {
		g.p("%s := %s{}", acc, rep.goType())
	}
	g.mark(acc)
	inner := g.loop(src, e, env)
	g.accumulate(acc, rep, e.Body, inner, false)
	g.p("}")
	return gvAtomic(rep, acc)
}

// accumulate adds e's value into the accumulator acc (a variable, or a
// map's entry when entry is set) in place. Conditionals, lets, sums into
// maps and one-entry dictionaries are taken apart instead of built and
// then added.
func (g *gvGen) accumulate(acc string, rep *gvRep, e sdql.Expr, env *gvEnv, entry bool) {
	switch x := e.(type) {
	case *sdql.IfExpr:
		// an entry of a map gets its key whatever the condition
		if entry && x.Else == nil {
			break
		}
		c := g.emit(x.Cond, env)
		g.p("if %s {", c.x)
		g.accumulate(acc, rep, x.Then, env, entry)
		if x.Else != nil {
			g.p("} else {")
			g.accumulate(acc, rep, x.Else, env, entry)
		}
		g.p("}")
		return
	case *sdql.LetExpr:
		g.accumulate(acc, rep, x.Body, g.let(x, env), entry)
		return
	case *sdql.SumExpr:
		// A sum of dictionaries adds each term: the same keys and values
		// as adding the inner sum, but for the order of real additions.
		if rep.kind != gvMap {
			break
		}
		g.rep(x, env)
		inner := g.loop(g.emit(x.Src, env), x, env)
		g.accumulate(acc, rep, x.Body, inner, false)
		g.p("}")
		return
	case *sdql.BinaryExpr:
		if g.addScaled(acc, rep, x, env) {
			return
		}
	case *sdql.DictExpr:
		if len(x.Entries) != 1 || rep.kind != gvMap {
			break
		}
		en := x.Entries[0]
		k := g.key(en.Key, env)
		switch en.Val.(type) {
		case *sdql.IfExpr, *sdql.LetExpr:
			k.x = g.holdInt("k", k.x)
		}
		if rep.val.kind == gvScalar {
			if rep.val.base == "bool" {
				k.x = g.holdInt("k", k.x)
			}
			g.accumulate(acc+"["+k.x+"]", rep.val, en.Val, env, true)
			return
		}
		k.x = g.holdInt("k", k.x)
		g.accumulate(g.row(acc, rep, k.x), rep.val, en.Val, env, false)
		return
	}
	g.addValue(acc, rep, g.emit(e, env))
}

// addScaled adds a product of a number and a dictionary of numbers into
// the map acc entry by entry, without building the product; it reports
// whether e is such a product.
func (g *gvGen) addScaled(acc string, rep *gvRep, e *sdql.BinaryExpr, env *gvEnv) bool {
	if e.Op != sdql.MUL || rep.kind != gvMap || rep.val.kind != gvScalar {
		return false
	}
	a, b := g.rep(e.X, env), g.rep(e.Y, env)
	if a.isDict() == b.isDict() || a.isDict() && a.elem().kind != gvScalar || b.isDict() && b.elem().kind != gvScalar {
		return false
	}
	x, y := g.emit(e.X, env), g.emit(e.Y, env)
	dict, k, v := y, "", ""
	if a.isDict() {
		dict = x
	}
	vn := g.fresh("v")
	if dict.rep.kind == gvRange {
		vn = ""
	}
	if a.isDict() {
		y = g.hold("s", y)
		k, v = g.open(dict, g.fresh("k"), vn)
		x = gvAtomic(dict.rep.elem(), v)
	} else {
		x = g.hold("s", x)
		k, v = g.open(dict, g.fresh("k"), vn)
		y = gvAtomic(dict.rep.elem(), v)
	}
	prod := gvVal{rep: gvMul(x.rep, y.rep), x: scalarProduct(x.x, x.rep, y.x, y.rep), prec: precMul}
	if prod.rep.base == "bool" {
		prod.prec = precAnd
	}
	g.addScalar(acc+"["+k+"]", rep.val, prod)
	g.p("}")
	return true
}

// row returns the map at key k of the map m, adding an empty one when k
// is not there.
func (g *gvGen) row(m string, rep *gvRep, k string) string {
	r, ok := g.fresh("row"), g.fresh("found")
	g.p("%s, %s := %s[%s]", r, ok, m, k)
	g.p("if !%s {", ok)
	g.p("%s = %s{}", r, rep.val.goType())
	g.p("%s[%s] = %s", m, k, r)
	g.p("}")
	return r
}

// addScalar adds the scalar v into the scalar target (bools or).
func (g *gvGen) addScalar(target string, rep *gvRep, v gvVal) {
	v = g.conv(v, rep)
	if rep.base == "bool" {
		g.p("%s = %s || %s", target, target, par(v, precOr+1))
		return
	}
	g.p("%s += %s", target, v.x)
}

// addValue adds v into the accumulator acc in place.
func (g *gvGen) addValue(acc string, rep *gvRep, v gvVal) {
	if rep.kind == gvScalar {
		g.addScalar(acc, rep, v)
		return
	}
	if (v.rep.kind == gvSeq || v.rep.kind == gvRange) && rep.val.kind == gvScalar {
		vn := ""
		if v.rep.kind == gvSeq {
			vn = g.fresh("x")
		}
		k, x := g.open(v, g.fresh("k"), vn)
		g.addScalar(acc+"["+k+"]", rep.val, gvAtomic(v.rep.elem(), x))
		g.p("}")
		return
	}
	g.p("%s(%s, %s)", g.helperAddInto(rep), acc, g.conv(v, rep).x)
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

// oneHot is onehot[T] x (sdql.OneHot): for every stored index path
// i1..in of x, the entry {i1 -> ... {in -> {i1 -> ... {in -> 1}}}}.
func (g *gvGen) oneHot(e *sdql.OneHotExpr, env *gvEnv) gvVal {
	n := sdql.Order(e.T)
	if n <= 0 {
		return gvConst(gvReal, "1.0")
	}
	rep := g.rep(e, env)
	x := g.emit(e.X, env)
	out := g.fresh("onehot")
	g.p("%s := %s{}", out, rep.goType())
	var keys []string
	var walk func(v gvVal)
	walk = func(v gvVal) {
		vn := ""
		if len(keys)+1 < n {
			vn = g.fresh("x")
		}
		k, val := g.open(v, g.fresh("i"), vn)
		keys = append(keys, k)
		if len(keys) < n {
			walk(gvAtomic(v.rep.elem(), val))
		} else {
			cur, crep := out, rep
			for _, k := range keys[:n-1] {
				cur, crep = g.row(cur, crep, k), crep.val
			}
			inner := "1.0"
			for i := n - 1; i >= 1; i-- {
				inner = "{" + keys[i] + ": " + inner + "}"
			}
			g.p("%s[%s] = %s{%s: %s}", cur, keys[n-1], crep.val.goType(), keys[0], inner)
		}
		keys = keys[:len(keys)-1]
		g.p("}")
	}
	walk(x)
	return gvAtomic(rep, out)
}
