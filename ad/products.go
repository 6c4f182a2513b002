package ad

import (
	"fmt"
	"sort"

	"github.com/nablasd/nablasd/sdql"
)

// JVP returns the Jacobian–vector product of e: its derivative in the
// direction given by tangents, which maps inputs of e to the names of
// free variables holding their tangents (of the input's type; the inputs
// not named have the zero tangent). The result has e's type. It is forward
// mode on tangents, the linearized program of Reverse bound to the given
// tangents restricted to their inputs' stored positions (Restrict), then
// unzipped and simplified.
//
// A tangent is defined on its input's stored positions, as the gradient
// is: its entries at positions the input does not store are not part of
// it (they are not directions the input can move in), so that J·v is
// ⟨grad, v⟩ for a real result and ⟨ȳ, J·v⟩ is ⟨ȳ·J, v⟩ whatever v holds
// elsewhere (doc/spec.md, "Derivatives").
func JVP(e sdql.Expr, tangents map[string]string, inputs map[string]sdql.Type) (sdql.Expr, error) {
	var wrt []string
	for w := range tangents {
		wrt = append(wrt, w)
	}
	sort.Strings(wrt)
	if err := checkRequest(e, &Request{Wrt: wrt}, inputs); err != nil {
		return nil, err
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, err
	}
	types := map[string]sdql.Type{}
	for n, t := range inputs {
		types[n] = t
	}
	for _, w := range wrt {
		name := tangents[w]
		if usesName(e, name) {
			return nil, fmt.Errorf("the tangent's name %s is an input of the program", name)
		}
		if t, ok := info.Free[w]; ok {
			types[name] = t
		} else {
			types[name] = inputs[w]
		}
	}
	lin, err := linearize(e, wrt, inputs, false)
	if err != nil {
		return nil, err
	}
	names := newNamer(e, lin.primal, lin.tangent)
	var bs []binding
	for _, w := range wrt {
		names.used[tangents[w]] = true
	}
	for _, w := range wrt {
		var t sdql.Expr = ident(tangents[w])
		if !UnrestrictedTangents {
			t = onPositions(t, w, sdql.Order(types[tangents[w]]), names, "t")
		}
		bs = append(bs, binding{binder(lin.names[w]), t})
	}
	out, err := Sparsify(wrapLets(bs, unzip(lin).program()), types)
	if err != nil {
		return nil, err
	}
	return realResult(out, types)
}

// HVP returns the Hessian–vector product of a program with a real result:
// the derivative of its gradient with respect to wrt (reverse mode) in the
// direction held by the free variable named direction (of wrt's type),
// forward over reverse. Like the gradient, it is given on wrt's stored
// positions, and like a tangent (JVP) the direction is taken on them
// only.
func HVP(e sdql.Expr, wrt, direction string, inputs map[string]sdql.Type) (sdql.Expr, error) {
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, err
	}
	if info.Result != sdql.RealType {
		return nil, &sdql.Error{Pos: e.Pos(), Msg: fmt.Sprintf("a Hessian–vector product needs a program with a real result, not %s", info.Result)}
	}
	st, err := Reverse(e, &Request{Wrt: []string{wrt}}, inputs)
	if err != nil {
		return nil, err
	}
	types := map[string]sdql.Type{}
	for n, t := range info.Free {
		types[n] = t
	}
	for n, t := range inputs {
		if t != nil {
			types[n] = t
		}
	}
	return JVP(st.Result, map[string]string{wrt: direction}, types)
}

// UnrestrictedTangents, when set, makes JVP (and HVP, which is JVP of a
// gradient) read a tangent at every position, also those its input does
// not store: the definition before issue 39, which is wrong (J·v is then
// not ⟨grad, v⟩). It exists only so that the tests of the derivative
// identities (internal/crosscheck, internal/corpus) can show that they
// catch that fault; nothing else may set it.
var UnrestrictedTangents bool

// onPositions returns t, a value of the type of the input x (of order m),
// restricted to x's stored positions: the program
//
//	sum(<i1, u1> in x) let t1 = t(i1) in { i1 -> ... sum(<im, _> in u(m-1)) let tm = t(m-1)(im) in { im -> tm } ... }
//
// (t itself for a scalar, m = 0), with fresh names from names (the ti
// named after base). It is the definition of a tangent or a direction of
// x (JVP, HVP), and the last step of a reverse-mode gradient
// (transposer.restrict): the counterpart of forward mode's onehot, which
// iterates x's keys too.
func onPositions(t sdql.Expr, x string, m int, names *namer, base string) sdql.Expr {
	if m <= 0 {
		return t
	}
	is := make([]string, m)
	us := make([]string, m)
	ts := make([]string, m)
	for i := range m {
		is[i], us[i], ts[i] = names.fresh("i"), names.fresh("u"), names.fresh(base)
	}
	us[m-1] = "_"
	var body sdql.Expr = ident(ts[m-1])
	for i := m - 1; i >= 0; i-- {
		var src, from sdql.Expr = ident(x), t
		if i > 0 {
			src, from = ident(us[i-1]), ident(ts[i-1])
		}
		body = &sdql.SumExpr{Key: binder(is[i]), Val: binder(us[i]), Src: src,
			Body: &sdql.LetExpr{Names: []sdql.Binder{binder(ts[i])}, Values: []sdql.Expr{&sdql.LookupExpr{X: clone(from), Key: ident(is[i])}},
				Body: single(ident(is[i]), body)}}
	}
	return body
}
