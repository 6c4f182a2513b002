package ad

import (
	"slices"

	"github.com/nablasd/nablasd/sdql"
)

// This file lets the tangent program read primal values the primal sweep
// already holds instead of recomputing them: YOLO's "primal values in one
// place" for the two cases a dictionary program makes common.
//
//   - A derivative written with the operation itself (tanh's
//     1 - tanh(x)·tanh(x), exp's exp(x), sigmoid's) reads the let that
//     bound the operation's value: reuseCalls.
//   - A let computed in the loop that builds a top-level dictionary, and
//     stored in it as the entry of the loop's keys,
//
//     let h = sum(<i, r> in A) ... let z = e0 in ... { i -> z } in ...
//
//     is h(i) wherever the same loop (the same key over the same source)
//     runs again: in the tangent's copy of h's loop (aliasResiduals).
//     So h itself is the tape of z: tanh(A x) is kept once, as h, and
//     neither its pre-activation A x nor the tanh is computed again, nor
//     kept in a dictionary of its own.

// reuseCalls replaces every operation call (sdql.CallExpr) of e whose
// printed form equals the value of a let in scope by that let's variable:
// tanh(t2) by t3 under let t3 = tanh(t2). A let or a sum that binds a name
// again ends the reuse of the lets that mention it.
func reuseCalls(e sdql.Expr) sdql.Expr {
	return reuseIn(e, nil)
}

// reuse is a let in scope whose value is an operation call: its printed
// value, its variable, and the variables the value mentions.
type reuse struct {
	call, name string
	vars       []string
}

// shadow returns the lets of scope that remain valid once names are bound.
func shadow(scope []reuse, names ...string) []reuse {
	var out []reuse
	for _, r := range scope {
		ok := true
		for _, n := range names {
			if r.name == n || slices.Contains(r.vars, n) {
				ok = false
			}
		}
		if ok {
			out = append(out, r)
		}
	}
	return out
}

func reuseIn(e sdql.Expr, scope []reuse) sdql.Expr {
	switch x := e.(type) {
	case *sdql.LetExpr:
		vals := make([]sdql.Expr, len(x.Values))
		for i, v := range x.Values {
			vals[i] = reuseIn(v, scope)
			n := x.Names[i].Name
			scope = shadow(scope, n)
			if c, ok := v.(*sdql.CallExpr); ok && !slices.Contains(sdql.FreeVars(c), n) {
				scope = append(scope, reuse{sdql.PrintFlat(c), n, sdql.FreeVars(c)})
			}
		}
		return &sdql.LetExpr{Let: x.Let, Names: x.Names, Values: vals, Body: reuseIn(x.Body, scope)}
	case *sdql.CallExpr:
		p := sdql.PrintFlat(x)
		for i := len(scope) - 1; i >= 0; i-- {
			if scope[i].call == p {
				return ident(scope[i].name)
			}
		}
	case *sdql.SumExpr:
		return &sdql.SumExpr{Sum: x.Sum, Key: x.Key, Val: x.Val, Src: reuseIn(x.Src, scope),
			Body: reuseIn(x.Body, shadow(scope, x.Key.Name, x.Val.Name))}
	}
	return sdql.MapChildren(e, func(k sdql.Expr) sdql.Expr { return reuseIn(k, scope) })
}

// alias says that a let inside a top-level dictionary's loops is that
// dictionary's entry at the loops' keys.
type alias struct {
	top  string      // the top-level let holding the dictionary
	keys []loopLevel // its loops, outermost first
}

// loopLevel is one loop of a nest: its key and its source, printed.
type loopLevel struct {
	key, src string
}

// dictAliases finds, in the ANF program a, the lets that are entries of a
// top-level dictionary: a top-level let whose value is a nest of sums each
// of whose bodies (through lets) ends in a singleton { key -> v } of its
// own key, v the next sum of the nest or, innermost, a let's variable z.
// Keys of a dictionary (the sum's source) are distinct, so the dictionary
// holds z's value of each iteration at the iteration's keys.
func dictAliases(a sdql.Expr) map[string]alias {
	out := map[string]alias{}
	tops, _ := letChain(a)
	for _, b := range tops {
		nestAliases(b.val, alias{top: b.name.Name}, out)
	}
	return out
}

func nestAliases(e sdql.Expr, al alias, out map[string]alias) {
	s, ok := e.(*sdql.SumExpr)
	if !ok || s.Key.Name == "_" || s.Key.Name == "" {
		return
	}
	bs, res := letChain(s.Body)
	val := func(name string) sdql.Expr {
		for i := len(bs) - 1; i >= 0; i-- {
			if bs[i].name.Name == name {
				return bs[i].val
			}
		}
		return nil
	}
	r, ok := res.(*sdql.Ident)
	if !ok {
		return
	}
	d, ok := val(r.Name).(*sdql.DictExpr)
	if !ok || len(d.Entries) != 1 {
		return
	}
	if k, ok := d.Entries[0].Key.(*sdql.Ident); !ok || k.Name != s.Key.Name {
		return
	}
	z, ok := d.Entries[0].Val.(*sdql.Ident)
	if !ok {
		return
	}
	v := val(z.Name)
	if v == nil {
		return // a variable of an enclosing scope, not of this iteration
	}
	level := alias{top: al.top, keys: append(append([]loopLevel(nil), al.keys...), loopLevel{s.Key.Name, sdql.PrintFlat(s.Src)})}
	if inner, ok := v.(*sdql.SumExpr); ok {
		nestAliases(inner, level, out)
		return
	}
	out[z.Name] = level
}

// aliasResiduals rewrites, in the tangent program e (a chain of top-level
// lets, primal and tangent), the lets of aliases inside a loop nest that
// repeats the aliased dictionary's loops (the same keys over the same
// sources, outermost first) after the dictionary is bound: let z = ...
// becomes let z = h(i)...(k). It returns the program and the aliases it
// used.
func aliasResiduals(e sdql.Expr, aliases map[string]alias) (sdql.Expr, map[string]alias) {
	used := map[string]alias{}
	if len(aliases) == 0 {
		return e, used
	}
	bs, body := letChain(e)
	bound := map[string]bool{}
	for i, b := range bs {
		bs[i].val = aliasIn(b.val, nil, aliases, bound, used)
		bound[b.name.Name] = true
	}
	return wrapLets(bs, aliasIn(body, nil, aliases, bound, used)), used
}

func aliasIn(e sdql.Expr, loops []loopLevel, aliases map[string]alias, bound map[string]bool, used map[string]alias) sdql.Expr {
	switch x := e.(type) {
	case *sdql.SumExpr:
		inner := append(append([]loopLevel(nil), loops...), loopLevel{x.Key.Name, sdql.PrintFlat(x.Src)})
		return &sdql.SumExpr{Sum: x.Sum, Key: x.Key, Val: x.Val,
			Src:  aliasIn(x.Src, loops, aliases, bound, used),
			Body: aliasIn(x.Body, inner, aliases, bound, used)}
	case *sdql.LetExpr:
		vals := make([]sdql.Expr, len(x.Values))
		for i, v := range x.Values {
			n := x.Names[i].Name
			if al, ok := aliases[n]; ok && bound[al.top] && sameLoops(loops, al.keys) {
				var look sdql.Expr = ident(al.top)
				for _, k := range al.keys {
					look = &sdql.LookupExpr{X: look, Key: ident(k.key)}
				}
				vals[i] = look
				used[n] = al
				continue
			}
			vals[i] = aliasIn(v, loops, aliases, bound, used)
		}
		return &sdql.LetExpr{Let: x.Let, Names: x.Names, Values: vals, Body: aliasIn(x.Body, loops, aliases, bound, used)}
	}
	return sdql.MapChildren(e, func(k sdql.Expr) sdql.Expr { return aliasIn(k, loops, aliases, bound, used) })
}

// sameLoops reports whether the loops enclosing a point start with want.
func sameLoops(loops, want []loopLevel) bool {
	if len(loops) < len(want) {
		return false
	}
	for i, w := range want {
		if loops[i] != w {
			return false
		}
	}
	return true
}
