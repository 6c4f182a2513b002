package ad

import (
	"fmt"
	"sync"

	"github.com/nablasd/nablasd/sdql"
)

// Tangent is a forward-mode derivative program.
type Tangent struct {
	// Expr is the derivative. Its free variables are the program's inputs
	// and their tangents.
	Expr sdql.Expr
	// Names maps each input (free variable) of a real tensor type to the
	// name of its tangent variable (x ↦ x' unless the program uses primes).
	Names map[string]string
	// Types gives the type of each tangent variable: the input's type ⊗ τ.
	Types map[string]sdql.Type
}

// Forward is the scalar forward mode F[[e]] of Fig. 5 (D_τ with τ = real):
// the tangent of e, given a tangent x' of the same type as x for every
// input x. inputs gives the types of the inputs; missing ones are inferred
// from their use. The program is differentiated as given: apply ANF first
// to share sub-expressions (the product rule copies its operands).
func Forward(e sdql.Expr, inputs map[string]sdql.Type) (*Tangent, error) {
	return Tensorized(e, inputs, sdql.RealType)
}

// Tensorized is the tensorized forward mode D_τ[[e]] of Fig. 6: given for
// every input x of type T a tangent x' of type T ⊗ τ, it computes the
// tangent of e, of type typeof(e) ⊗ τ (the result's indices first, then
// τ's). τ must be a real tensor type.
func Tensorized(e sdql.Expr, inputs map[string]sdql.Type, tau sdql.Type) (*Tangent, error) {
	if sdql.Order(tau) < 0 {
		return nil, fmt.Errorf("cannot differentiate with respect to %s (want real or a real tensor)", tau)
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, err
	}
	d := newDeriver(e, info, tau)
	out, err := d.run(e)
	if err != nil {
		return nil, err
	}
	t := &Tangent{Expr: out, Names: map[string]string{}, Types: map[string]sdql.Type{}}
	for _, v := range sdql.FreeVars(e) {
		if ft := info.Free[v]; !discrete(ft) {
			t.Names[v] = d.tangent(v)
			t.Types[v] = sdql.Outer(ft, tau)
		}
	}
	return t, nil
}

// deriver implements D_τ over a checked program.
type deriver struct {
	info   *sdql.Info
	tau    sdql.Type
	suffix string
	names  *namer
}

func newDeriver(e sdql.Expr, info *sdql.Info, tau sdql.Type) *deriver {
	return &deriver{info: info, tau: tau, suffix: tangentSuffix(e), names: newNamer(e)}
}

type diffError struct{ err error }

// run differentiates e, turning the errors raised inside into a result.
func (d *deriver) run(e sdql.Expr) (out sdql.Expr, err error) {
	defer func() {
		if p := recover(); p != nil {
			de, ok := p.(diffError)
			if !ok {
				panic(p)
			}
			err = de.err
		}
	}()
	return d.diff(e), nil
}

func (d *deriver) fail(pos sdql.Pos, format string, args ...any) {
	panic(diffError{&sdql.Error{Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

func (d *deriver) tangent(name string) string { return name + d.suffix }

// discrete reports whether values of type t have the zero tangent: every
// type that is not a real tensor (int, bool, dictionaries of them).
func discrete(t sdql.Type) bool { return t == nil || sdql.Order(t) < 0 }

func (d *deriver) typeOf(e sdql.Expr) sdql.Type {
	t := d.info.Types[e]
	if t == nil {
		panic(fmt.Sprintf("internal error: ad: untyped %T at %s", e, e.Pos()))
	}
	return t
}

// zero is the tangent zero of a value of type t: zero[t ⊗ τ].
func (d *deriver) zero(t sdql.Type) sdql.Expr {
	return &sdql.ZeroExpr{T: sdql.Outer(t, d.tau)}
}

// none is the tangent ∅ of a discrete value (Fig. 5: F[[n]] = ∅).
func none() sdql.Expr { return intLit(0) }

// diff returns D_τ[[e]].
func (d *deriver) diff(e sdql.Expr) sdql.Expr {
	t := d.typeOf(e)
	if discrete(t) {
		return none()
	}
	switch x := e.(type) {
	case *sdql.Ident:
		return ident(d.tangent(x.Name))
	case *sdql.IntLit, *sdql.RealLit, *sdql.ZeroExpr, *sdql.OneHotExpr:
		return d.zero(t)
	case *sdql.SumExpr:
		return d.sum(x)
	case *sdql.DictExpr:
		if len(x.Entries) == 0 {
			return d.zero(t)
		}
		out := &sdql.DictExpr{Lbrace: x.Lbrace}
		for _, en := range x.Entries {
			out.Entries = append(out.Entries, sdql.Entry{Key: clone(en.Key), Val: d.diff(en.Val)})
		}
		return out
	case *sdql.LookupExpr:
		return &sdql.LookupExpr{X: d.diff(x.X), Key: clone(x.Key)}
	case *sdql.LetExpr:
		out := &sdql.LetExpr{Let: x.Let}
		for i, n := range x.Names {
			out.Names = append(out.Names, n)
			out.Values = append(out.Values, x.Values[i])
			if n.Name != "_" {
				out.Names = append(out.Names, binder(d.tangent(n.Name)))
				out.Values = append(out.Values, d.diff(x.Values[i]))
			}
		}
		out.Body = d.diff(x.Body)
		return out
	case *sdql.IfExpr:
		out := &sdql.IfExpr{If: x.If, Cond: clone(x.Cond), Then: d.diff(x.Then)}
		if x.Else != nil {
			out.Else = d.diff(x.Else)
		}
		return out
	case *sdql.UnaryExpr: // -x (not is bool, handled above)
		return &sdql.UnaryExpr{OpPos: x.OpPos, Op: sdql.SUB, X: d.diff(x.X)}
	case *sdql.BinaryExpr:
		return d.binary(x, t)
	case *sdql.CallExpr:
		return d.call(x)
	case *sdql.SliceExpr:
		d.fail(x.Pos(), "cannot differentiate a sub-array of reals (physical SDQLite); differentiate the logical program")
	case *sdql.RangeExpr, *sdql.UniqueExpr:
		return none() // int-valued; not reached (discrete)
	}
	panic(fmt.Sprintf("internal error: ad: cannot differentiate %T", e))
}

// operand returns the tangent of an operand of an arithmetic node of type
// t: zero[t ⊗ τ] when the operand is discrete (an int promoted to real).
func (d *deriver) operand(x sdql.Expr, t sdql.Type) sdql.Expr {
	if discrete(d.typeOf(x)) {
		return d.zero(t)
	}
	return d.diff(x)
}

// sum is the rule
//
//	D[sum(<k, v> in e1) e2] = sum(<k, v> in e1) let <k', v'> = <∅, D[e1](k)> in D[e2]
func (d *deriver) sum(x *sdql.SumExpr) sdql.Expr {
	key := x.Key
	srcDiscrete := discrete(d.typeOf(x.Src))
	if key.Name == "_" && x.Val.Name != "_" && !srcDiscrete {
		key = sdql.Binder{NamePos: key.NamePos, Name: d.names.fresh("k")}
	}
	var names []sdql.Binder
	var vals []sdql.Expr
	if key.Name != "_" {
		names = append(names, binder(d.tangent(key.Name)))
		vals = append(vals, none())
	}
	if x.Val.Name != "_" {
		names = append(names, binder(d.tangent(x.Val.Name)))
		if srcDiscrete {
			vals = append(vals, none())
		} else {
			vals = append(vals, &sdql.LookupExpr{X: d.diff(x.Src), Key: ident(key.Name)})
		}
	}
	body := d.diff(x.Body)
	if len(names) > 0 {
		body = &sdql.LetExpr{Names: names, Values: vals, Body: body}
	}
	return &sdql.SumExpr{Sum: x.Sum, Key: key, Val: x.Val, Src: x.Src, Body: body}
}

func (d *deriver) binary(x *sdql.BinaryExpr, t sdql.Type) sdql.Expr {
	switch x.Op {
	case sdql.ADD, sdql.SUB:
		return bin(d.operand(x.X, t), x.Op, d.operand(x.Y, t))
	case sdql.MUL:
		// D[e1 * e2] = e1 * D[e2] + D[e1] ⋆ e2
		var terms []sdql.Expr
		if !discrete(d.typeOf(x.Y)) {
			terms = append(terms, bin(clone(x.X), sdql.MUL, d.diff(x.Y)))
		}
		if !discrete(d.typeOf(x.X)) {
			terms = append(terms, d.star(d.diff(x.X), d.typeOf(x.X), x.Y))
		}
		return d.sumTerms(terms, t)
	case sdql.QUO:
		// D[e1 / e2] = D[e1] / e2 - e1 * D[e2] / (e2 * e2)
		var num, den sdql.Expr
		if !discrete(d.typeOf(x.X)) {
			num = bin(d.diff(x.X), sdql.QUO, clone(x.Y))
		}
		if !discrete(d.typeOf(x.Y)) {
			den = bin(bin(clone(x.X), sdql.MUL, d.diff(x.Y)), sdql.QUO, bin(clone(x.Y), sdql.MUL, clone(x.Y)))
		}
		switch {
		case num != nil && den != nil:
			return bin(num, sdql.SUB, den)
		case num != nil:
			return num
		case den != nil:
			return &sdql.UnaryExpr{Op: sdql.SUB, X: den}
		}
		return d.zero(t)
	}
	panic("internal error: ad: real-valued operator " + x.Op.String())
}

func (d *deriver) sumTerms(terms []sdql.Expr, t sdql.Type) sdql.Expr {
	if len(terms) == 0 {
		return d.zero(t)
	}
	out := terms[0]
	for _, x := range terms[1:] {
		out = bin(out, sdql.ADD, x)
	}
	return out
}

// star is dx ⋆^T[τ] e2 of Fig. 6, where dx = D[e1] has type T1 ⊗ τ: it
// puts e2's indices between e1's and τ's, so that the result has type
// (T1 ⊗ T2) ⊗ τ. When τ or e2 is a scalar this is dx * e2; when e1 is a
// scalar it is e2 * dx; otherwise, with p the order of T1,
//
//	sum(<i1, r1> in dx) ... sum(<ip, v> in r(p-1)) { i1 -> ... { ip -> e2 * v } ... }
//
// which is the figure's {i1 -> ... {ip -> 1}} * e2 * v without building the
// one-hot intermediate (the figure's m must be the order of e1, not of τ).
func (d *deriver) star(dx sdql.Expr, t1 sdql.Type, e2 sdql.Expr) sdql.Expr {
	if sdql.Order(d.tau) == 0 || sdql.Order(d.typeOf(e2)) <= 0 {
		return bin(dx, sdql.MUL, clone(e2))
	}
	p := sdql.Order(t1)
	if p == 0 {
		return bin(clone(e2), sdql.MUL, dx)
	}
	keys := make([]string, p)
	vals := make([]string, p)
	for i := range keys {
		keys[i] = d.names.fresh("i")
		vals[i] = d.names.fresh("r")
	}
	var inner sdql.Expr = bin(clone(e2), sdql.MUL, ident(vals[p-1]))
	for i := p - 1; i >= 0; i-- {
		inner = &sdql.DictExpr{Entries: []sdql.Entry{{Key: ident(keys[i]), Val: inner}}}
	}
	for i := p - 1; i >= 0; i-- {
		var src sdql.Expr = dx
		if i > 0 {
			src = ident(vals[i-1])
		}
		inner = &sdql.SumExpr{Key: binder(keys[i]), Val: binder(vals[i]), Src: src, Body: inner}
	}
	return inner
}

// call is D[op(e)] = op'(e) * D[e], with op' from sdql.Ops, and for an
// operation of two arguments D[op(e1, e2)] = ∂1op(e1, e2) * D[e1] +
// ∂2op(e1, e2) * D[e2]; an argument with the zero tangent (a literal, an
// int) contributes no term.
func (d *deriver) call(x *sdql.CallExpr) sdql.Expr {
	args := []sdql.Expr{x.X}
	if x.Y != nil {
		args = append(args, x.Y)
	}
	var terms []sdql.Expr
	for i, a := range args {
		if d.constant(a) {
			continue
		}
		deriv, err := partial(x.Op, i)
		if err != nil {
			d.fail(x.NamePos, "cannot differentiate %s: %v", x.Op, err)
		}
		sub := map[string]sdql.Expr{"x": clone(x.X)}
		if x.Y != nil {
			sub["y"] = clone(x.Y)
		}
		terms = append(terms, bin(sdql.Subst(deriv, sub), sdql.MUL, d.diff(a)))
	}
	return d.sumTerms(terms, sdql.RealType)
}

// constant reports whether e certainly has the zero tangent: it is discrete
// or mentions only discrete variables (such as a literal).
func (d *deriver) constant(e sdql.Expr) bool {
	if discrete(d.typeOf(e)) {
		return true
	}
	ok := true
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if id, isID := x.(*sdql.Ident); isID && !discrete(d.typeOf(id)) {
			ok = false
		}
		return ok
	})
	return ok
}

var derivCache sync.Map // op name and argument -> sdql.Expr

// partial returns the parsed partial derivative of an operation with
// respect to its argument i (0: x, 1: y), an expression in x (and y).
func partial(name string, i int) (sdql.Expr, error) {
	op, ok := sdql.Ops[name]
	if !ok {
		return nil, fmt.Errorf("unknown operation")
	}
	text, vars := op.Deriv, map[string]bool{"x": true}
	if op.Arity == 2 {
		vars["y"] = true
		if i == 1 {
			text = op.DerivY
		}
	}
	if text == "" {
		return nil, fmt.Errorf("the operation has no derivative in the op table")
	}
	key := fmt.Sprintf("%s\x00%d\x00%s", name, i, text)
	if e, ok := derivCache.Load(key); ok {
		return clone(e.(sdql.Expr)), nil
	}
	e, err := sdql.Parse("", text)
	if err != nil {
		return nil, fmt.Errorf("its derivative %q does not parse: %v", text, err)
	}
	for _, v := range sdql.FreeVars(e) {
		if !vars[v] {
			return nil, fmt.Errorf("its derivative %q may only use the variables x and y of the operation", text)
		}
	}
	derivCache.Store(key, e)
	return clone(e), nil
}
