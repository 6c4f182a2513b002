package fuse

import (
	"fmt"
	"math/rand"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// gen generates small well-typed programs over the inputs V (a dense
// vector of length 4), W (a sparse vector), M (a sparse 4 x 4 matrix), x
// and y (reals). Keys are mostly in 0..3, the inputs' extent (genDims),
// and sometimes 4 or 5: past even the dense V, where a lookup finds
// nothing.
type gen struct {
	r     *rand.Rand
	depth int
	vars  []genVar
	n     int
}

type genVar struct {
	name string
	kind string // real, int, vec, mat
}

func (g *gen) fresh(base string) string {
	g.n++
	return base + strconv.Itoa(g.n)
}

func (g *gen) pick(kind string) (string, bool) {
	var cands []string
	for _, v := range g.vars {
		if v.kind == kind {
			cands = append(cands, v.name)
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	return cands[g.r.Intn(len(cands))], true
}

func (g *gen) with(v genVar, f func() string) string {
	g.vars = append(g.vars, v)
	s := f()
	g.vars = g.vars[:len(g.vars)-1]
	return s
}

func (g *gen) key() string {
	if k, ok := g.pick("int"); ok && g.r.Intn(3) > 0 {
		return k
	}
	if g.r.Intn(8) == 0 {
		return strconv.Itoa(4 + g.r.Intn(2))
	}
	return strconv.Itoa(g.r.Intn(4))
}

// genDims are the extents of gen's inputs.
var genDims = map[string][]int{"V": {4}, "W": {4}, "M": {4, 4}}

// genTypes are the types of gen's inputs, as declared: an empty M's
// dictionary would not show that it is a matrix.
var genTypes = map[string]sdql.Type{"V": vecT, "W": vecT, "M": matT, "x": sdql.RealType, "y": sdql.RealType}

// evalGen evaluates a program over gen's inputs (logical or physical),
// the logical ones typed as declared.
func evalGen(prog sdql.Expr, vals map[string]sdql.Value) (sdql.Value, error) {
	types := map[string]sdql.Type{}
	for n, v := range vals {
		types[n] = sdql.TypeOfValue(v)
		if t, ok := genTypes[n]; ok {
			types[n] = t
		}
	}
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		return nil, err
	}
	return (&sdql.Interp{}).Run(prog, info, vals)
}

func (g *gen) expr(kind string) string {
	g.depth++
	defer func() { g.depth-- }()
	leaf := g.depth > 3 || g.r.Intn(4) == 0
	switch kind {
	case "real":
		if leaf {
			switch g.r.Intn(5) {
			case 0:
				return strconv.Itoa(g.r.Intn(3)) + ".5"
			case 1:
				if v, ok := g.pick("real"); ok {
					return v
				}
				return "x"
			case 2:
				return "1.0"
			case 3:
				return "0.0"
			}
			return "y"
		}
		switch g.r.Intn(13) {
		case 11:
			// a lookup of a dictionary built over an input's keys (the
			// shape of a gradient's one-hot seed looked up)
			k, v := g.fresh("k"), g.fresh("v")
			key := k
			if g.r.Intn(2) == 0 {
				key = "unique(" + k + ")"
			}
			src := []string{"V", "W"}[g.r.Intn(2)]
			body := g.with(genVar{k, "int"}, func() string {
				return g.with(genVar{v, "real"}, func() string { return g.expr("real") })
			})
			return "(sum(<" + k + ", " + v + "> in " + src + ") {" + key + " -> " + body + "})(" + g.key() + ")"
		case 0:
			return "(" + g.expr("real") + " + " + g.expr("real") + ")"
		case 1, 2:
			return "(" + g.expr("real") + " * " + g.expr("real") + ")"
		case 3:
			return "(" + g.expr("real") + " - " + g.expr("real") + ")"
		case 4:
			return "(" + g.expr("vec") + ")(" + g.key() + ")"
		case 5, 6:
			k, v := g.fresh("k"), g.fresh("v")
			src := g.expr("vec")
			if g.r.Intn(4) == 0 {
				return "(sum(<" + k + ", " + v + "> in " + src + ") " + v + ")"
			}
			return "(sum(<" + k + ", " + v + "> in " + src + ") " + g.with(genVar{k, "int"}, func() string {
				return g.with(genVar{v, "real"}, func() string { return g.expr("real") })
			}) + ")"
		case 7:
			cond := g.expr("real") + " > " + g.expr("real")
			switch g.r.Intn(4) {
			case 0:
				cond = "true"
			case 1:
				cond = "false"
			}
			if g.r.Intn(2) == 0 {
				return "(if " + cond + " then " + g.expr("real") + ")"
			}
			return "(if " + cond + " then " + g.expr("real") + " else " + g.expr("real") + ")"
		case 8:
			z := g.fresh("z")
			val := g.expr("real")
			return "(let " + z + " = " + val + " in " + g.with(genVar{z, "real"}, func() string { return g.expr("real") }) + ")"
		case 9:
			return "(-" + g.expr("real") + ")"
		case 10:
			return "(" + g.expr("real") + " * y + " + g.expr("real") + " * y)"
		}
		return "(" + g.expr("mat") + ")(" + g.key() + ")(" + g.key() + ")"
	case "vec":
		if leaf {
			switch g.r.Intn(6) {
			case 0:
				return "V"
			case 1:
				return "W"
			case 2:
				if v, ok := g.pick("vec"); ok {
					return v
				}
				return "V"
			case 3:
				return "{" + g.key() + " -> " + g.expr("real") + "}"
			case 4:
				return "zero[{int -> real}]"
			}
			return "{}"
		}
		switch g.r.Intn(11) {
		case 0:
			return "(" + g.expr("vec") + " + " + g.expr("vec") + ")"
		case 1:
			return "(" + g.expr("real") + " * " + g.expr("vec") + ")"
		case 2:
			return "(" + g.expr("vec") + " * " + g.expr("real") + ")"
		case 3, 4:
			k, v := g.fresh("k"), g.fresh("v")
			src := g.expr("vec")
			key := k
			if g.r.Intn(3) == 0 {
				key = "unique(" + k + ")"
			}
			return "(sum(<" + k + ", " + v + "> in " + src + ") " + g.with(genVar{k, "int"}, func() string {
				return g.with(genVar{v, "real"}, func() string {
					if g.r.Intn(3) == 0 {
						return g.expr("vec")
					}
					return "{" + key + " -> " + g.expr("real") + "}"
				})
			}) + ")"
		case 5:
			return "(" + g.expr("mat") + ")(" + g.key() + ")"
		case 6:
			z := g.fresh("z")
			val := g.expr("vec")
			return "(let " + z + " = " + val + " in " + g.with(genVar{z, "vec"}, func() string { return g.expr("vec") }) + ")"
		case 7:
			return "(if " + g.expr("real") + " > 1.0 then " + g.expr("vec") + ")"
		case 8:
			k, r := g.fresh("k"), g.fresh("r")
			return "(sum(<" + k + ", " + r + "> in " + g.expr("mat") + ") " + g.with(genVar{k, "int"}, func() string {
				return g.with(genVar{r, "vec"}, func() string { return g.expr("vec") })
			}) + ")"
		}
		// a nested loop over one dictionary keyed by the outer key
		d := []string{"V", "W", "{1 -> x, 3 -> y}"}[g.r.Intn(3)]
		j, w, k, v := g.fresh("j"), g.fresh("w"), g.fresh("k"), g.fresh("v")
		return "(sum(<" + j + ", " + w + "> in " + d + ") sum(<" + k + ", " + v + "> in " + d + ") {" + j + " -> " +
			g.with(genVar{j, "int"}, func() string {
				return g.with(genVar{w, "real"}, func() string {
					return g.with(genVar{k, "int"}, func() string { return g.with(genVar{v, "real"}, func() string { return g.expr("real") }) })
				})
			}) + "})"
	case "mat":
		if leaf || g.r.Intn(2) == 0 {
			if g.r.Intn(3) > 0 {
				return "M"
			}
			return "{" + g.key() + " -> " + g.expr("vec") + "}"
		}
		switch g.r.Intn(5) {
		case 0:
			return "(" + g.expr("vec") + " * " + g.expr("vec") + ")"
		case 1:
			k, v := g.fresh("k"), g.fresh("v")
			return "(sum(<" + k + ", " + v + "> in " + g.expr("vec") + ") {" + k + " -> {" + k + " -> 1.0}})"
		case 2:
			k, r := g.fresh("k"), g.fresh("r")
			return "(sum(<" + k + ", " + r + "> in " + g.expr("mat") + ") " + g.with(genVar{k, "int"}, func() string {
				return g.with(genVar{r, "vec"}, func() string { return "{" + k + " -> " + g.expr("vec") + "}" })
			}) + ")"
		case 3:
			return "(" + g.expr("mat") + " + " + g.expr("mat") + ")"
		}
		return "(" + g.expr("real") + " * " + g.expr("mat") + ")"
	}
	panic("gen: kind " + kind)
}

func (g *gen) inputs() map[string]sdql.Value {
	vec := func(dense bool) sdql.Value {
		d := sdql.NewDict()
		for k := 0; k < 4; k++ {
			if dense || g.r.Intn(2) == 0 {
				d.Set(k, sdql.Real(float64(g.r.Intn(7)-3)/2))
			}
		}
		return d
	}
	m := sdql.NewDict()
	for i := 0; i < 4; i++ {
		if g.r.Intn(3) > 0 {
			m.Set(i, vec(false))
		}
	}
	return map[string]sdql.Value{"V": vec(true), "W": vec(false), "M": m,
		"x": sdql.Real(float64(g.r.Intn(9)-4) / 2), "y": sdql.Real(float64(g.r.Intn(9)-4) / 2)}
}

func genCount(def int) int {
	if s := os.Getenv("NABLASD_FUZZ_N"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			return n
		}
	}
	if testing.Short() {
		return def / 10
	}
	return def
}

// TestGeneratedPrograms checks semantic preservation of every pass on
// randomly generated programs: sparsity propagation, simplification,
// equality saturation and multiplication normalization.
func TestGeneratedPrograms(t *testing.T) {
	n := genCount(10000)
	r := rand.New(rand.NewSource(1))
	kinds := []string{"real", "vec", "mat"}
	start := time.Now()
	failures := 0
	for i := 0; i < n && failures < 5; i++ {
		g := &gen{r: r}
		src := g.expr(kinds[r.Intn(3)])
		prog, err := sdql.Parse("", src)
		if err != nil {
			t.Fatalf("generated program does not parse: %v\n%s", err, src)
		}
		inputs := g.inputs()
		want, err := evalGen(prog, inputs)
		if err != nil {
			continue // e.g. a type the generator did not foresee
		}
		types := genTypes
		stages := optimizeGenerated(prog, types, i%4 == 0)
		if i%8 == 1 {
			// the whole pipeline with the inputs in storage formats; the
			// logical inputs are the definitions' values (CSR stores every
			// row, empty ones too)
			var phys []physStage
			phys, inputs = optimizePhysical(t, prog, inputs, i)
			if want, err = evalGen(prog, inputs); err != nil {
				t.Fatal(err)
			}
			stages = append(optimizeGenerated(prog, types, false), phys...)
		}
		for _, st := range stages {
			vals := inputs
			if st.inputs != nil {
				vals = st.inputs
			}
			got, err := evalGen(st.Program, vals)
			if err != nil || !sdql.Identical(got, want) {
				failures++
				gs := "error: " + fmt.Sprint(err)
				if err == nil {
					gs = sdql.FormatValue(got)
				}
				t.Errorf("case %d, stage %s changes the result: got %s, want %s\ninput:  %s\noutput: %s",
					i, st.Name, gs, sdql.FormatValue(want), sdql.PrintFlat(prog), sdql.PrintFlat(st.Program))
				break
			}
		}
	}
	t.Logf("%d generated programs in %v", n, time.Since(start))
}

// physStage is a stage with the inputs it runs on (nil: the logical ones).
type physStage struct {
	Stage
	inputs map[string]sdql.Value
}

// optimizePhysical runs Optimize with V dense, W in COO and M in CSR or
// COO, and returns the composed and normalized stages.
func optimizePhysical(t *testing.T, prog sdql.Expr, inputs map[string]sdql.Value, i int) ([]physStage, map[string]sdql.Value) {
	cfg := &Config{Inputs: genTypes, Dense: map[string]bool{"V": true}, Dims: genDims, Defs: map[string]sdql.Expr{},
		PhysInputs: map[string]sdql.Type{}, Runner: RunnerConfig{IterLimit: 4, NodeLimit: 400, TimeLimit: time.Second}}
	phys := map[string]sdql.Value{"x": inputs["x"], "y": inputs["y"]}
	mat := "csr"
	if i%16 == 1 {
		mat = "coo"
	}
	for _, b := range []struct {
		name, format string
		dims         []int
	}{{"V", "dense", []int{4}}, {"W", "coo", []int{4}}, {"M", mat, []int{4, 4}}} {
		vals, types := physBind(b.format, b.name, inputs[b.name], b.dims)
		cfg.Defs[b.name] = sdql.MustParse(defText(b.format, b.name, len(b.dims)))
		for n, v := range vals {
			phys[n] = v
			cfg.PhysInputs[n] = types[n]
		}
	}
	logical := map[string]sdql.Value{"x": inputs["x"], "y": inputs["y"]}
	for n, def := range cfg.Defs {
		v, err := sdql.Eval(def, phys)
		if err != nil {
			t.Fatalf("definition of %s: %v", n, err)
		}
		logical[n] = v
	}
	res, err := Optimize(prog, cfg)
	if err != nil {
		t.Fatalf("Optimize: %v", err)
	}
	var out []physStage
	for _, st := range res.Stages {
		if st.Name == StageComposed || st.Name == StageNormalized {
			out = append(out, physStage{st, phys})
		}
	}
	return out, logical
}

// optimizeGenerated runs the passes of the pipeline on a generated
// program; saturation (small limits) on every fourth.
func optimizeGenerated(prog sdql.Expr, types map[string]sdql.Type, saturate bool) []physStage {
	var stages []physStage
	dense := map[string]bool{"V": true}
	e := Uniquify(SplitLets(prog))
	c := NewCtx(e, types)
	c.Dense = dense
	c.Dims = genDims
	sparsity, simplify, mulnorm, cleanup := strategies(nil)
	e, _ = sparsity(c, e)
	stages = append(stages, physStage{Stage: Stage{StageSparsity, e}})
	e, _ = Seq(simplify, Repeat(InlineIfCheaper(simplify, nil)), simplify)(c, e)
	stages = append(stages, physStage{Stage: Stage{"simplified", e}})
	if saturate {
		e, _ = Saturate(Uniquify(e), SaturationRules(), types, dense, nil, RunnerConfig{IterLimit: 4, NodeLimit: 400, TimeLimit: time.Second, Dims: genDims})
		stages = append(stages, physStage{Stage: Stage{StageSaturated, e}})
	}
	c = NewCtx(e, types)
	e, _ = Seq(mulnorm, cleanup)(c, e)
	stages = append(stages, physStage{Stage: Stage{StageNormalized, e}})
	return stages
}

// TestRulesOnGeneratedInstances applies every rule, alone, at every
// position of generated programs where it matches, and checks that the
// program's value does not change.
func TestRulesOnGeneratedInstances(t *testing.T) {
	n := genCount(3000)
	r := rand.New(rand.NewSource(2))
	kinds := []string{"real", "vec", "mat"}
	hits := map[string]int{}
	for i := 0; i < n; i++ {
		g := &gen{r: r}
		prog, err := sdql.Parse("", g.expr(kinds[r.Intn(3)]))
		if err != nil {
			t.Fatal(err)
		}
		inputs := g.inputs()
		want, err := evalGen(prog, inputs)
		if err != nil {
			continue
		}
		prog = Uniquify(SplitLets(prog))
		types := genTypes
		for _, rule := range Rules() {
			c := NewCtx(prog, types)
			c.Dense = map[string]bool{"V": true}
			c.Dims = genDims
			// rewrite the first match in pre-order only
			out, ok := TopDown(Apply(rule))(c, prog)
			if !ok {
				continue
			}
			hits[rule.Name]++
			got, err := evalGen(out, inputs)
			if err != nil || !sdql.Identical(got, want) {
				t.Errorf("rule %s (%s) changes the result of\n%s\n=> %s\ngot %v %v, want %s", rule.Name, rule.Pos,
					sdql.PrintFlat(prog), sdql.PrintFlat(out), got, err, sdql.FormatValue(want))
				return
			}
		}
	}
	var never []string
	for _, rule := range Rules() {
		if hits[rule.Name] == 0 {
			never = append(never, rule.Name)
		}
	}
	t.Logf("rule instances: %v", hits)
	if len(never) > 0 && !testing.Short() {
		t.Errorf("rules without generated instances: %v", never)
	}
}
