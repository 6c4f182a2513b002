package ad

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Stages are the programs of a gradient, as `nablasd plan` prints them.
type Stages struct {
	// ANF is the input program in A-normal form.
	ANF sdql.Expr
	// Derivative is the gradient macro of Fig. 7 over ANF: tangent inputs
	// (zero[T ⊗ τ] or onehot[τ] x) bound around D_τ[[ANF]].
	Derivative sdql.Expr
	// Sparse is Derivative after Sparsify.
	Sparse sdql.Expr
	// Wrt is the type τ of the variable the gradient is taken with respect to.
	Wrt sdql.Type
}

// Grad returns the gradient of e with respect to its input wrt (Fig. 7,
// `gradient e wrt`): a program closed except for e's inputs whose value,
// for a result of type tensor n and wrt of type tensor m, is a tensor
// (n+m) with the result's indices first, given on wrt's stored positions.
// inputs gives the types of e's inputs; missing ones are inferred.
func Grad(e sdql.Expr, wrt string, inputs map[string]sdql.Type) (sdql.Expr, error) {
	st, err := GradStages(e, wrt, inputs)
	if err != nil {
		return nil, err
	}
	return st.Sparse, nil
}

// GradStages is Grad with every stage: ANF, the derivative, and the
// sparsified derivative.
func GradStages(e sdql.Expr, wrt string, inputs map[string]sdql.Type) (*Stages, error) {
	if _, err := wrtType(e, wrt, inputs); err != nil {
		return nil, err
	}
	a := ANF(e)
	deriv, tau, err := gradient(a, wrt, inputs)
	if err != nil {
		return nil, err
	}
	sparse, err := Sparsify(deriv, inputs)
	if err != nil {
		return nil, err
	}
	return &Stages{ANF: a, Derivative: deriv, Sparse: sparse, Wrt: tau}, nil
}

// Gradient is the gradient macro of Fig. 7 applied to e as given (no ANF,
// no sparsity propagation):
//
//	let v1' = ingrad v1 x in ... let vn' = ingrad vn x in D_τ[[e]]
//
// for the free variables v1..vn of e in order of first occurrence, where
// ingrad x x = onehot[τ] x and ingrad v x = zero[typeof(v) ⊗ τ]. Inputs of
// discrete types (int, bool) have no tangent.
func Gradient(e sdql.Expr, wrt string, inputs map[string]sdql.Type) (sdql.Expr, error) {
	out, _, err := gradient(e, wrt, inputs)
	return out, err
}

func gradient(e sdql.Expr, wrt string, inputs map[string]sdql.Type) (sdql.Expr, sdql.Type, error) {
	tau, err := wrtType(e, wrt, inputs)
	if err != nil {
		return nil, nil, err
	}
	tan, err := Tensorized(e, inputs, tau)
	if err != nil {
		return nil, nil, err
	}
	var bs []binding
	for _, v := range sdql.FreeVars(e) {
		name, ok := tan.Names[v]
		if !ok {
			continue
		}
		var val sdql.Expr = &sdql.ZeroExpr{T: tan.Types[v]}
		if v == wrt {
			val = &sdql.OneHotExpr{T: tau, X: ident(v)}
		}
		bs = append(bs, binding{binder(name), val})
	}
	return wrapLets(bs, tan.Expr), tau, nil
}

// wrtType checks that wrt names an input of e of a real tensor type and
// returns that type.
func wrtType(e sdql.Expr, wrt string, inputs map[string]sdql.Type) (sdql.Type, error) {
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, err
	}
	if discrete(info.Result) {
		return nil, &sdql.Error{Pos: e.Pos(), Msg: fmt.Sprintf("cannot differentiate a program whose result has type %s (want real or a real tensor)", info.Result)}
	}
	t, ok := info.Free[wrt]
	if !ok {
		t, ok = inputs[wrt]
	}
	if !ok || t == nil {
		names := info.FreeNames()
		for n := range inputs {
			if _, dup := info.Free[n]; !dup {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		have := "it has none"
		if len(names) > 0 {
			have = "its inputs are " + strings.Join(names, ", ")
		}
		return nil, fmt.Errorf("cannot differentiate with respect to %s: not an input of the program (%s)", wrt, have)
	}
	if discrete(t) {
		return nil, &sdql.Error{Pos: firstUse(e, wrt), Msg: fmt.Sprintf("cannot differentiate with respect to %s: it has type %s (want real or a real tensor)", wrt, t)}
	}
	return t, nil
}

// firstUse returns the position of the first free occurrence of name in e.
func firstUse(e sdql.Expr, name string) sdql.Pos {
	use, _ := sdql.FirstFreeUse(e, name)
	return use.Pos
}

// ExpandOneHot replaces every onehot[tensor n] x by its definition in Fig. 7:
// 1.0 for n = 0, and otherwise
//
//	sum(<i1, v2> in x) { i1 -> ... sum(<in, _> in vn) { in -> { i1 -> ... { in -> 1 } ... } } ... }
func ExpandOneHot(e sdql.Expr) sdql.Expr {
	names := newNamer(e)
	return sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		oh, ok := x.(*sdql.OneHotExpr)
		if !ok {
			return x
		}
		n := sdql.Order(oh.T)
		if n <= 0 {
			// 1.0 rather than 1: an int literal is typed by its context,
			// and the checker cannot always type a lone 1 bound by a let
			return &sdql.RealLit{Value: 1}
		}
		keys := make([]string, n)
		vals := make([]string, n)
		for i := range keys {
			keys[i] = names.fresh("i")
			if i < n-1 {
				vals[i] = names.fresh("v")
			} else {
				vals[i] = "_"
			}
		}
		var diag sdql.Expr = intLit(1)
		for i := n - 1; i >= 0; i-- {
			diag = &sdql.DictExpr{Entries: []sdql.Entry{{Key: ident(keys[i]), Val: diag}}}
		}
		body := diag
		for i := n - 1; i >= 0; i-- {
			var src sdql.Expr = oh.X
			if i > 0 {
				src = ident(vals[i-1])
			}
			body = &sdql.SumExpr{Key: binder(keys[i]), Val: binder(vals[i]), Src: clone(src),
				Body: &sdql.DictExpr{Entries: []sdql.Entry{{Key: ident(keys[i]), Val: body}}}}
		}
		return body
	})
}
