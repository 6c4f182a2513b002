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
// tangents, unzipped and simplified.
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
	var bs []binding
	for _, w := range wrt {
		bs = append(bs, binding{binder(lin.names[w]), ident(tangents[w])})
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
// positions.
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
