package fuse

import (
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// matchEnv is what a side condition may ask about a match, on trees and in
// the e-graph alike.
type matchEnv interface {
	// name returns the name a binder variable (or a variable bound to an
	// identifier) stands for.
	name(v string) (string, bool)
	// mayBeFree reports whether name may occur free in what v is bound to
	// (false means certainly not free).
	mayBeFree(name, v string) bool
	// typeOf returns the type of what v is bound to, or nil if unknown.
	typeOf(v string) sdql.Type
	// constant returns the numeric value of v when it is a literal.
	constant(v string) (float64, bool)
	// isIdent reports whether v is bound to a variable reference.
	isIdent(v string) bool
	// dense reports whether v is an input that stores every index of its
	// dimension (a dense vector or matrix row set).
	dense(v string) bool
	// inExtent reports whether the int key x is known to lie in the
	// extent of the outermost mode of the dense input d (extent.go).
	inExtent(x, d string) bool
	// trivial reports whether v is bound to an expression that is free to
	// duplicate (a variable, a literal or a zero).
	trivial(v string) bool
	// scaled reports whether v is bound to a number variable times a
	// numeric literal, in either order (one product, cheap to repeat).
	scaled(v string) bool
	// mayHaveUnique reports whether what v is bound to may contain unique(...).
	mayHaveUnique(v string) bool
}

type condDef struct {
	arity    int // exact arity, or -n for at least n
	doc      string
	validate func(Cond) string
	check    func(c Cond, m matchEnv) bool
}

func allVars(c Cond) string {
	for i := range c.Args {
		if !c.Vars[i] {
			return "arguments must be pattern variables"
		}
	}
	return ""
}

var typeWords = map[string]bool{"real": true, "int": true, "bool": true, "dict": true, "scalar": true, "number": true}

// condRegistry is the fixed set of side conditions a rule may name.
var condRegistry = map[string]condDef{
	"notfree": {-2, "notfree($x, $e1, ...): the name bound to $x is not free in any $ei", allVars,
		func(c Cond, m matchEnv) bool {
			n, ok := m.name(c.Args[0])
			if !ok {
				return false
			}
			if n == "_" {
				return true
			}
			for _, a := range c.Args[1:] {
				if m.mayBeFree(n, a) {
					return false
				}
			}
			return true
		}},
	"scalar": {1, "scalar($e): $e is a number (real or int)", allVars,
		func(c Cond, m matchEnv) bool { return isScalarType(m.typeOf(c.Args[0])) }},
	"isdict": {1, "isdict($e): $e is a dictionary", allVars,
		func(c Cond, m matchEnv) bool { _, ok := m.typeOf(c.Args[0]).(*sdql.DictType); return ok }},
	"type": {2, "type($e, T): $e has type T (real, int, bool, dict, scalar, number, tensorN)",
		func(c Cond) string {
			if !c.Vars[0] || c.Vars[1] {
				return "want type($e, T)"
			}
			t := c.Args[1]
			if typeWords[t] || strings.HasPrefix(t, "tensor") {
				if strings.HasPrefix(t, "tensor") {
					if _, err := strconv.Atoi(strings.TrimPrefix(t, "tensor")); err != nil {
						return "bad tensor order in " + t
					}
				}
				return ""
			}
			return "unknown type " + t
		},
		func(c Cond, m matchEnv) bool { return hasType(m.typeOf(c.Args[0]), c.Args[1]) }},
	"tensor": {1, "tensor($e): $e is a real tensor of order at least 1", allVars,
		func(c Cond, m matchEnv) bool { return sdql.Order(orNil(m.typeOf(c.Args[0]))) >= 1 }},
	"const": {1, "const($e): $e is a numeric literal", allVars,
		func(c Cond, m matchEnv) bool { _, ok := m.constant(c.Args[0]); return ok }},
	"nonzero": {1, "nonzero($e): $e is a numeric literal other than 0", allVars,
		func(c Cond, m matchEnv) bool { v, ok := m.constant(c.Args[0]); return ok && v != 0 }},
	"isvar": {1, "isvar($e): $e is a variable reference", allVars,
		func(c Cond, m matchEnv) bool { return m.isIdent(c.Args[0]) }},
	"trivial": {1, "trivial($e): $e is a variable, literal or zero (free to duplicate)", allVars,
		func(c Cond, m matchEnv) bool { return m.trivial(c.Args[0]) }},
	"scaled": {1, "scaled($e): $e is a number variable times a numeric literal (a * 0.5, 2 * a: one product, cheap to repeat)", allVars,
		func(c Cond, m matchEnv) bool { return isScalarType(m.typeOf(c.Args[0])) && m.scaled(c.Args[0]) }},
	"nontrivial": {1, "nontrivial($e): $e is not trivial (it computes something)", allVars,
		func(c Cond, m matchEnv) bool { return !m.trivial(c.Args[0]) }},
	"dense": {1, "dense($d): $d is an input that stores every index of its dimension", allVars,
		func(c Cond, m matchEnv) bool { return m.dense(c.Args[0]) }},
	"inextent": {2, "inextent($x, $d): the key $x is a key of the dense input $d: provably within its extent (the keys of $d itself, or bounded by the inputs' shapes, Config.Dims), so looking it up reads a stored entry", allVars,
		func(c Cond, m matchEnv) bool { return m.inExtent(c.Args[0], c.Args[1]) }},
	"nounique": {1, "nounique($e): $e contains no unique(...) (whose claim is relative to the enclosing sum)", allVars,
		func(c Cond, m matchEnv) bool { return !m.mayHaveUnique(c.Args[0]) }},
	"distinct": {2, "distinct($x, $y): the binders $x and $y have different names (or one is _)", allVars,
		func(c Cond, m matchEnv) bool {
			a, ok1 := m.name(c.Args[0])
			b, ok2 := m.name(c.Args[1])
			return ok1 && ok2 && (a != b || a == "_")
		}},
}

func orNil(t sdql.Type) sdql.Type {
	if t == nil {
		return sdql.BoolType
	}
	return t
}

func isScalarType(t sdql.Type) bool {
	return t == sdql.RealType || t == sdql.IntType || t == sdql.DenseIntType
}

func hasType(t sdql.Type, want string) bool {
	if t == nil {
		return false
	}
	switch want {
	case "real":
		return t == sdql.RealType
	case "int":
		return t == sdql.IntType || t == sdql.DenseIntType
	case "bool":
		return t == sdql.BoolType
	case "dict":
		_, ok := t.(*sdql.DictType)
		return ok
	case "scalar", "number":
		return isScalarType(t)
	}
	if n, err := strconv.Atoi(strings.TrimPrefix(want, "tensor")); err == nil {
		return sdql.Order(t) == n
	}
	return false
}

func checkConds(r *Rule, m matchEnv) bool {
	for _, c := range r.Conds {
		if !condRegistry[c.Name].check(c, m) {
			return false
		}
	}
	return true
}
