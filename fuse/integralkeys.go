package fuse

import (
	"math"

	"github.com/nablasd/nablasd/sdql"
)

// IntegralKeys returns e with every real literal of integral value inside
// a key (a lookup's, a dictionary entry's, a range's or a slice's bounds)
// written as an integer literal. Constant folding evaluates a closed term
// of integer literals as a real (2 * k - 1 with k bound to 4 folds to
// 7.0), and where the rule that folded it could not tell the term was a
// key, the program it extracted would not type-check. An integer literal
// takes the type its context gives it, as the literals folded did; a real
// literal in a key is ill-typed anyway, so nothing else changes.
func IntegralKeys(e sdql.Expr) sdql.Expr {
	if e == nil {
		return nil
	}
	kids := sdql.Children(e)
	if len(kids) == 0 {
		return e
	}
	nk := make([]sdql.Expr, len(kids))
	changed := false
	for i, k := range kids {
		nk[i] = IntegralKeys(k)
		if isKeyChild(e, i) {
			nk[i] = intLiterals(nk[i])
		}
		changed = changed || nk[i] != k
	}
	if !changed {
		return e
	}
	return sdql.WithChildren(e, nk)
}

// isKeyChild reports whether child i of e (sdql.Children order) is a key:
// a lookup's key, a dictionary entry's key, the bounds of a range or a
// slice.
func isKeyChild(e sdql.Expr, i int) bool {
	switch e.(type) {
	case *sdql.LookupExpr:
		return i == 1
	case *sdql.DictExpr:
		return i%2 == 0
	case *sdql.RangeExpr:
		return true
	case *sdql.SliceExpr:
		return i > 0
	}
	return false
}

// intLiterals writes the integral real literals of e's arithmetic as
// integer literals: through +, -, *, negation and an if's branches, not
// into a lookup, a sum, a let or a dictionary, whose values are their own.
func intLiterals(e sdql.Expr) sdql.Expr {
	switch x := e.(type) {
	case *sdql.RealLit:
		if x.Value == math.Trunc(x.Value) && math.Abs(x.Value) < 1<<53 {
			return &sdql.IntLit{ValuePos: x.ValuePos, Value: int(x.Value)}
		}
	case *sdql.BinaryExpr, *sdql.UnaryExpr:
		return sdql.MapChildren(e, intLiterals)
	case *sdql.IfExpr:
		kids := sdql.Children(e)
		nk := append([]sdql.Expr{kids[0]}, kids[1:]...)
		for i := 1; i < len(nk); i++ {
			nk[i] = intLiterals(nk[i])
		}
		return sdql.WithChildren(e, nk)
	}
	return e
}
