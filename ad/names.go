package ad

import (
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// namer is a supply of fresh names that avoids every name of some
// programs. Unlike sdql.Names it keeps trailing primes: the fresh variant of
// x' is x1', which scans as one identifier.
type namer struct {
	used map[string]bool
}

func newNamer(es ...sdql.Expr) *namer {
	n := &namer{used: map[string]bool{}}
	for _, e := range es {
		n.reserve(e)
	}
	return n
}

// reserve marks every name occurring in e (bound or free) as used.
func (n *namer) reserve(e sdql.Expr) {
	sdql.Inspect(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.Ident:
			n.used[x.Name] = true
		case *sdql.SumExpr:
			n.used[x.Key.Name] = true
			n.used[x.Val.Name] = true
		case *sdql.LetExpr:
			for _, b := range x.Names {
				n.used[b.Name] = true
			}
		}
		return true
	})
}

// fresh returns an unused name like base (base itself when it is free) and
// marks it used.
func (n *namer) fresh(base string) string {
	stem := strings.TrimRight(base, "'")
	primes := base[len(stem):]
	stem = strings.TrimRight(stem, "0123456789")
	if stem == "" || stem == "_" {
		stem = "x"
	}
	if c := stem + primes; !n.used[c] && !sdql.IsKeyword(stem) {
		n.used[c] = true
		return c
	}
	for i := 1; ; i++ {
		c := stem + strconv.Itoa(i) + primes
		if !n.used[c] {
			n.used[c] = true
			return c
		}
	}
}

// tangentSuffix returns the primes that turn a name of e into its tangent:
// one more than the most trailing primes of any name in e, so that tangent
// names never collide with the program's own names and x ↦ x+suffix is
// injective (shadowing of tangents then follows shadowing of primals).
func tangentSuffix(e sdql.Expr) string {
	most := 0
	for name := range newNamer(e).used {
		k := len(name) - len(strings.TrimRight(name, "'"))
		most = max(most, k)
	}
	return strings.Repeat("'", most+1)
}

// clone copies e deeply (positions are kept), so that a copy can be typed
// in a new context independently of the original.
func clone(e sdql.Expr) sdql.Expr {
	switch x := e.(type) {
	case nil:
		return nil
	case *sdql.Ident:
		c := *x
		return &c
	case *sdql.IntLit:
		c := *x
		return &c
	case *sdql.RealLit:
		c := *x
		return &c
	case *sdql.BoolLit:
		c := *x
		return &c
	case *sdql.ZeroExpr:
		c := *x
		return &c
	}
	kids := sdql.Children(e)
	nk := make([]sdql.Expr, len(kids))
	for i, k := range kids {
		nk[i] = clone(k)
	}
	return sdql.WithChildren(e, nk)
}

// isAtom reports whether e is trivial in the sense of ANF: a variable, a
// literal or zero[T].
func isAtom(e sdql.Expr) bool {
	switch e.(type) {
	case *sdql.Ident, *sdql.IntLit, *sdql.RealLit, *sdql.BoolLit, *sdql.ZeroExpr:
		return true
	}
	return false
}

func ident(name string) *sdql.Ident { return &sdql.Ident{Name: name} }

func binder(name string) sdql.Binder { return sdql.Binder{Name: name} }

func intLit(v int) *sdql.IntLit { return &sdql.IntLit{Value: v} }

func bin(x sdql.Expr, op sdql.Kind, y sdql.Expr) *sdql.BinaryExpr {
	return &sdql.BinaryExpr{X: x, Op: op, Y: y}
}

// binding is one name of a let.
type binding struct {
	name sdql.Binder
	val  sdql.Expr
}

// wrapLets nests single lets for the bindings around body.
func wrapLets(bs []binding, body sdql.Expr) sdql.Expr {
	for i := len(bs) - 1; i >= 0; i-- {
		body = &sdql.LetExpr{Names: []sdql.Binder{bs[i].name}, Values: []sdql.Expr{bs[i].val}, Body: body}
	}
	return body
}
