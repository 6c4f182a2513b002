package ad

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// transposer transposes a linear program on semiring dictionaries ("You
// Only Linearize Once", T; doc/spec.md states the rules). Given the
// cotangent ct of a linear expression ė — of type typeof(ė) ⊗ ρ, where ρ is
// real for a gradient or a vector–Jacobian product and the result's type
// for a whole Jacobian — it emits the lets that compute the cotangents of
// the linear variables ė mentions, and returns, per variable, the
// contributions to add up:
//
//	ẋ                   x̄ += ct
//	ė1 + ė2, ė1 - ė2    ė1 gets ct, ė2 gets ct (-ct)             (fan-in becomes fan-out)
//	p * ė, ė * p, ė / p ė gets p * ct (ct / p)                   (scaling stays scaling)
//	p ⊗ ė, ė ⊗ p        ė gets ct contracted with p over p's indices
//	{k -> ė}            ė gets ct(k)                             (a singleton becomes a lookup)
//	ė(k)                ė gets {k -> ct}                         (a lookup becomes a singleton)
//	sum(<k, v> in p) ė  x̄ += sum(<k, v> in p) (ė's contribution) (a sum over keys becomes a scatter)
//	if c then ė1 else ė2  x̄ += if c then (ė1's) else (ė2's)
//	let ẏ = ė1 in ė2    transpose ė2, let ȳ = its contributions to ẏ, then
//	                    transpose ė1 with ȳ                      (a let becomes an accumulation)
//	let y = p in ė      let y = p in (ė transposed)              (primal lets stay)
//
// p, k and c are non-linear: they mention no linear variable. A sum's
// source is always non-linear (forward mode iterates the primal), so the
// transposed loop runs over the same keys as the primal one.
type transposer struct {
	types  map[sdql.Expr]sdql.Type
	linear map[string]bool
	// varType gives the type of every linear variable.
	varType map[string]sdql.Type
	rho     sdql.Type
	names   *namer
	// free answers isLinear
	free *sdql.FreeIndex
}

// contribs are the cotangent contributions per linear variable.
type contribs map[string][]sdql.Expr

func (c contribs) add(name string, e sdql.Expr) { c[name] = append(c[name], e) }

func (c contribs) merge(d contribs) {
	for n, es := range d {
		c[n] = append(c[n], es...)
	}
}

func (c contribs) sorted() []string {
	names := make([]string, 0, len(c))
	for n := range c {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

type notLinear struct{ msg string }

func (t *transposer) fail(format string, args ...any) {
	panic(notLinear{fmt.Sprintf(format, args...)})
}

// run transposes ė with the cotangent ct (an atom), appending lets to bs.
func (t *transposer) run(e sdql.Expr, ct sdql.Expr, bs *[]binding) (acc contribs, err error) {
	defer func() {
		if p := recover(); p != nil {
			nl, ok := p.(notLinear)
			if !ok {
				panic(p)
			}
			err = fmt.Errorf("internal error: ad: cannot transpose: %s", nl.msg)
		}
	}()
	acc = contribs{}
	if t.isLinear(e) { // else the derivative is zero (zero propagation left no tangent)
		t.expr(e, ct, bs, acc)
	}
	return acc, nil
}

func (t *transposer) isLinear(e sdql.Expr) bool {
	if t.free == nil {
		t.free = sdql.NewFreeIndex()
	}
	return t.free.Mentions(e, t.linear)
}

func (t *transposer) order(e sdql.Expr) int {
	ty := t.types[e]
	if ty == nil {
		t.fail("untyped %s", sdql.PrintFlat(e))
	}
	return sdql.Order(ty)
}

// ctType is the type of the cotangent of a value of type ty.
func (t *transposer) ctType(ty sdql.Type) sdql.Type { return sdql.Outer(ty, t.rho) }

// bind returns an atom for v, binding it to a fresh name based on base
// unless it is one already.
func (t *transposer) bind(bs *[]binding, base string, v sdql.Expr) sdql.Expr {
	if isAtom(v) {
		return v
	}
	n := t.names.fresh(base)
	*bs = append(*bs, binding{binder(n), v})
	return ident(n)
}

// total adds up the contributions to a variable of type ty.
func (t *transposer) total(cs []sdql.Expr, ty sdql.Type) sdql.Expr {
	if len(cs) == 0 {
		return &sdql.ZeroExpr{T: t.ctType(ty)}
	}
	out := cs[0]
	for _, c := range cs[1:] {
		out = bin(out, sdql.ADD, c)
	}
	return out
}

// barName is the name of a cotangent: the variable's stem and "bar"
// (h' ↦ hbar).
func barName(name string) string {
	return strings.TrimRight(name, "'") + "bar"
}

func (t *transposer) expr(e sdql.Expr, ct sdql.Expr, bs *[]binding, acc contribs) {
	if !t.isLinear(e) {
		t.fail("%s is not linear", sdql.PrintFlat(e))
	}
	switch x := e.(type) {
	case *sdql.Ident:
		acc.add(x.Name, ct)
	case *sdql.LetExpr:
		t.let(x, ct, bs, acc)
	case *sdql.SumExpr:
		if t.isLinear(x.Src) {
			t.fail("the source of %s is linear", sdql.PrintFlat(e))
		}
		var inner []binding
		in := contribs{}
		t.expr(x.Body, ct, &inner, in)
		for _, u := range in.sorted() {
			body := wrapNeeded(inner, t.total(in[u], t.varType[u]))
			acc.add(u, &sdql.SumExpr{Key: x.Key, Val: x.Val, Src: clone(x.Src), Body: body})
		}
	case *sdql.IfExpr:
		t.ifExpr(x, ct, acc)
	case *sdql.DictExpr:
		for _, en := range x.Entries {
			if !t.isLinear(en.Val) {
				t.fail("the entry %s of a linear dictionary is not linear", sdql.PrintFlat(en.Val))
			}
			c := t.bind(bs, "ct", &sdql.LookupExpr{X: clone(ct), Key: clone(en.Key)})
			t.expr(en.Val, c, bs, acc)
		}
	case *sdql.LookupExpr:
		c := t.bind(bs, "ct", &sdql.DictExpr{Entries: []sdql.Entry{{Key: clone(x.Key), Val: clone(ct)}}})
		t.expr(x.X, c, bs, acc)
	case *sdql.UnaryExpr:
		if x.Op != sdql.SUB {
			t.fail("%s is not linear", sdql.PrintFlat(e))
		}
		t.expr(x.X, t.neg(ct, bs), bs, acc)
	case *sdql.BinaryExpr:
		t.binary(x, ct, bs, acc)
	default:
		t.fail("%s is not linear", sdql.PrintFlat(e))
	}
}

func (t *transposer) neg(ct sdql.Expr, bs *[]binding) sdql.Expr {
	return t.bind(bs, "ct", &sdql.UnaryExpr{Op: sdql.SUB, X: clone(ct)})
}

// let transposes a chain of lets: the primal ones are kept in order, the
// body is transposed, then each linear one in reverse order with the
// cotangent its uses added up.
func (t *transposer) let(x *sdql.LetExpr, ct sdql.Expr, bs *[]binding, acc contribs) {
	var lin []binding
	for i, n := range x.Names {
		if t.linear[n.Name] {
			lin = append(lin, binding{n, x.Values[i]})
		} else if n.Name != "_" {
			*bs = append(*bs, binding{n, clone(x.Values[i])})
		}
	}
	t.expr(x.Body, ct, bs, acc)
	for i := len(lin) - 1; i >= 0; i-- {
		n := lin[i].name.Name
		cs := acc[n]
		delete(acc, n)
		if len(cs) == 0 {
			continue
		}
		c := t.bind(bs, barName(n), t.total(cs, t.varType[n]))
		t.expr(lin[i].val, c, bs, acc)
	}
}

func (t *transposer) ifExpr(x *sdql.IfExpr, ct sdql.Expr, acc contribs) {
	if t.isLinear(x.Cond) {
		t.fail("the condition of %s is linear", sdql.PrintFlat(x))
	}
	var thenBs, elseBs []binding
	thenAcc, elseAcc := contribs{}, contribs{}
	if t.isLinear(x.Then) {
		t.expr(x.Then, ct, &thenBs, thenAcc)
	}
	if x.Else != nil && t.isLinear(x.Else) {
		t.expr(x.Else, ct, &elseBs, elseAcc)
	}
	all := contribs{}
	all.merge(thenAcc)
	all.merge(elseAcc)
	for _, u := range all.sorted() {
		out := &sdql.IfExpr{Cond: clone(x.Cond)}
		out.Then = wrapNeeded(thenBs, t.total(thenAcc[u], t.varType[u]))
		if cs := elseAcc[u]; len(cs) > 0 {
			out.Else = wrapNeeded(elseBs, t.total(cs, t.varType[u]))
		}
		acc.add(u, out)
	}
}

func (t *transposer) binary(x *sdql.BinaryExpr, ct sdql.Expr, bs *[]binding, acc contribs) {
	lx, ly := t.isLinear(x.X), t.isLinear(x.Y)
	switch x.Op {
	case sdql.ADD, sdql.SUB:
		if !lx || !ly {
			t.fail("%s adds a non-linear value", sdql.PrintFlat(x))
		}
		t.expr(x.X, ct, bs, acc)
		y := ct
		if x.Op == sdql.SUB {
			y = t.neg(ct, bs)
		}
		t.expr(x.Y, y, bs, acc)
	case sdql.MUL:
		switch {
		case lx && !ly: // ė * p
			p := x.Y
			if t.order(p) <= 0 {
				t.expr(x.X, t.bind(bs, "ct", bin(clone(p), sdql.MUL, clone(ct))), bs, acc)
				return
			}
			pa := t.bind(bs, "p", clone(p))
			t.expr(x.X, t.bind(bs, "ct", t.contractRight(ct, pa, t.order(x.X), t.order(p))), bs, acc)
		case ly && !lx: // p * ė
			p := x.X
			if t.order(p) <= 0 {
				t.expr(x.Y, t.bind(bs, "ct", bin(clone(p), sdql.MUL, clone(ct))), bs, acc)
				return
			}
			pa := t.bind(bs, "p", clone(p))
			t.expr(x.Y, t.bind(bs, "ct", t.contract(pa, ct, t.order(p))), bs, acc)
		default:
			t.fail("%s is not linear in one operand", sdql.PrintFlat(x))
		}
	case sdql.QUO:
		if !lx || ly {
			t.fail("%s is not linear in its numerator", sdql.PrintFlat(x))
		}
		t.expr(x.X, t.bind(bs, "ct", bin(clone(ct), sdql.QUO, clone(x.Y))), bs, acc)
	default:
		t.fail("%s is not linear", sdql.PrintFlat(x))
	}
}

// contract is Σ over p's m indices of p(i1)...(im) * c(i1)...(im): the
// cotangent of ė in p ⊗ ė, where c has type P ⊗ E ⊗ ρ.
//
//	sum(<i1, q1> in p) let c1 = c(i1) in ... sum(<im, qm> in q(m-1)) let cm = c(m-1)(im) in qm * cm
func (t *transposer) contract(p, c sdql.Expr, m int) sdql.Expr {
	keys := make([]string, m)
	vals := make([]string, m)
	cts := make([]string, m)
	for i := range m {
		keys[i], vals[i], cts[i] = t.names.fresh("i"), t.names.fresh("q"), t.names.fresh("c")
	}
	var body sdql.Expr = bin(ident(vals[m-1]), sdql.MUL, ident(cts[m-1]))
	for i := m - 1; i >= 0; i-- {
		var from sdql.Expr = clone(c)
		if i > 0 {
			from = ident(cts[i-1])
		}
		var src sdql.Expr = clone(p)
		if i > 0 {
			src = ident(vals[i-1])
		}
		body = &sdql.LetExpr{Names: []sdql.Binder{binder(cts[i])}, Values: []sdql.Expr{&sdql.LookupExpr{X: from, Key: ident(keys[i])}}, Body: body}
		body = &sdql.SumExpr{Key: binder(keys[i]), Val: binder(vals[i]), Src: src, Body: body}
	}
	return body
}

// contractRight is the cotangent of ė in ė ⊗ p, where ė has order n, p
// order m and c type E ⊗ P ⊗ ρ: c's first n levels are kept and the rest
// contracted with p.
//
//	sum(<e1, d1> in c) { e1 -> ... sum(<en, dn> in d(n-1)) { en -> contract(p, dn) } }
func (t *transposer) contractRight(c, p sdql.Expr, n, m int) sdql.Expr {
	if n == 0 {
		return t.contract(p, c, m)
	}
	keys := make([]string, n)
	vals := make([]string, n)
	for i := range n {
		keys[i], vals[i] = t.names.fresh("e"), t.names.fresh("d")
	}
	var body sdql.Expr = t.contract(p, ident(vals[n-1]), m)
	for i := n - 1; i >= 0; i-- {
		body = &sdql.DictExpr{Entries: []sdql.Entry{{Key: ident(keys[i]), Val: body}}}
		var src sdql.Expr = clone(c)
		if i > 0 {
			src = ident(vals[i-1])
		}
		body = &sdql.SumExpr{Key: binder(keys[i]), Val: binder(vals[i]), Src: src, Body: body}
	}
	return body
}
