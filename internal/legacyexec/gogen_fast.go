package legacyexec

import (
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Shortcuts of the Go generator: whole-kernel shapes written as bulk
// operations instead of element loops.

// copyPattern generates a dense result that copies an input array,
//
//	sum(<_, i> in (0:H)) { i -> X(i) }
//	sum(<_, i> in (0:H)) { i -> if 0 <= i && i < N then X(i) }
//
// (key possibly unique(i)), as copy(dst, X) and a clear of the rest.
func (g *gogen) copyPattern(prog sdql.Expr) bool {
	s, ok := prog.(*sdql.SumExpr)
	if !ok || g.layout != GoDense {
		return false
	}
	rg, ok := s.Src.(*sdql.RangeExpr)
	if !ok || s.Key.Name != "_" || !goIsZero(rg.Lo) {
		return false
	}
	i := s.Val.Name
	key, val, ok := single(s.Body)
	if !ok {
		return false
	}
	if key, _ = stripUnique(key); !isName(key, i) || mentions(rg.Hi, i) {
		return false
	}
	var bound sdql.Expr
	if c, ok := val.(*sdql.IfExpr); ok && c.Else == nil {
		if bound = goUpperBound(c.Cond, i); bound == nil {
			return false
		}
		val = c.Then
	}
	lk, ok := val.(*sdql.LookupExpr)
	if !ok || !isName(lk.Key, i) {
		return false
	}
	x, ok := lk.X.(*sdql.Ident)
	if !ok || !g.params[x.Name] || g.vars[x.Name].kind != "arrR" {
		return false
	}
	ext := g.inputExpr(rg.Hi)
	if ext == "" {
		return false
	}
	hi := ext
	if !isSimple(hi) {
		hi = g.name("hi")
		g.p("%s := %s", hi, ext)
	}
	if bound == nil {
		g.p("copy(dst[:%s], %s[:%s])", hi, x.Name, hi)
	} else {
		b := g.inputExpr(bound)
		if b == "" {
			return false
		}
		n := g.name("n")
		g.p("%s := max(0, min(%s, %s))", n, hi, b)
		g.p("copy(dst[:%s], %s[:%s])", n, x.Name, n)
		g.p("if %s < %s {", n, hi)
		g.p("clear(dst[%s:%s])", n, hi)
		g.p("}")
	}
	g.extent = ext
	g.writes = 1
	return true
}

// goUpperBound returns N of a condition 0 <= i && i < N (or i < N; the
// operands of && in either order) on the non-negative index i.
func goUpperBound(c sdql.Expr, i string) sdql.Expr {
	b, ok := c.(*sdql.BinaryExpr)
	if !ok {
		return nil
	}
	switch b.Op {
	case sdql.LAND:
		if goNonNeg(b.X, i) {
			return goUpperBound(b.Y, i)
		}
		if goNonNeg(b.Y, i) {
			return goUpperBound(b.X, i)
		}
	case sdql.LT:
		if isName(b.X, i) && !mentions(b.Y, i) {
			return b.Y
		}
	case sdql.GT:
		if isName(b.Y, i) && !mentions(b.X, i) {
			return b.X
		}
	}
	return nil
}

// goNonNeg reports whether c is 0 <= i (or i >= 0).
func goNonNeg(c sdql.Expr, i string) bool {
	b, ok := c.(*sdql.BinaryExpr)
	if !ok {
		return false
	}
	switch b.Op {
	case sdql.LEQ:
		return goIsZero(b.X) && isName(b.Y, i)
	case sdql.GEQ:
		return isName(b.X, i) && goIsZero(b.Y)
	}
	return false
}

func goIsZero(e sdql.Expr) bool {
	l, ok := e.(*sdql.IntLit)
	return ok && l.Value == 0
}

// denseLetPositions generates a positions result iterating a let-bound
// vector guarded by a bound,
//
//	let t = D in
//	sum(<k, a> in t) if 0 <= k && k < N then
//	  sum(<q, j> in IDX(POS(k):POS(k+1))) { k -> { j -> V } }
//
// (or { k -> sum(<q, j> in ...) { j -> V } } under the guard), with V
// additive in a: t is built into a dense local of len N (keys outside
// 0:N dropped, never read), iterated densely (an absent key's a is 0 and
// adds nothing), and the result stored on the positions of IDX.
func (g *gogen) denseLetPositions(prog sdql.Expr, k *GoKernel) bool {
	let, ok := prog.(*sdql.LetExpr)
	if !ok || len(let.Names) != 1 || g.layout != GoPositions {
		return false
	}
	tn, def := let.Names[0].Name, let.Values[0]
	if tn == "_" || sdql.Order(g.typeOf(def)) != 1 || kindOf(g.typeOf(def)) != kDict {
		return false
	}
	s, ok := let.Body.(*sdql.SumExpr)
	if !ok || !isName(s.Src, tn) || s.Key.Name == "_" || s.Val.Name == "_" || s.Key.Name == s.Val.Name {
		return false
	}
	kn, an := s.Key.Name, s.Val.Name
	c, ok := s.Body.(*sdql.IfExpr)
	if !ok || c.Else != nil {
		return false
	}
	bound := goUpperBound(c.Cond, kn)
	if bound == nil || mentions(bound, tn) || mentions(bound, an) {
		return false
	}
	// the shape under the guard
	var in *sdql.SumExpr
	var j, v sdql.Expr
	if in, ok = c.Then.(*sdql.SumExpr); ok {
		k1, v1, ok := single(in.Body)
		if !ok {
			return false
		}
		if k1, _ = stripUnique(k1); !isName(k1, kn) {
			return false
		}
		if j, v, ok = single(v1); !ok {
			return false
		}
	} else {
		k1, v1, ok := single(c.Then)
		if !ok {
			return false
		}
		if k1, _ = stripUnique(k1); !isName(k1, kn) {
			return false
		}
		if in, ok = v1.(*sdql.SumExpr); !ok {
			return false
		}
		if j, v, ok = single(in.Body); !ok {
			return false
		}
	}
	if j, _ = stripUnique(j); !isName(j, in.Val.Name) || in.Key.Name == "_" || kindOf(g.typeOf(v)) == kDict {
		return false
	}
	if mentions(v, tn) || !linear(v, an) {
		return false
	}
	sl, ok := in.Src.(*sdql.SliceExpr)
	if !ok {
		return false
	}
	idx, ok1 := sl.X.(*sdql.Ident)
	lo, ok2 := sl.Lo.(*sdql.LookupExpr)
	hi, ok3 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || !ok3 || !isName(lo.Key, kn) || !isPlusOne(hi.Key, kn) || !sameIdent(lo.X, hi.X) {
		return false
	}
	pos, _ := lo.X.(*sdql.Ident)
	if pos == nil || !g.params[pos.Name] || !g.params[idx.Name] || g.vars[pos.Name].kind != "arrI" || g.vars[idx.Name].kind != "arrI" {
		return false
	}
	nb := g.inputExpr(bound)
	if nb == "" {
		return false
	}
	// t: a dense local of len max(0, N)
	t := g.zeros(tn, "max(0, "+nb+")")
	saveLoops, saveW, saveSet, saveExt := g.loops, g.writes, g.setOK, g.extent
	g.loops = nil
	g.into(def, &gdest{local: t, bounded: true})
	g.loops, g.writes, g.setOK, g.extent = saveLoops, saveW, saveSet, saveExt
	// the result, over every key of t
	save := g.clone()
	kg := g.name(kn)
	g.p("for %s := range %s {", kg, t)
	g.vars[kn] = &gvar{kind: "int", g: kg}
	if uses(in, an) > 0 {
		ag := g.name(an)
		g.p("%s := %s[%s]", ag, t, kg)
		g.vars[an] = &gvar{kind: "real", g: ag}
	}
	g.nest++
	if !mentions(v, in.Key.Name) && !mentions(v, in.Val.Name) {
		// one value for the row: a store over the row's slice of dst
		x := g.real(v)
		row := g.name("row")
		g.p("%s := dst[%s:%s]", row, g.int(sl.Lo), g.int(sl.Hi))
		q := g.name("q")
		g.p("for %s := range %s {", q, row)
		g.p("%s[%s] = %s", row, q, x)
		g.p("}")
	} else {
		g.loop(in, func() {
			g.p("dst[%s] = %s", g.vars[in.Key.Name].g, g.real(v))
		})
	}
	g.nest--
	g.p("}")
	g.vars = save
	g.writes++
	k.Pos, k.Idx, k.Extent = pos.Name, idx.Name, "len("+idx.Name+")"
	return true
}

// flatten rewrites a sum over the rows of a compressed level,
//
//	sum(<_, i> in (L:H)) sum(<q, j> in X(P(i):P(i+1))) B      (B without i)
//
// as the one loop sum(<q, j> in X(P(L):P(H))) B, P being a position
// array of the inputs (NAME_pos, non-decreasing: the rows' segments are
// consecutive). It returns nil when e is not of that shape, else the loop
// and the condition L < H under which it runs.
func (g *gogen) flatten(e *sdql.SumExpr) (*sdql.SumExpr, string) {
	rg, ok := e.Src.(*sdql.RangeExpr)
	if !ok || e.Key.Name != "_" {
		return nil, ""
	}
	i := e.Val.Name
	in, ok := e.Body.(*sdql.SumExpr)
	if !ok || i == "_" || mentions(in.Body, i) || in.Key.Name == i || in.Val.Name == i {
		return nil, ""
	}
	sl, ok := in.Src.(*sdql.SliceExpr)
	if !ok {
		return nil, ""
	}
	x, ok1 := sl.X.(*sdql.Ident)
	lo, ok2 := sl.Lo.(*sdql.LookupExpr)
	hi, ok3 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || !ok3 || !isName(lo.Key, i) || !isPlusOne(hi.Key, i) || !sameIdent(lo.X, hi.X) {
		return nil, ""
	}
	p, _ := lo.X.(*sdql.Ident)
	if p == nil || !g.params[p.Name] || !g.params[x.Name] || g.vars[p.Name].kind != "arrI" || !strings.HasSuffix(p.Name, "_pos") {
		return nil, ""
	}
	if k := g.vars[x.Name].kind; k != "arrI" && k != "arrR" {
		return nil, ""
	}
	if mentions(rg.Lo, i) || mentions(rg.Hi, i) {
		return nil, ""
	}
	nlo := &sdql.LookupExpr{X: p, Key: rg.Lo}
	nhi := &sdql.LookupExpr{X: p, Key: rg.Hi}
	src := &sdql.SliceExpr{X: x, Lo: nlo, Hi: nhi}
	f := &sdql.SumExpr{Key: in.Key, Val: in.Val, Src: src, Body: in.Body}
	g.extra[nlo], g.extra[nhi] = sdql.IntType, sdql.IntType
	g.extra[src] = g.typeOf(sl)
	g.extra[f] = g.typeOf(in)
	return f, g.int(rg.Lo) + " < " + g.int(rg.Hi)
}

// zeros declares a local named close to base holding n zeros: a slice
// of the workspace when the kernel takes one, else a new slice.
func (g *gogen) zeros(base, n string) string { return g.scratch(base, n, "float64") }

// scratch is zeros of element type typ (float64 or int).
func (g *gogen) scratch(base, n, typ string) string {
	return g.scratchC(base, n, typ, true)
}

// scratchC is scratch, the workspace's slice cleared when clr (else its
// contents are stale: the kernel overwrites them).
func (g *gogen) scratchC(base, n, typ string, clr bool) string {
	t := g.name(base)
	if !g.wsOK {
		g.p("%s := make([]%s, %s)", t, typ, n)
		return t
	}
	f := "f" + strconv.Itoa(len(g.work))
	g.work = append(g.work, f+" []"+typ)
	if !isSimple(n) {
		m := g.name("n")
		g.p("%s := %s", m, n)
		n = m
	}
	g.p("if cap(ws.%s) < %s {", f, n)
	g.p("ws.%s = make([]%s, %s)", f, typ, n)
	g.p("}")
	g.p("%s := ws.%s[:%s]", t, f, n)
	if clr {
		g.p("clear(%s)", t)
	}
	return t
}

// hoist moves the factors of a sum's single scalar entry that do not
// depend on the sum's variables out of its loop:
//
//	sum(<k, v> in S) { K -> X * Y }  ->  c := X; sum(<k, v> in S) { K -> c * Y }
//
// (X of scalar variables, literals and arithmetic only, so evaluating it
// before a loop that may not run is harmless). It returns e when nothing
// moves.
func (g *gogen) hoist(e *sdql.SumExpr) *sdql.SumExpr {
	key, val, ok := single(e.Body)
	if !ok || kindOf(g.typeOf(val)) != kReal {
		return e
	}
	var inv, vary []sdql.Expr
	var factors func(x sdql.Expr)
	factors = func(x sdql.Expr) {
		if b, ok := x.(*sdql.BinaryExpr); ok && b.Op == sdql.MUL && kindOf(g.typeOf(b.X)) == kReal && kindOf(g.typeOf(b.Y)) == kReal {
			factors(b.X)
			factors(b.Y)
			return
		}
		if !mentions(x, e.Key.Name, e.Val.Name) && g.pureScalar(x) {
			inv = append(inv, x)
		} else {
			vary = append(vary, x)
		}
	}
	factors(val)
	if len(inv) == 0 || len(vary) == 0 || len(inv) == 1 && isSimple(g.realNoEmit(inv[0])) {
		return e
	}
	c := inv[0]
	for _, x := range inv[1:] {
		m := &sdql.BinaryExpr{X: c, Op: sdql.MUL, Y: x}
		g.extra[m] = sdql.RealType
		c = m
	}
	n := g.name("c")
	g.p("%s := %s", n, g.real(c))
	id := &sdql.Ident{Name: n + "·"}
	g.extra[id] = sdql.RealType
	g.vars[id.Name] = &gvar{kind: "real", g: n}
	var prod sdql.Expr = id
	for _, x := range vary {
		m := &sdql.BinaryExpr{X: prod, Op: sdql.MUL, Y: x}
		g.extra[m] = sdql.RealType
		prod = m
	}
	d := &sdql.DictExpr{Entries: []sdql.Entry{{Key: key, Val: prod}}}
	g.extra[d] = g.typeOf(e.Body)
	f := &sdql.SumExpr{Key: e.Key, Val: e.Val, Src: e.Src, Body: d}
	g.extra[f] = g.typeOf(e)
	return f
}

// pureScalar reports whether x is scalar variables, literals and
// arithmetic only (no lookups, loops or branches).
func (g *gogen) pureScalar(x sdql.Expr) bool {
	ok := true
	sdql.Inspect(x, func(y sdql.Expr) bool {
		switch y := y.(type) {
		case *sdql.Ident:
			if v := g.vars[y.Name]; v == nil || v.kind != "real" && v.kind != "int" {
				ok = false
			}
		case *sdql.IntLit, *sdql.RealLit, *sdql.BinaryExpr, *sdql.UnaryExpr, *sdql.CallExpr:
		default:
			ok = false
		}
		return ok
	})
	return ok
}

// realNoEmit is the Go of a pure scalar without emitting statements.
func (g *gogen) realNoEmit(x sdql.Expr) string {
	if id, ok := x.(*sdql.Ident); ok {
		if v := g.vars[id.Name]; v != nil {
			return v.g
		}
	}
	return "?"
}
