package ad

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// gen generates random well-typed SDQLite programs over the inputs of
// randomInputs, as text (built with the parser, not with struct literals).
// Programs are smooth at the inputs: divisions are by 1.5 + e*e, logs and
// square roots of 1 + e*e, and conditions test keys only.
type gen struct {
	r     *rand.Rand
	fresh int
}

// scope lists the variables in scope by order (0 real, 1 vector, 2 matrix)
// and the int keys.
type scope struct {
	vars [3][]string
	keys []string
}

func (s scope) with(order int, name string) scope {
	out := s
	out.vars[order] = append(append([]string(nil), s.vars[order]...), name)
	return out
}

func (s scope) withKey(name string) scope {
	out := s
	out.keys = append(append([]string(nil), s.keys...), name)
	return out
}

func (g *gen) name(base string) string {
	g.fresh++
	return base + strconv.Itoa(g.fresh)
}

func (g *gen) key(sc scope) string {
	if len(sc.keys) > 0 && g.r.IntN(3) > 0 {
		k := sc.keys[g.r.IntN(len(sc.keys))]
		if g.r.IntN(4) == 0 {
			return k + " + 1"
		}
		return k
	}
	return strconv.Itoa(g.r.IntN(4))
}

// lit returns a real literal (0.25, 0.5, ..., 2.0) or an int literal
// (typed real by its context).
func (g *gen) lit() string {
	if g.r.IntN(4) == 0 {
		return strconv.Itoa(1 + g.r.IntN(3))
	}
	return strconv.FormatFloat(0.25*float64(1+g.r.IntN(8)), 'f', 2, 64)
}

// expr returns an expression of the given order.
func (g *gen) expr(order, depth int, sc scope) string {
	if depth <= 0 || g.r.IntN(6) == 0 {
		return g.leaf(order, sc)
	}
	d := depth - 1
	// constructs common to every order
	switch g.r.IntN(12) {
	case 0:
		x := g.name("x")
		o := g.r.IntN(3)
		return fmt.Sprintf("(let %s = %s in %s)", x, g.expr(o, d, sc), g.expr(order, d, sc.with(o, x)))
	case 1:
		k := g.name("k")
		v := g.name("v")
		src, vo := g.source(d, sc)
		return fmt.Sprintf("(sum(<%s, %s> in %s) %s)", k, v, src, g.expr(order, d, sc.withKey(k).with(vo, v)))
	case 2:
		cond := "true"
		if len(sc.keys) > 0 {
			cond = fmt.Sprintf("%s %s %d", sc.keys[g.r.IntN(len(sc.keys))], []string{"<", "<=", "==", "!=", ">"}[g.r.IntN(5)], g.r.IntN(4))
		}
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("(if %s then %s)", cond, g.expr(order, d, sc))
		}
		return fmt.Sprintf("(if %s then %s else %s)", cond, g.expr(order, d, sc), g.expr(order, d, sc))
	case 3:
		return fmt.Sprintf("(%s + %s)", g.expr(order, d, sc), g.expr(order, d, sc))
	case 4:
		return fmt.Sprintf("(%s - %s)", g.expr(order, d, sc), g.expr(order, d, sc))
	case 5:
		// a scalar times a tensor, or an outer product
		if order > 0 && g.r.IntN(2) == 0 {
			a := g.r.IntN(order)
			return fmt.Sprintf("(%s * %s)", g.expr(a, d, sc), g.expr(order-a, d, sc))
		}
		return fmt.Sprintf("(%s * %s)", g.expr(order, d, sc), g.expr(0, d, sc))
	case 6:
		s := g.expr(0, d, sc)
		return fmt.Sprintf("(%s / (1.5 + %s * %s))", g.expr(order, d, sc), s, s)
	case 7:
		return fmt.Sprintf("(-%s)", g.expr(order, d, sc))
	case 8:
		if order < 2 {
			return fmt.Sprintf("(%s)(%s)", g.expr(order+1, d, sc), g.key(sc))
		}
	case 9:
		if order > 0 {
			return fmt.Sprintf("{ %s -> %s }", g.key(sc), g.expr(order-1, d, sc))
		}
	}
	if order == 0 {
		x := g.expr(0, d, sc)
		switch g.r.IntN(8) {
		case 0:
			return fmt.Sprintf("exp(%s / 4.0)", x)
		case 1:
			return fmt.Sprintf("sin(%s)", x)
		case 2:
			return fmt.Sprintf("cos(%s)", x)
		case 3:
			return fmt.Sprintf("tanh(%s)", x)
		case 4:
			return fmt.Sprintf("sigmoid(%s)", x)
		case 5:
			return fmt.Sprintf("log(1.0 + %s * %s)", x, x)
		case 6:
			return fmt.Sprintf("sqrt(1.0 + %s * %s)", x, x)
		}
		return fmt.Sprintf("(%s * %s)", x, g.expr(0, d, sc))
	}
	// a map over a tensor: sum(<k, v> in X) {k -> f(v)}
	k, v := g.name("k"), g.name("v")
	src, vo := g.source(d, sc)
	if vo == order-1 {
		return fmt.Sprintf("(sum(<%s, %s> in %s) { %s -> %s * %s })", k, v, src, k, v, g.expr(0, d, sc.withKey(k).with(vo, v)))
	}
	return g.leaf(order, sc)
}

// source returns a dictionary to iterate over and the order of its values.
func (g *gen) source(depth int, sc scope) (string, int) {
	if g.r.IntN(2) == 0 {
		return g.expr(1, depth, sc), 0
	}
	return g.expr(2, depth, sc), 1
}

func (g *gen) leaf(order int, sc scope) string {
	vs := sc.vars[order]
	if len(vs) > 0 && g.r.IntN(5) > 0 {
		return vs[g.r.IntN(len(vs))]
	}
	switch order {
	case 0:
		return g.lit()
	case 1:
		return fmt.Sprintf("{ %s -> %s }", g.key(sc), g.lit())
	}
	return fmt.Sprintf("{ %s -> { %s -> %s } }", g.key(sc), g.key(sc), g.lit())
}

func randomInputs(r *rand.Rand) map[string]sdql.Value {
	val := func() sdql.Value { return sdql.Real(0.5 + r.Float64()) }
	vector := func() *sdql.Dict {
		d := sdql.NewDict()
		for k := range 4 {
			if r.IntN(3) > 0 {
				d.Set(k, val())
			}
		}
		return d
	}
	m := sdql.NewDict()
	for k := range 3 {
		if r.IntN(4) > 0 {
			m.Set(k, vector())
		}
	}
	return map[string]sdql.Value{"s": val(), "t": val(), "V": vector(), "W": vector(), "M": m}
}

var inputTypes = map[string]sdql.Type{"s": sdql.RealType, "t": sdql.RealType, "V": sdql.Tensor(1), "W": sdql.Tensor(1), "M": sdql.Tensor(2)}

var inputScope = scope{vars: [3][]string{{"s", "t"}, {"V", "W"}, {"M"}}}

// TestRandomPrograms checks ANF and feeds random programs to
// checkGradient. Set
// NABLASD_AD_RANDOM to the number of programs for a longer run.
func TestRandomPrograms(t *testing.T) {
	n := randomCount(t, 300, 60)
	failures := 0
	for seed := range uint64(n) {
		r := rand.New(rand.NewPCG(seed, 7))
		g := &gen{r: r}
		order := r.IntN(3)
		src := g.expr(order, 4, inputScope)
		prog, err := sdql.Parse("", src)
		if err != nil {
			t.Fatalf("seed %d: generated program does not parse: %v\n%s", seed, err, src)
		}
		if info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: inputTypes}); err != nil || discrete(info.Result) {
			continue // int results (counts) have no gradient
		}
		values := randomInputs(r)
		free := sdql.FreeVars(prog)
		if len(free) == 0 {
			continue
		}
		wrt := free[r.IntN(len(free))]
		in := map[string]sdql.Value{}
		for _, v := range free {
			in[v] = values[v]
		}
		if a := ANF(prog); !isANF(a) {
			t.Errorf("seed %d: not in ANF:\n%s", seed, sdql.Print(a))
		} else if v, err := evalTyped(a, in, inputTypes); err != nil {
			t.Errorf("seed %d: ANF: %v\n%s", seed, err, sdql.Print(a))
		} else if w, err := evalTyped(prog, in, inputTypes); err != nil || !sdql.Equal(v, w) {
			t.Errorf("seed %d: ANF changes the value: %s, want %s (%v)", seed, sdql.FormatValue(v), sdql.FormatValue(w), err)
		}
		if _, err := checkGradient(prog, wrt, in, inputTypes); err != nil {
			failures++
			t.Errorf("seed %d, wrt %s: %v\nprogram: %s", seed, wrt, err, sdql.PrintFlat(prog))
			if failures >= 5 {
				t.Fatal("too many failures")
			}
		}
	}
}

// randomCount is the number of random programs a test checks: normal, or
// short with -short, or NABLASD_AD_RANDOM's.
func randomCount(t *testing.T, normal, short int) int {
	n := normal
	if testing.Short() {
		n = short
	}
	if s := os.Getenv("NABLASD_AD_RANDOM"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil {
			t.Fatalf("NABLASD_AD_RANDOM=%q: %v", s, err)
		}
	}
	return n
}
