package sdqlgen

import "fmt"

// TapeProgram returns a random real program shaped as a fit's loss over a
// sparse matrix's entries:
//
//	sum(<i, row> in M) sum(<j, a> in row) let d = INNER in F(d * (OUTER))
//
// INNER is a random sum (over W, V, a row of M or M itself) that may read
// i, j and a: a value per entry that a reverse sweep keeps on a tape on
// M's positions rather than recompute; F is a nonlinearity (tanh, sin or
// softplus) and OUTER a random real that may read a, d, i and j: the
// gradient's sweeps read d back per entry. depth bounds INNER's and
// OUTER's nesting.
func (g *Gen) TapeProgram(depth int) string {
	i, j, a, d := g.fresh("i"), g.fresh("j"), g.fresh("a"), g.fresh("d")
	env := []genVar{{"V", "vec"}, {"W", "vec"}, {"M", "mat"}, {"s", "real"}, {i, "key"}, {j, "key"}, {a, "real"}}
	inner := g.sum("real", depth, env)
	outer := g.gen("real", depth-1, append(env, genVar{d, "real"}))
	f := pick(g.R, []string{"tanh", "sin", "softplus"})
	return fmt.Sprintf("sum(<%s, row> in M) sum(<%s, %s> in row) let %s = %s in %s(%s * (%s))", i, j, a, d, inner, f, d, outer)
}
