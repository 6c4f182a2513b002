package exec

import "github.com/nablasd/nablasd/sdql"

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
