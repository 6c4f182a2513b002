package sdqlgen

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// Gen generates random well-typed logical SDQL programs over the inputs of
// GenInputs, for property tests. Programs are generated as text through the
// printer's own syntax, so they also exercise the parser.
type Gen struct {
	R *rand.Rand
	// Funcs are the operations a real may be computed with; nil means
	// sin, cos and tanh (the stream of programs tests were written
	// against). AllFuncs adds the rest, two-argument ones included.
	Funcs []string
	// Index adds index arithmetic to the programs: keys shifted both
	// ways, strided (2 * k), reversed (3 - k), sums of two keys (k + j), and sums over
	// ranges, some bounded by an enclosing key (0:k) or starting at one
	// (k:k + 3), so that lookups run past their inputs' ends on both
	// sides (the stream of programs without it is unchanged).
	Index bool
	// Structured makes the programs repeat their work: lets are drawn
	// more often, bind loops more often, and their names are used more
	// often (the structural variants then have terms to share and hoist);
	// false keeps the stream of programs tests were written against.
	Structured bool
	names      int
}

// AllFuncs are the operations that take any real: Gen.Funcs to exercise
// them all (log, sqrt and the like are left out: their domains are not
// every real).
var AllFuncs = []string{"sin", "cos", "tanh", "sigmoid", "softplus", "abs", "max", "min"}

// GenInputs returns random values for the inputs generated programs use:
// vectors V and W ({int -> real}), a matrix M and a scalar s. Programs
// look keys up to 5 (a literal 4, plus 1): past these inputs' keys 0..4.
func GenInputs(r *rand.Rand) map[string]sdql.Value {
	vec := func() sdql.Value {
		d := sdql.NewDict()
		for i := 0; i < 5; i++ {
			if r.IntN(3) > 0 {
				d.Set(i, sdql.Real(float64(r.IntN(19)-9)/4))
			}
		}
		return d
	}
	m := sdql.NewDict()
	for i := 0; i < 4; i++ {
		if r.IntN(4) > 0 {
			m.Set(i, vec())
		}
	}
	return map[string]sdql.Value{"V": vec(), "W": vec(), "M": m, "s": sdql.Real(float64(r.IntN(9)-4) / 2)}
}

type genVar struct{ name, typ string }

func (g *Gen) fresh(base string) string {
	g.names++
	return fmt.Sprintf("%s%d", base, g.names)
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func (g *Gen) vars(env []genVar, typ string) []string {
	var out []string
	for _, v := range env {
		if v.typ == typ {
			out = append(out, v.name)
		}
	}
	return out
}

// Program returns a random program of the given type ("real", "vec" or
// "mat") with nesting depth at most depth.
func (g *Gen) Program(typ string, depth int) string {
	env := []genVar{{"V", "vec"}, {"W", "vec"}, {"M", "mat"}, {"s", "real"}}
	return g.gen(typ, depth, env)
}

func (g *Gen) gen(typ string, depth int, env []genVar) string {
	r := g.R
	leaf := depth <= 0 || r.IntN(4) == 0
	if g.Structured && (typ == "real" || typ == "vec") {
		if !leaf && r.IntN(3) == 0 {
			return g.let(typ, depth, env)
		}
		if lets := g.letVars(env, typ); len(lets) > 0 && r.IntN(3) == 0 {
			return pick(r, lets)
		}
	}
	switch typ {
	case "key":
		if g.Index && r.IntN(2) == 0 {
			return g.indexKey(env)
		}
		if ks := g.vars(env, "key"); len(ks) > 0 && r.IntN(3) > 0 {
			k := pick(r, ks)
			if r.IntN(4) == 0 {
				return k + " + 1"
			}
			return k
		}
		return fmt.Sprint(r.IntN(5))
	case "bool":
		switch r.IntN(4) {
		case 0:
			return g.gen("key", depth-1, env) + " < " + g.gen("key", depth-1, env)
		case 1:
			return "(" + g.gen("real", depth-1, env) + ") > 0.5"
		case 2:
			return "not (" + g.gen("bool", depth-1, env) + ")"
		}
		return "(" + g.gen("bool", depth-1, env) + ") && (" + g.gen("bool", depth-1, env) + ")"
	case "real":
		if leaf {
			if rs := g.vars(env, "real"); len(rs) > 0 && r.IntN(2) == 0 {
				return pick(r, rs)
			}
			switch r.IntN(3) {
			case 0:
				return fmt.Sprintf("%g", float64(r.IntN(9)-4)/2)
			case 1:
				return pick(r, []string{"V", "W"}) + "(" + g.gen("key", 0, env) + ")"
			}
			return "M(" + g.gen("key", 0, env) + ")(" + g.gen("key", 0, env) + ")"
		}
		switch r.IntN(9) {
		case 0:
			return "(" + g.gen("real", depth-1, env) + ") + (" + g.gen("real", depth-1, env) + ")"
		case 1:
			return "(" + g.gen("real", depth-1, env) + ") * (" + g.gen("real", depth-1, env) + ")"
		case 2:
			return "(" + g.gen("real", depth-1, env) + ") - (" + g.gen("real", depth-1, env) + ")"
		case 3:
			return "-(" + g.gen("real", depth-1, env) + ")"
		case 4:
			funcs := g.Funcs
			if funcs == nil {
				funcs = []string{"sin", "cos", "tanh"}
			}
			op := pick(r, funcs)
			if op == "max" || op == "min" {
				return op + "(" + g.gen("real", depth-1, env) + ", " + g.gen("real", depth-1, env) + ")"
			}
			return op + "(" + g.gen("real", depth-1, env) + ")"
		case 5:
			return g.sum("real", depth, env)
		case 6:
			return "if " + g.gen("bool", depth-1, env) + " then " + g.gen("real", depth-1, env) + " else " + g.gen("real", depth-1, env)
		case 7:
			return g.let("real", depth, env)
		}
		return "(" + g.gen("vec", depth-1, env) + ")(" + g.gen("key", 0, env) + ")"
	case "vec":
		if leaf {
			if vs := g.vars(env, "vec"); len(vs) > 0 && r.IntN(3) > 0 {
				return pick(r, vs)
			}
			return "{ " + g.gen("key", 0, env) + " -> " + g.gen("real", 0, env) + " }"
		}
		switch r.IntN(7) {
		case 0:
			return "(" + g.gen("vec", depth-1, env) + ") + (" + g.gen("vec", depth-1, env) + ")"
		case 1:
			return "(" + g.gen("real", depth-1, env) + ") * (" + g.gen("vec", depth-1, env) + ")"
		case 2:
			return "(" + g.gen("vec", depth-1, env) + ") * (" + g.gen("real", depth-1, env) + ")"
		case 3:
			return g.sum("vec", depth, env)
		case 4:
			return g.let("vec", depth, env)
		case 5:
			return "if " + g.gen("bool", depth-1, env) + " then " + g.gen("vec", depth-1, env)
		}
		return "M(" + g.gen("key", 0, env) + ")"
	case "mat":
		if leaf {
			if ms := g.vars(env, "mat"); len(ms) > 0 {
				return pick(r, ms)
			}
			return "M"
		}
		switch r.IntN(4) {
		case 0:
			return "(" + g.gen("vec", depth-1, env) + ") * (" + g.gen("vec", depth-1, env) + ")"
		case 1:
			return "(" + g.gen("mat", depth-1, env) + ") + (" + g.gen("mat", depth-1, env) + ")"
		case 2:
			return g.sum("mat", depth, env)
		}
		return g.let("mat", depth, env)
	}
	panic("sdqltest: unknown type " + typ)
}

// indexKey is an index expression over the keys in scope (Gen.Index): a
// key shifted by -2..2, twice a key, a key reversed (3 - k: read
// backward), or the sum or difference of two.
func (g *Gen) indexKey(env []genVar) string {
	r := g.R
	ks := g.vars(env, "key")
	if len(ks) == 0 {
		return fmt.Sprint(r.IntN(5))
	}
	k := pick(r, ks)
	switch r.IntN(7) {
	case 5:
		return fmt.Sprint(2+r.IntN(3)) + " - " + k
	case 0:
		return k + " - 1"
	case 1:
		return k + " + 2"
	case 2:
		return "2 * " + k
	case 3:
		return "2 * " + k + " - " + fmt.Sprint(r.IntN(3))
	case 4:
		return k + " + " + pick(r, ks)
	}
	return k + " - " + pick(r, ks)
}

// rangeSrc is a range to sum over (Gen.Index): constant bounds, or
// bounds from an enclosing key (a triangle, a window).
func (g *Gen) rangeSrc(env []genVar) string {
	r := g.R
	ks := g.vars(env, "key")
	if len(ks) > 0 && r.IntN(2) == 0 {
		k := pick(r, ks)
		switch r.IntN(3) {
		case 0:
			return "(0:" + k + ")"
		case 1:
			return "(" + k + ":" + k + " + 3)"
		}
		return "(" + k + " - 1:" + fmt.Sprint(3+r.IntN(3)) + ")"
	}
	return fmt.Sprintf("(%d:%d)", r.IntN(3), 2+r.IntN(5))
}

// letVars returns the let-bound variables of env of type typ.
func (g *Gen) letVars(env []genVar, typ string) []string {
	var out []string
	for _, v := range env {
		if v.typ == typ && strings.HasPrefix(v.name, "x") {
			out = append(out, v.name)
		}
	}
	return out
}

// sum generates a sum over a vector or the matrix, with a body of typ.
func (g *Gen) sum(typ string, depth int, env []genVar) string {
	k, v := g.fresh("k"), g.fresh("v")
	src, vt := g.gen("vec", depth-2, env), "real"
	if g.R.IntN(3) == 0 {
		src, vt = "M", "vec"
	}
	if g.Index && g.R.IntN(3) == 0 {
		src, vt = g.rangeSrc(env), "key" // a range's value is its key
	}
	inner := append(append([]genVar(nil), env...), genVar{k, "key"}, genVar{v, vt})
	// over M's rows, a body that does not vanish on an empty row (a
	// constant plus the rest) now and then: an empty row then counts
	nonzero := ""
	if src == "M" && g.R.IntN(3) == 0 {
		nonzero = "1.5 + "
	}
	var body string
	switch typ {
	case "real":
		body = nonzero + g.gen("real", depth-1, inner)
	case "vec":
		if g.R.IntN(2) == 0 || nonzero != "" {
			body = "{ " + k + " -> " + nonzero + g.gen("real", depth-1, inner) + " }"
		} else {
			body = g.gen("vec", depth-1, inner)
		}
	default:
		body = "{ " + k + " -> " + g.gen("vec", depth-1, inner) + " }"
	}
	return "(sum(<" + k + ", " + v + "> in " + src + ") " + body + ")"
}

func (g *Gen) let(typ string, depth int, env []genVar) string {
	x := g.fresh("x")
	bt := pick(g.R, []string{"real", "vec"})
	val := g.gen(bt, depth-1, env)
	if g.Structured && depth > 1 && g.R.IntN(2) == 0 {
		val = g.sum(bt, depth-1, env)
	}
	inner := append(append([]genVar(nil), env...), genVar{x, bt})
	body := g.gen(typ, depth-1, inner)
	sep := " in "
	if g.R.IntN(3) == 0 && !strings.HasPrefix(body, "-") && !strings.HasPrefix(body, "(") {
		sep = "\n" // the line form; a body starting with - or ( would continue the value
	}
	return "(let " + x + " = " + val + sep + body + ")"
}

// Indent is a helper for error messages: the program with a margin.
func Indent(s string) string { return "    " + strings.ReplaceAll(s, "\n", "\n    ") }

// TanhStack returns a program of depth layers of tanh over one sparse
// matrix A, written as ../shared/workloads/mlp2.sdql writes two:
// h1 = tanh(A x), h(k+1) = tanh(A hk), and the sum of the last layer's
// entries. Depth 2 is mlp2.
func TanhStack(depth int) string {
	var b strings.Builder
	prev := "x"
	for k := 1; k < depth; k++ {
		fmt.Fprintf(&b, "let h%d = sum(<i, row> in A) { i -> tanh(sum(<j, a> in row) a * %s(j)) } in\n", k, prev)
		prev = fmt.Sprintf("h%d", k)
	}
	fmt.Fprintf(&b, "sum(<i, row> in A) tanh(sum(<j, a> in row) a * %s(j))", prev)
	return b.String()
}
