package sdqltest

import (
	"github.com/nablasd/nablasd/sdql"
)

// Structural variants of a program: the same function written another
// way, as the structural robustness tests compare them (a program's speed
// must not depend on its structure). They are meant for Gen's programs,
// whose binders all have different names.

// InlineLets returns e with every let substituted at each use of its name
// (a let used twice becomes a repeated subterm; one used in a loop, a
// term computed in the loop), but a let that does work (a loop, a
// dictionary, a call) and whose every use is under a condition (an if's
// branch, the right operand of && or ||): inlined there, it would be
// computed only on the conditions, another way of computing the function.
func InlineLets(e sdql.Expr) sdql.Expr {
	return sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		l, ok := x.(*sdql.LetExpr)
		if !ok {
			return x
		}
		body := l.Body
		vals := append([]sdql.Expr(nil), l.Values...)
		for i := len(l.Names) - 1; i >= 0; i-- {
			if l.Names[i].Name == "_" {
				continue
			}
			if len(l.Names) == 1 && doesWork(vals[i]) && !unconditionalUse(body, l.Names[i].Name) {
				return x
			}
			// a tupled let binds sequentially: later values see earlier names
			body = sdql.Subst(body, map[string]sdql.Expr{l.Names[i].Name: vals[i]})
			for j := i + 1; j < len(vals); j++ {
				vals[j] = sdql.Subst(vals[j], map[string]sdql.Expr{l.Names[i].Name: vals[i]})
			}
		}
		return body
	})
}

// SinkLets returns e with every let moved down into the smallest term
// that holds every use of its name: into a loop's body when they are all
// there (an invariant computed in the loop), never into an if's branch
// or the right operand of && and || (where it would be computed only on
// a condition), nor under a binder of a name its value mentions.
func SinkLets(e sdql.Expr) sdql.Expr {
	return sdql.Transform(e, func(x sdql.Expr) sdql.Expr {
		l, ok := x.(*sdql.LetExpr)
		if !ok || len(l.Names) != 1 || l.Names[0].Name == "_" {
			return x
		}
		return sink(l.Names[0], l.Values[0], l.Body, sdql.FreeVars(l.Values[0]))
	})
}

// sink places let b = v at the smallest term of body that holds every use
// of b's name.
func sink(b sdql.Binder, v, body sdql.Expr, free []string) sdql.Expr {
	kids := sdql.Children(body)
	inner := -1
	for i, k := range kids {
		if !usesName(k, b.Name) {
			continue
		}
		if inner >= 0 {
			inner = -2 // uses under two children: bind here
			break
		}
		inner = i
	}
	if inner >= 0 && !conditional(body, inner) && !captures(body, inner, free, b.Name) {
		nk := append([]sdql.Expr(nil), kids...)
		nk[inner] = sink(b, v, kids[inner], free)
		return sdql.WithChildren(body, nk)
	}
	return &sdql.LetExpr{Names: []sdql.Binder{b}, Values: []sdql.Expr{v}, Body: body}
}

// usesName reports whether name occurs free in e.
func usesName(e sdql.Expr, name string) bool {
	for _, f := range sdql.FreeVars(e) {
		if f == name {
			return true
		}
	}
	return false
}

// conditional reports whether e's i-th child is evaluated only on a
// condition.
func conditional(e sdql.Expr, i int) bool {
	switch x := e.(type) {
	case *sdql.IfExpr:
		return i > 0
	case *sdql.BinaryExpr:
		return i == 1 && (x.Op == sdql.LAND || x.Op == sdql.LOR)
	}
	return false
}

// captures reports whether e binds, for its i-th child, a name of free or
// name itself.
func captures(e sdql.Expr, i int, free []string, name string) bool {
	for _, n := range sdql.Binders(e, i) {
		if n == name {
			return true
		}
		for _, f := range free {
			if n == f {
				return true
			}
		}
	}
	return false
}

// doesWork reports whether e contains a loop, a dictionary or a call.
func doesWork(e sdql.Expr) bool {
	return sdql.Any(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.SumExpr, *sdql.CallExpr, *sdql.OneHotExpr:
			return true
		case *sdql.DictExpr:
			return len(x.Entries) > 0
		}
		return false
	})
}

// unconditionalUse reports whether name occurs free in e other than under
// a condition.
func unconditionalUse(e sdql.Expr, name string) bool {
	if id, ok := e.(*sdql.Ident); ok {
		return id.Name == name
	}
	for i, k := range sdql.Children(e) {
		if conditional(e, i) || captures(e, i, nil, name) {
			continue
		}
		if unconditionalUse(k, name) {
			return true
		}
	}
	return false
}
