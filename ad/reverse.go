package ad

import (
	"fmt"

	"github.com/nablasd/nablasd/sdql"
)

// Request says what a derivative program computes (Derive, Reverse).
type Request struct {
	// Wrt lists the inputs to differentiate with respect to, each of a
	// real tensor type. Reverse mode computes all their gradients in one
	// sweep.
	Wrt []string
	// Value asks for the program's value too, computed by the same
	// primal sweep as the gradients.
	Value bool
	// Cotangent, when set, names a free variable of the result's type
	// holding a cotangent: the program then computes the vector–Jacobian
	// product (the cotangent times the Jacobian, of each wrt input's
	// type) instead of the gradient or the whole Jacobian. Reverse mode
	// only.
	Cotangent string
	// Dense names the wrt inputs that store every index of their extent,
	// and Dims gives the extents of the inputs' modes (dims[x][m] for mode
	// m of x). Reverse mode restricts a gradient to the wrt input's stored
	// positions with one pass over it; for a dense input that pass is the
	// identity, and is left out, when the gradient's keys are provably
	// within the input's extent (sdql.AnalyzeExtents: keys of the input
	// itself, or bounded by the inputs' shapes), the proof fuse's inextent
	// condition asks for too.
	Dense map[string]bool
	Dims  map[string][]int
}

// ReverseStages are the programs of reverse mode, as `nablasd plan`
// prints them ("You Only Linearize Once": J, U, T).
type ReverseStages struct {
	// ANF is the program in ANF, with the residuals the linear part needs
	// inside loops the primal sweep runs lifted out of them (Lift).
	ANF sdql.Expr
	// Linearized is forward mode on ANF (Fig. 5, τ = real) with the
	// tangents of the wrt inputs free (Tangents) and the others zero: the
	// JVP.
	Linearized sdql.Expr
	// Unzipped is Linearized as the primal sweep (ANF's top-level lets)
	// followed by the linear program; it computes the same JVP.
	Unzipped sdql.Expr
	// Transposed is the primal sweep followed by the linear program
	// transposed: the reverse sweep, seeded with 1 for a scalar result,
	// with the cotangent for a VJP, and with onehot of the result for a
	// whole Jacobian.
	Transposed sdql.Expr
	// Result is Transposed after sparsity propagation (Sparsify): the
	// program that computes Outputs.
	Result sdql.Expr
	// Outputs describes Result's results.
	Outputs Outputs
	// Tangents maps each wrt input to its tangent variable in Linearized
	// and Unzipped.
	Tangents map[string]string
}

// Reverse computes the derivatives a request asks for in reverse mode.
// For a result of type tensor n and a wrt input of type tensor m the
// derivative is a tensor (n+m) with the result's indices first (the whole
// Jacobian; n = 0 is the gradient), given on the wrt input's stored
// positions, as in forward mode. With a Cotangent it is the VJP, of the
// wrt input's type. inputs gives the types of e's inputs; missing ones are
// inferred.
func Reverse(e sdql.Expr, req *Request, inputs map[string]sdql.Type) (*ReverseStages, error) {
	if err := checkRequest(e, req, inputs); err != nil {
		return nil, err
	}
	lin, err := linearize(e, req.Wrt, inputs, req.Value)
	if err != nil {
		return nil, err
	}
	u := unzip(lin)
	st := &ReverseStages{ANF: lin.primal, Linearized: lin.tangent, Unzipped: u.program(), Tangents: lin.names}
	types := map[string]sdql.Type{}
	for n, t := range lin.tangentInputs {
		types[n] = t
	}
	rho := sdql.Type(sdql.RealType)
	if req.Cotangent != "" {
		types[req.Cotangent] = lin.result
	} else if sdql.Order(lin.result) > 0 {
		rho = lin.result
	}
	info, err := sdql.Check(wrapLets(u.primal, u.linear), &sdql.CheckConfig{Inputs: types})
	if err != nil {
		return nil, fmt.Errorf("internal error: ad: the unzipped program does not check: %v", err)
	}
	t := &transposer{types: info.Types, linear: u.vars, varType: map[string]sdql.Type{}, rho: rho,
		names: newNamer(lin.primal, lin.tangent)}
	if req.Cotangent != "" {
		t.names.used[req.Cotangent] = true
	}
	for _, w := range req.Wrt {
		t.varType[lin.names[w]] = lin.inputs[w]
	}
	sdql.Inspect(u.linear, func(x sdql.Expr) bool {
		if l, ok := x.(*sdql.LetExpr); ok {
			for i, n := range l.Names {
				if u.vars[n.Name] {
					t.varType[n.Name] = info.Types[l.Values[i]]
				}
			}
		}
		return true
	})

	bs := cloneBindings(u.primal)
	var seed sdql.Expr
	switch {
	case req.Cotangent != "":
		seed = ident(req.Cotangent)
	case sdql.Order(lin.result) == 0:
		seed = &sdql.RealLit{Value: 1}
	default:
		seed = t.bind(&bs, "seed", &sdql.OneHotExpr{T: lin.result, X: clone(u.result)})
	}
	acc, err := t.run(u.linear, seed, &bs)
	if err != nil {
		return nil, err
	}
	var results []sdql.Expr
	if req.Value {
		results = append(results, clone(u.result))
		st.Outputs.Names = append(st.Outputs.Names, "value")
		st.Outputs.Types = append(st.Outputs.Types, lin.result)
	}
	for _, w := range req.Wrt {
		tw := lin.inputs[w]
		g := t.bind(&bs, barName(w), t.total(acc[lin.names[w]], tw))
		dense := req.Dense[w] && withinExtent(wrapLets(bs, g), w, types, req.Dims)
		results = append(results, t.restrict(g, w, tw, dense))
		st.Outputs.Names = append(st.Outputs.Names, w)
		st.Outputs.Types = append(st.Outputs.Types, sdql.Outer(rho, tw))
	}
	st.Transposed = wrapLets(bs, bundle(results, st.Outputs.Types))
	res, err := Sparsify(st.Transposed, types)
	if err != nil {
		return nil, fmt.Errorf("internal error: ad: the reverse program does not check: %v\n%s", err, sdql.Print(st.Transposed))
	}
	st.Result, err = realResult(res, types)
	return st, err
}

// realResult makes a derivative real where simplification left an int: the
// derivative of count * x with respect to x is the count, an int, but it
// is a real number like every derivative.
func realResult(e sdql.Expr, inputs map[string]sdql.Type) (sdql.Expr, error) {
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, fmt.Errorf("internal error: ad: the derivative does not check: %v\n%s", err, sdql.Print(e))
	}
	if info.Result == sdql.IntType {
		return bin(&sdql.RealLit{Value: 1}, sdql.MUL, e), nil
	}
	return e, nil
}

// checkRequest checks the wrt inputs and the cotangent's name.
func checkRequest(e sdql.Expr, req *Request, inputs map[string]sdql.Type) error {
	if len(req.Wrt) == 0 {
		return fmt.Errorf("no input to differentiate with respect to")
	}
	seen := map[string]bool{}
	for _, w := range req.Wrt {
		if seen[w] {
			return fmt.Errorf("cannot differentiate with respect to %s twice", w)
		}
		seen[w] = true
		if _, err := wrtType(e, w, inputs); err != nil {
			return err
		}
	}
	if c := req.Cotangent; c != "" && usesName(e, c) {
		return fmt.Errorf("the cotangent's name %s is an input of the program", c)
	}
	return nil
}

// restrict is the last step of a reverse gradient g (an atom) of the wrt
// input w of type tw, of type tw ⊗ ρ: it keeps the entries at w's stored
// positions, the transpose of the seed onehot[tw] w of forward mode (a
// reverse sweep scatters into every key the program looks w up at), and
// for a whole Jacobian (ρ a tensor) puts the result's indices first. For a
// gradient (m the order of w) it is onPositions, as a tangent's
// definition is:
//
//	sum(<i1, u1> in w) let g1 = g(i1) in { i1 -> ... sum(<im, _> in u(m-1)) let gm = g(m-1)(im) in { im -> gm } ... }
//
// and for a Jacobian (n the order of ρ)
//
//	sum(<i1, u1> in w) let g1 = g(i1) in ... sum(<im, _> in u(m-1)) let gm = g(m-1)(im) in
//	  sum(<j1, v1> in gm) ... sum(<jn, vn> in v(n-1)) { j1 -> ... { jn -> { i1 -> ... { im -> vn } } } }
//
// For a dense w a gradient is g itself, and a Jacobian's first loops
// iterate g.
func (t *transposer) restrict(g sdql.Expr, w string, tw sdql.Type, dense bool) sdql.Expr {
	m, n := sdql.Order(tw), sdql.Order(t.rho)
	if m == 0 || dense && n == 0 {
		return g
	}
	if n == 0 {
		return onPositions(g, w, m, t.names, "g")
	}
	is := make([]string, m)
	us := make([]string, m)
	gs := make([]string, m)
	for i := range m {
		is[i], us[i], gs[i] = t.names.fresh("i"), t.names.fresh("u"), t.names.fresh("g")
	}
	if !dense {
		us[m-1] = "_"
	}
	// level i iterates w (or g when dense) at depth i
	level := func(i int, body sdql.Expr) sdql.Expr {
		if dense {
			var src sdql.Expr = clone(g)
			if i > 0 {
				src = ident(gs[i-1])
			}
			return &sdql.SumExpr{Key: binder(is[i]), Val: binder(gs[i]), Src: src, Body: body}
		}
		var from sdql.Expr = clone(g)
		if i > 0 {
			from = ident(gs[i-1])
		}
		var src sdql.Expr = ident(w)
		if i > 0 {
			src = ident(us[i-1])
		}
		body = &sdql.LetExpr{Names: []sdql.Binder{binder(gs[i])}, Values: []sdql.Expr{&sdql.LookupExpr{X: from, Key: ident(is[i])}}, Body: body}
		return &sdql.SumExpr{Key: binder(is[i]), Val: binder(us[i]), Src: src, Body: body}
	}
	js := make([]string, n)
	vs := make([]string, n)
	for j := range n {
		js[j], vs[j] = t.names.fresh("j"), t.names.fresh("v")
	}
	var x sdql.Expr = ident(vs[n-1])
	for i := m - 1; i >= 0; i-- {
		x = single(ident(is[i]), x)
	}
	for j := n - 1; j >= 0; j-- {
		x = single(ident(js[j]), x)
	}
	for j := n - 1; j >= 0; j-- {
		src := ident(gs[m-1])
		if j > 0 {
			src = ident(vs[j-1])
		}
		x = &sdql.SumExpr{Key: binder(js[j]), Val: binder(vs[j]), Src: src, Body: x}
	}
	for i := m - 1; i >= 0; i-- {
		x = level(i, x)
	}
	return x
}

// withinExtent reports whether the keys of the first levels of g, a
// gradient with respect to w, are provably keys of w's modes: keys of w
// itself, or within its extents (dims).
func withinExtent(g sdql.Expr, w string, inputs map[string]sdql.Type, dims map[string][]int) bool {
	x, err := sdql.AnalyzeExtents(g, inputs, dims)
	if err != nil {
		return false
	}
	m := sdql.Order(inputs[w])
	if len(x.Result) < m {
		return false
	}
	for l := range m {
		b := x.Result[l]
		if !b.IsKeysOf(w, l) && !(l < len(dims[w]) && b.Within(dims[w][l])) {
			return false
		}
	}
	return true
}

// usesName reports whether name is a free variable of e (an input).
func usesName(e sdql.Expr, name string) bool {
	for _, v := range sdql.FreeVars(e) {
		if v == name {
			return true
		}
	}
	return false
}

func single(k, v sdql.Expr) sdql.Expr {
	return &sdql.DictExpr{Entries: []sdql.Entry{{Key: k, Val: v}}}
}
