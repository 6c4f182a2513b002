package fuse

import (
	"sort"

	"github.com/nablasd/nablasd/sdql"
)

// Compose binds every input named in defs to its storage format's Physical
// SDQLite definition (section 5.3): let A = <definition of A> in prog, in
// the order of the names. The rules then fuse the definitions into the
// program and remove the intermediate logical tensors.
func Compose(prog sdql.Expr, defs map[string]sdql.Expr) sdql.Expr {
	names := make([]string, 0, len(defs))
	for n := range defs {
		names = append(names, n)
	}
	sort.Sort(sort.Reverse(sort.StringSlice(names)))
	for _, n := range names {
		prog = &sdql.LetExpr{Names: []sdql.Binder{{Name: n}}, Values: []sdql.Expr{defs[n]}, Body: prog}
	}
	return prog
}
