// The Go generator's shortcut for BATAx's sum of row outer products: the
// Gram matrix built row by row (Gustavson's algorithm).

package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// gram generates a matrix result accumulated from the outer products of
// the rows of a compressed level (BATAx's beta * A^T A),
//
//	sum(<_, i> in (L:H))
//	  let r = sum(<p, j> in X(P(i):P(i+1))) { j -> W } in
//	  sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> E } }
//
// row by row (Gustavson): the level's positions grouped by key (a
// transpose), then for each result row j1 the rows i holding j1 scattered
// into a dense workspace marked per row, whose entries are appended to
// dst[j1] (empty on entry) without hashing, or with GoCSR appended to the
// destination's flat Idx and Val as the row's keys are discovered, as a
// hand-written Gustavson loop does. The sums run over the same (i, p, p1)
// as the program's, in another order.
func (g *gogen) gram(prog sdql.Expr) bool {
	if g.layout != GoRows && g.layout != GoCSR {
		return false
	}
	csr := g.layout == GoCSR
	s, ok := prog.(*sdql.SumExpr)
	if !ok || s.Key.Name != "_" || s.Val.Name == "_" {
		return false
	}
	rg, ok := s.Src.(*sdql.RangeExpr)
	if !ok {
		return false
	}
	i := s.Val.Name
	let, ok := s.Body.(*sdql.LetExpr)
	if !ok || len(let.Names) != 1 {
		return false
	}
	r := let.Names[0].Name
	rv, ok := let.Values[0].(*sdql.SumExpr)
	if !ok || rv.Key.Name == "_" || rv.Val.Name == "_" {
		return false
	}
	pn, jn := rv.Key.Name, rv.Val.Name
	jk, W, ok := single(rv.Body)
	if !ok {
		return false
	}
	if jk, _ = stripUnique(jk); !isName(jk, jn) || kindOf(g.typeOf(W)) == kDict {
		return false
	}
	sl, ok := rv.Src.(*sdql.SliceExpr)
	if !ok {
		return false
	}
	x, ok1 := sl.X.(*sdql.Ident)
	lo, ok2 := sl.Lo.(*sdql.LookupExpr)
	hi, ok3 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || !ok3 || !isName(lo.Key, i) || !isPlusOne(hi.Key, i) || !sameIdent(lo.X, hi.X) {
		return false
	}
	pp, _ := lo.X.(*sdql.Ident)
	if pp == nil || !g.params[pp.Name] || !g.params[x.Name] || g.vars[pp.Name].kind != "arrI" || g.vars[x.Name].kind != "arrI" {
		return false
	}
	o, ok := let.Body.(*sdql.SumExpr)
	if !ok || !isName(o.Src, r) || o.Key.Name == "_" {
		return false
	}
	k1, in1, ok := single(o.Body)
	if !ok {
		return false
	}
	if k1, _ = stripUnique(k1); !isName(k1, o.Key.Name) {
		return false
	}
	in, ok := in1.(*sdql.SumExpr)
	if !ok || !isName(in.Src, r) || in.Key.Name == "_" {
		return false
	}
	k2, E, ok := single(in.Body)
	if !ok {
		return false
	}
	if k2, _ = stripUnique(k2); !isName(k2, in.Key.Name) || kindOf(g.typeOf(E)) == kDict {
		return false
	}
	names := []string{i, r, pn, jn, o.Key.Name, o.Val.Name, in.Key.Name, in.Val.Name}
	seen := map[string]bool{}
	for _, n := range names {
		if n != "_" && (seen[n] || g.vars[n] != nil) {
			return false
		}
		seen[n] = true
	}
	if mentions(W, r) || mentions(E, r, i, pn, jn) || mentions(rg.Lo, i) || mentions(rg.Hi, i) {
		return false
	}
	save := g.clone()
	defer func() { g.vars = save }()
	P, X := pp.Name, x.Name
	L, H := g.int(rg.Lo), g.int(rg.Hi)
	n := g.name("n")
	if csr {
		g.p("%s := len(dst.Pos) - 1", n)
	} else {
		g.p("%s := len(dst)", n)
	}
	// the level's positions grouped by key
	cnt := g.scratch("cnt", n+" + 1", "int")
	ig, pg := g.name(i), g.name(pn)
	g.p("for %s := %s; %s < %s; %s++ {", ig, L, ig, H, ig)
	g.p("for %s := %s[%s]; %s < %s[%s+1]; %s++ {", pg, P, ig, pg, P, ig, pg)
	g.p("%s[%s[%s]+1]++", cnt, X, pg)
	g.p("}")
	g.p("}")
	j := g.name("j")
	g.p("for %s := 0; %s < %s; %s++ {", j, j, n, j)
	g.p("%s[%s+1] += %s[%s]", cnt, j, cnt, j)
	g.p("}")
	nz := g.name("nz")
	g.p("%s := %s[%s]", nz, cnt, n)
	ti := g.scratchC("rows", nz, "int", false)
	tv := g.scratchC("vals", nz, "float64", false)
	next := g.scratchC("next", n, "int", false)
	g.p("copy(%s, %s)", next, cnt)
	g.p("for %s := %s; %s < %s; %s++ {", ig, L, ig, H, ig)
	g.p("for %s := %s[%s]; %s < %s[%s+1]; %s++ {", pg, P, ig, pg, P, ig, pg)
	q := g.name("q")
	g.p("%s := %s[%s[%s]]", q, next, X, pg)
	g.p("%s[%s[%s]]++", next, X, pg)
	// the value W of each position, computed in the level's order
	g.vars[i] = &gvar{kind: "int", g: ig}
	g.vars[pn] = &gvar{kind: "int", g: pg}
	g.vars[jn] = &gvar{kind: "int", g: X + "[" + pg + "]"}
	g.p("%s[%s], %s[%s] = %s, %s", ti, q, tv, q, ig, g.real(W))
	g.p("}")
	g.p("}")
	// row by row
	w := g.zeros("w", n)
	mark := g.scratch("mark", n, "int")
	if csr {
		g.csrCapacity(n, L, H, P, X, cnt, ti, mark)
	}
	keys := g.name("keys")
	var vals string
	switch {
	case csr: // the keys of every row, appended to dst.Idx
		vals = g.name("vals")
		g.p("%s, %s := dst.Idx[:0], dst.Val[:0]", keys, vals)
	case g.wsOK:
		g.work = append(g.work, "keys []int")
		g.p("%s := ws.keys[:0]", keys)
	default:
		g.p("var %s []int", keys)
	}
	j1 := g.name(nonBlank(o.Key.Name, "j1"))
	g.p("for %s := 0; %s < %s; %s++ {", j1, j1, n, j1)
	start0 := ""
	if csr {
		start0 = g.name("start")
		g.p("%s := len(%s)", start0, keys)
	} else {
		g.p("%s = %s[:0]", keys, keys)
	}
	g.p("for %s := %s[%s]; %s < %s[%s+1]; %s++ {", q, cnt, j1, q, cnt, j1, q)
	g.p("%s := %s[%s]", ig, ti, q)
	g.vars[i] = &gvar{kind: "int", g: ig}
	g.vars[o.Key.Name] = &gvar{kind: "int", g: j1}
	if o.Val.Name != "_" {
		v := g.name(o.Val.Name)
		g.p("%s := %s[%s]", v, tv, q)
		g.vars[o.Val.Name] = &gvar{kind: "real", g: v}
	}
	// the entries of row i, E's factors not of them computed once
	h := g.hoist(&sdql.SumExpr{Key: in.Key, Val: in.Val, Body: in.Body})
	_, E, _ = single(h.Body)
	p1 := g.name(pn)
	start := g.b.Len()
	g.p("for %s, %s_end := %s[%s], %s[%s+1]; %s < %s_end; %s++ {", p1, p1, P, ig, P, ig, p1, p1, p1)
	k := g.name("k")
	g.p("%s := %s[%s]", k, X, p1)
	g.vars[pn] = &gvar{kind: "int", g: p1}
	g.vars[jn] = &gvar{kind: "int", g: k}
	g.vars[in.Key.Name] = &gvar{kind: "int", g: k}
	if in.Val.Name != "_" {
		v1 := g.name(in.Val.Name)
		g.p("%s := %s", v1, g.real(W))
		g.vars[in.Val.Name] = &gvar{kind: "real", g: v1}
	}
	e := g.real(E)
	g.p("if %s[%s] != %s+1 {", mark, k, j1)
	g.p("%s[%s] = %s + 1", mark, k, j1)
	g.p("%s[%s] = 0", w, k)
	g.p("%s = append(%s, %s)", keys, keys, k)
	g.p("}")
	g.p("%s[%s] += %s", w, k, e)
	g.p("}")
	g.bceSlice(start, p1, P+"["+ig+"]", P+"["+ig+"+1]")
	g.p("}")
	if csr {
		g.p("for _, %s := range %s[%s:] {", k, keys, start0)
		g.p("%s = append(%s, %s[%s])", vals, vals, w, k)
		g.p("}")
		g.p("dst.Pos[%s+1] = len(%s)", j1, keys)
		g.p("}")
		g.p("dst.Pos[0], dst.Idx, dst.Val = 0, %s, %s", keys, vals)
	} else {
		row := g.name("row")
		g.p("%s := &dst[%s]", row, j1)
		g.p("if len(%s.Keys) == 0 {", row)
		g.p("%s.AppendDense(%s, %s)", row, keys, w)
		g.p("} else {")
		g.p("for _, %s := range %s {", k, keys)
		g.p("%s.Add(%s, %s[%s])", row, k, w, k)
		g.p("}")
		g.p("}")
		g.p("}")
		if g.wsOK {
			g.p("ws.keys = %s", keys)
		}
	}
	g.writes++
	g.setOK = false
	return true
}

// csrCapacity sizes a GoCSR destination before the rows are appended: when
// its buffers may be short of the bound on the result's entries (the sum of
// the squared lengths of the level's rows), a symbolic pass counts them
// exactly and allocates the buffers once at that size, rather than letting
// append grow them ~1.25x at a time (5x the output allocated on the first
// run). dst.counted remembers the bound counted, so reruns over the same
// inputs, whose buffers fit, skip the count. mark is zero on entry and
// left zero.
func (g *gogen) csrCapacity(n, L, H, P, X, cnt, rows, mark string) {
	bound, total := g.name("bound"), g.name("total")
	i, p, q, j, k := g.name("i"), g.name("p"), g.name("q"), g.name("j"), g.name("k")
	g.p("%s := 0", bound)
	g.p("for %s := %s; %s < %s; %s++ {", i, L, i, H, i)
	g.p("%s := %s[%s+1] - %s[%s]", k, P, i, P, i)
	g.p("%s += %s * %s", bound, k, k)
	g.p("}")
	g.p("if (cap(dst.Idx) < %s || cap(dst.Val) < %s) && dst.counted != %s {", bound, bound, bound)
	g.p("dst.counted = %s", bound)
	g.p("%s := 0", total)
	g.p("for %s := 0; %s < %s; %s++ {", j, j, n, j)
	g.p("for %s := %s[%s]; %s < %s[%s+1]; %s++ {", q, cnt, j, q, cnt, j, q)
	g.p("%s := %s[%s]", i, rows, q)
	g.p("for %s := %s[%s]; %s < %s[%s+1]; %s++ {", p, P, i, p, P, i, p)
	g.p("if %s := %s[%s]; %s[%s] != %s+1 {", k, X, p, mark, k, j)
	g.p("%s[%s] = %s + 1", mark, k, j)
	g.p("%s++", total)
	g.p("}")
	g.p("}")
	g.p("}")
	g.p("}")
	g.p("clear(%s)", mark)
	g.p("if cap(dst.Idx) < %s {", total)
	g.p("dst.Idx = make([]int, 0, %s)", total)
	g.p("}")
	g.p("if cap(dst.Val) < %s {", total)
	g.p("dst.Val = make([]float64, 0, %s)", total)
	g.p("}")
	g.p("}")
}
