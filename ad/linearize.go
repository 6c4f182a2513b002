package ad

import (
	"fmt"
	"sort"

	"github.com/nablasd/nablasd/sdql"
)

// maxLiftRounds bounds the rounds of linearize: each lifts the residuals
// the previous round's tangent program needs inside loops. Two rounds
// suffice for every program seen so far; the bound only guards against a
// cycle.
const maxLiftRounds = 8

// linearization is the first step of reverse mode ("You Only Linearize
// Once", J): the program in ANF with the residuals its tangent needs
// inside loops lifted out of them (Lift), and its forward-mode tangent
// program (Fig. 5, τ = real) in which the tangents of the wrt inputs are
// free linear inputs and every other input's tangent is zero.
type linearization struct {
	// primal is the program in ANF, residuals lifted: it computes the
	// same value as the original.
	primal sdql.Expr
	// tangent is F[[primal]] with zero tangents propagated, as single lets
	// (no tupled ones): the JVP, linear in the wrt tangents.
	tangent sdql.Expr
	// wrt lists the inputs whose tangents are free, in the caller's order.
	wrt []string
	// names maps each wrt input to its tangent variable.
	names map[string]string
	// inputs gives the types of the program's inputs (given and inferred);
	// tangentInputs adds the wrt tangents'.
	inputs, tangentInputs map[string]sdql.Type
	// result is the type of the program's result.
	result sdql.Type
	// aliased are the primal lets the tangent reads from the top-level
	// dictionaries that hold them (aliasResiduals), not recomputed.
	aliased map[string]alias
}

// linearize builds the linearization of e with respect to the wrt inputs.
// inputs gives the types of e's inputs; missing ones are inferred. value
// says whether the program's value is wanted too (its loops' residuals
// are then worth keeping, residuals).
func linearize(e sdql.Expr, wrt []string, inputs map[string]sdql.Type, value bool) (*linearization, error) {
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
	if err != nil {
		return nil, err
	}
	all := map[string]sdql.Type{}
	for n, t := range inputs {
		if t != nil {
			all[n] = t
		}
	}
	for n, t := range info.Free { // the checker's, complete where a given one is not
		all[n] = t
	}
	a := ANF(e)
	var lin *linearization
	for range maxLiftRounds {
		if lin, err = tangentProgram(a, wrt, all); err != nil {
			return nil, err
		}
		lift, err := residuals(a, lin, value)
		if err != nil {
			return nil, err
		}
		if len(lift) == 0 {
			break
		}
		a = ANF(Lift(a, lift))
	}
	lin.result = info.Result
	return lin, nil
}

// tangentProgram is the tangent of the ANF program a with the tangents of
// wrt free and every other input's tangent zero, simplified.
func tangentProgram(a sdql.Expr, wrt []string, inputs map[string]sdql.Type) (*linearization, error) {
	tan, err := Forward(a, inputs)
	if err != nil {
		return nil, err
	}
	lin := &linearization{primal: a, wrt: wrt, names: map[string]string{}, inputs: inputs, tangentInputs: map[string]sdql.Type{}}
	for n, t := range inputs {
		lin.tangentInputs[n] = t
	}
	isWrt := map[string]bool{}
	suffix := tangentSuffix(a)
	for _, w := range wrt {
		isWrt[w] = true
		name, ok := tan.Names[w]
		if !ok { // an input the program does not use: its tangent is unused
			name = w + suffix
		}
		lin.names[w] = name
		lin.tangentInputs[name] = inputs[w]
	}
	var bs []binding
	for _, v := range sdql.FreeVars(a) {
		if name, ok := tan.Names[v]; ok && !isWrt[v] {
			bs = append(bs, binding{binder(name), &sdql.ZeroExpr{T: tan.Types[v]}})
		}
	}
	prog, aliased := aliasResiduals(reuseCalls(splitLets(wrapLets(bs, tan.Expr))), dictAliases(a))
	out, err := simplifyWith(prog, lin.tangentInputs, pruneLets)
	if err != nil {
		return nil, fmt.Errorf("internal error: ad: the tangent program does not check: %v", err)
	}
	lin.tangent, lin.aliased = out, aliased
	return lin, nil
}

// residuals returns the lets of the ANF program a, bound inside a loop,
// that the linear part of lin's tangent program needs, that are too costly
// to recompute there, and whose loop the primal sweep runs anyway: Lift
// moves them out of their loops so that the reverse sweep looks them up
// instead of running the loop that made them a second time.
//
// A let is needed when the linear code mentions it (as a coefficient, a
// source, a condition or a key) or when a needed let that is recomputed
// mentions it; it is costly (heavy) when its value holds a loop or
// combines dictionaries. The primal sweep runs a top-level let's loop when
// the let is live: the linear code, a needed let, or the value (when
// value is set) mentions it, directly or through other live lets. A
// residual of a dead loop (the last layer of a loss, whose value the
// gradient does not need) is not lifted: the reverse sweep computes it, in
// the same loop that uses it, once.
func residuals(a sdql.Expr, lin *linearization, value bool) (map[string]bool, error) {
	info, err := sdql.Check(a, &sdql.CheckConfig{Inputs: lin.inputs})
	if err != nil {
		return nil, fmt.Errorf("internal error: ad: the program in ANF does not check: %v", err)
	}
	type letInfo struct {
		value sdql.Expr
		depth int    // enclosing sums
		top   string // the top-level let holding it ("" for a top-level let)
	}
	lets := map[string]letInfo{}
	var scan func(e sdql.Expr, depth int, top string)
	scan = func(e sdql.Expr, depth int, top string) {
		switch x := e.(type) {
		case *sdql.LetExpr:
			for i, n := range x.Names {
				lets[n.Name] = letInfo{x.Values[i], depth, top}
				scan(x.Values[i], depth, top)
			}
			scan(x.Body, depth, top)
			return
		case *sdql.SumExpr:
			scan(x.Src, depth, top)
			scan(x.Body, depth+1, top)
			return
		}
		for _, k := range sdql.Children(e) {
			scan(k, depth, top)
		}
	}
	topLets, result := letChain(a)
	isTop := map[string]bool{}
	for _, b := range topLets {
		isTop[b.name.Name] = true
		lets[b.name.Name] = letInfo{b.val, 0, ""}
		scan(b.val, 0, b.name.Name)
	}

	linear := linearVars(lin.tangent, lin.names)
	var work []string
	for name := range primalRefs(lin.tangent, linear) {
		work = append(work, name)
	}
	if value {
		work = append(work, sdql.FreeVars(result)...)
	}
	sort.Strings(work)
	needed := map[string]bool{}
	live := map[string]bool{}
	for len(work) > 0 {
		name := work[len(work)-1]
		work = work[:len(work)-1]
		li, ok := lets[name]
		if al, isAlias := lin.aliased[name]; isAlias {
			work = append(work, al.top) // read from the dictionary, which must be live
			continue
		}
		switch {
		case !ok:
			continue
		case isTop[name]:
			if live[name] {
				continue
			}
			live[name] = true
		case li.depth == 0:
			continue // in a top-level if: computed once either way
		default:
			if needed[name] {
				continue
			}
			needed[name] = true
		}
		work = append(work, sdql.FreeVars(li.value)...)
	}
	lift := map[string]bool{}
	for name := range needed {
		if li := lets[name]; live[li.top] && heavy(li.value, info.Types) {
			lift[name] = true
		}
	}
	return lift, nil
}

// heavy reports whether evaluating e costs more than a few scalar
// operations: it holds a sum, or an arithmetic operation on dictionaries.
// Lookups, singletons and scalar arithmetic are light.
func heavy(e sdql.Expr, types map[sdql.Expr]sdql.Type) bool {
	return sdql.Any(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.SumExpr:
			return true
		case *sdql.BinaryExpr:
			return sdql.Order(types[x.X]) > 0 || sdql.Order(types[x.Y]) > 0
		case *sdql.UnaryExpr:
			return sdql.Order(types[x.X]) > 0
		}
		return false
	})
}

// linearVars returns the linear variables of a tangent program: the wrt
// tangents and every let whose value mentions a linear variable. Names are
// unique in a tangent program of an ANF program, except primal ones, which
// are never linear.
func linearVars(e sdql.Expr, names map[string]string) map[string]bool {
	linear := map[string]bool{}
	for _, n := range names {
		linear[n] = true
	}
	sdql.Inspect(e, func(x sdql.Expr) bool {
		if l, ok := x.(*sdql.LetExpr); ok {
			for i, n := range l.Names {
				if mentions(l.Values[i], linear) {
					linear[n.Name] = true
				}
			}
		}
		return true
	})
	return linear
}

// mentions reports whether e has a free occurrence of a variable of vars.
func mentions(e sdql.Expr, vars map[string]bool) bool {
	for _, v := range sdql.FreeVars(e) {
		if vars[v] {
			return true
		}
	}
	return false
}

// primalRefs returns the non-linear variables the linear code of e
// mentions: in the values of linear lets and the linear result, not
// counting the values of the primal lets nested in them.
func primalRefs(e sdql.Expr, linear map[string]bool) map[string]bool {
	refs := map[string]bool{}
	var walk func(e sdql.Expr, inLinear bool)
	walk = func(e sdql.Expr, inLinear bool) {
		switch x := e.(type) {
		case *sdql.Ident:
			if inLinear && !linear[x.Name] {
				refs[x.Name] = true
			}
			return
		case *sdql.LetExpr:
			for i, n := range x.Names {
				if linear[n.Name] {
					walk(x.Values[i], true)
				}
			}
			walk(x.Body, inLinear || mentions(x.Body, linear))
			return
		}
		for _, k := range sdql.Children(e) {
			walk(k, inLinear)
		}
	}
	walk(e, mentions(e, linear))
	return refs
}

// splitLets turns every tupled let into a chain of single lets (they bind
// sequentially, so the meaning is the same).
func splitLets(e sdql.Expr) sdql.Expr {
	return sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		l, ok := x.(*sdql.LetExpr)
		if !ok || len(l.Names) <= 1 {
			return x
		}
		body := l.Body
		for i := len(l.Names) - 1; i >= 0; i-- {
			body = &sdql.LetExpr{Let: l.Let, Names: []sdql.Binder{l.Names[i]}, Values: []sdql.Expr{l.Values[i]}, Body: body}
		}
		return body
	})
}

// pruneLets removes the lets whose variable is not used; it moves and
// duplicates nothing, so every name keeps its binding.
func pruneLets(e sdql.Expr) sdql.Expr {
	idx := sdql.NewFreeIndex()
	return sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		l, ok := x.(*sdql.LetExpr)
		if !ok {
			return x
		}
		var names []sdql.Binder
		var values []sdql.Expr
		for i, n := range l.Names {
			if n.Name == "_" {
				continue
			}
			used := false
			for j := i + 1; j < len(l.Names) && !used; j++ {
				used = idx.Use(l.Values[j], n.Name).Count > 0
				if l.Names[j].Name == n.Name {
					break
				}
			}
			if !used && !shadowedLater(l.Names[i+1:], n.Name) {
				used = idx.Use(l.Body, n.Name).Count > 0
			}
			if used {
				names = append(names, n)
				values = append(values, l.Values[i])
			}
		}
		if len(names) == 0 {
			return l.Body
		}
		return &sdql.LetExpr{Let: l.Let, Names: names, Values: values, Body: l.Body}
	})
}
