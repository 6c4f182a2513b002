package bench

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// Families of generated programs whose size grows with a parameter, for
// measuring how compile time grows with program size (bench/cmd/compiletime,
// doc/compile-time.md). Each program is over a sparse matrix A and a dense
// vector x, and its gradient is taken with respect to x, but for the random
// programs, which are over sdqltest.Gen's inputs.

// A Family is a generator of programs of growing size.
type Family struct {
	// Name is the family's name in tables and plots.
	Name string
	// Doc says what its programs are.
	Doc string
	// Params are the parameters the benchmark runs it at.
	Params []int
	// Program returns the program of parameter n and the input of its
	// gradient ("" for the value).
	Program func(n int) (src, wrt string)
}

// Families are the families the compile-time benchmark measures.
var Families = []Family{
	{"tanh stack, let-bound", "n layers tanh(A h), each let-bound (sdqltest.TanhStack; n = 2 is mlp2)",
		[]int{1, 2, 4, 8, 16, 32}, func(n int) (string, string) { return sdqltest.TanhStack(n), "x" }},
	{"tanh stack, inline", "the same n layers, each written inside the loop of the next, where its dictionary is looked up",
		[]int{1, 2, 4, 8, 16, 32}, func(n int) (string, string) { return TanhStackInline(n), "x" }},
	{"sum of n terms", "n different terms sum(<i, r> in A) tanh(c * sum(<j, a> in r) a * x(j)) added",
		[]int{1, 2, 4, 8, 16, 32, 64}, func(n int) (string, string) { return SumOfTerms(n), "x" }},
	{"a subterm repeated n times", "the term sum(<i, r> in A) tanh(sum(<j, a> in r) a * x(j)) written n times, added",
		[]int{1, 2, 4, 8, 16, 32, 64}, func(n int) (string, string) { return Repeated(n), "x" }},
	{"random programs", "n random terms added, each one of sdqltest.Gen's structured programs of nesting depth 4 over V, W, M and s (a few seeds each), their gradient with respect to V",
		[]int{1, 2, 4, 8, 16, 32}, nil},
}

// TanhStackInline is sdqltest.TanhStack(depth) with every layer written
// where it is used: the dictionary of layer k is built inside the loops of
// layer k+1, which look it up.
func TanhStackInline(depth int) string {
	var layer func(k int, key string) string
	layer = func(k int, key string) string {
		if k >= depth-1 {
			return "x(" + key + ")"
		}
		n := k + 1
		return fmt.Sprintf("(sum(<i%d, r%d> in A) { i%d -> tanh(sum(<j%d, a%d> in r%d) a%d * %s) })(%s)",
			n, n, n, n, n, n, n, layer(n, fmt.Sprintf("j%d", n)), key)
	}
	return "sum(<i0, r0> in A) tanh(sum(<j0, a0> in r0) a0 * " + layer(0, "j0") + ")"
}

// SumOfTerms is n different terms of the same shape added.
func SumOfTerms(n int) string {
	terms := make([]string, n)
	for k := range n {
		terms[k] = fmt.Sprintf("(sum(<i, r> in A) tanh(%d.5 * sum(<j, a> in r) a * x(j)))", k)
	}
	return strings.Join(terms, " +\n")
}

// Repeated is one term written n times, added.
func Repeated(n int) string {
	terms := make([]string, n)
	for k := range n {
		terms[k] = "(sum(<i, r> in A) tanh(sum(<j, a> in r) a * x(j)))"
	}
	return strings.Join(terms, " +\n")
}

// RandomProgram is n random terms added, each a structured random program
// of type real over V, W, M and s (sdqltest.Gen, nesting depth 4) of at
// least 8 nodes.
func RandomProgram(seed uint64, n int) string {
	g := &sdqltest.Gen{R: rand.New(rand.NewPCG(seed, 1)), Funcs: sdqltest.AllFuncs, Structured: true}
	terms := make([]string, 0, n)
	for len(terms) < n {
		t := g.Program("real", 4)
		if e, err := sdql.Parse("", t); err == nil && size(e) >= 8 {
			terms = append(terms, "("+t+")")
		}
	}
	return strings.Join(terms, " +\n")
}

// size is the number of nodes of e.
func size(e sdql.Expr) int {
	n := 0
	sdql.Inspect(e, func(sdql.Expr) bool { n++; return true })
	return n
}
