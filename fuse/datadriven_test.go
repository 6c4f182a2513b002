package fuse

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cockroachdb/datadriven"
	"github.com/nablasd/nablasd/internal/sdqltest"
	"github.com/nablasd/nablasd/sdql"
)

// The fuse commands of the shared data-driven vocabulary:
//
//	norm group=(G, ...) [rules=(R, ...)] [dense=(X, ...)] [dims=(X=4, A=4x3)] [innermost] expect=(R, ...)
//	    normalizes the program with the Normalize rules of the groups (and
//	    InlineLet) or the named rules, prints the result
//	saturate [dense=(...)] [disable=(R, ...)] [noshare] expect=(...)
//	    runs equality saturation and prints the extracted program and the
//	    stop reason (noshare: a term extracted at two places is not bound
//	    once, RunnerConfig.NoShare)
//	strategy [dense=(...)] expect=(...)
//	    the first input line is a strategy (ParseStrategy), applied to the
//	    whole program
//	plan [wrt=X] [dense=(...)] [formats=(A=csr/4x4, ...)] [disable=(...)] [opt=rules] expect=(...)
//	    runs Optimize (differentiating with ad.Grad when wrt is given) and
//	    prints every stage
//
// dims=(...) gives the extents of inputs' modes (Config.Dims), which the
// inextent condition needs to prove a lookup of a dense input inside it;
// an input given formats= has its format's shape as its dims.
//
// Every case whose input binds values checks that each output (each stage
// for plan) evaluates to the same value as the input program; formatted
// inputs are stored in their format for the physical stages. expect=
// names rules that must fire; every rule must be expected somewhere.
func fuseSuite() *sdqltest.Suite {
	s := sdqltest.New()
	s.Register("norm", runNorm)
	s.Register("saturate", runSaturate)
	s.Register("plan", runPlan)
	s.Register("strategy", runStrategyCmd)
	return s
}

func TestDataDriven(t *testing.T) { fuseSuite().Run(t, "testdata/*.txt") }

func argList(d *datadriven.TestData, key string) []string {
	var out []string
	for _, a := range d.CmdArgs {
		if a.Key == key {
			out = append(out, a.Vals...)
		}
	}
	return out
}

func argSet(d *datadriven.TestData, key string) map[string]bool {
	m := map[string]bool{}
	for _, v := range argList(d, key) {
		m[v] = true
	}
	return m
}

func inputTypes(inputs map[string]sdql.Value) map[string]sdql.Type {
	types := map[string]sdql.Type{}
	for n, v := range inputs {
		types[n] = sdql.TypeOfValue(v)
	}
	return types
}

func checkExpect(t *testing.T, d *datadriven.TestData, fired map[string]int) {
	t.Helper()
	for _, name := range argList(d, "expect") {
		if RuleByName(name) == nil && !goPasses[name] {
			t.Errorf("%s: expect=%s names no rule", d.Pos, name)
		} else if fired[name] == 0 {
			t.Errorf("%s: rule %s did not fire (fired: %v)", d.Pos, name, fired)
		}
	}
}

// goPasses are the named Go passes that expect= may name.
var goPasses = map[string]bool{"InlineLet": true, "InlineIfCheaper": true, "ANF": true,
	"ResolveMembership": true, "GroupByKey": true}

// checkSame evaluates the input and an output over the bindings and
// fails when they differ.
func checkSame(t *testing.T, where string, in, out sdql.Expr, inputs, outInputs map[string]sdql.Value) {
	t.Helper()
	if len(inputs) == 0 {
		return
	}
	want, err := sdql.Eval(in, inputs)
	if err != nil {
		t.Fatalf("%s: input does not evaluate: %v", where, err)
	}
	got, err := sdql.Eval(out, outInputs)
	if err != nil {
		t.Errorf("%s: output does not evaluate: %v\n%s", where, err, sdql.Print(out))
		return
	}
	if !sdql.Equal(got, want) {
		t.Errorf("%s: output changes the result: got %s, want %s\n%s", where, sdql.FormatValue(got), sdql.FormatValue(want), sdql.Print(out))
	}
}

func parseProg(t *testing.T, d *datadriven.TestData) (sdql.Expr, map[string]sdql.Value) {
	inputs, prog := sdqltest.MustSplit(t, d)
	e, err := sdql.Parse("prog.sdql", prog)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	return e, inputs
}

func runNorm(t *testing.T, d *datadriven.TestData) string {
	e, inputs := parseProg(t, d)
	var rules []*Rule
	for _, g := range argList(d, "group") {
		rules = append(rules, RulesOf(g, TagNormalize)...)
	}
	for _, n := range argList(d, "rules") {
		r := RuleByName(n)
		if r == nil {
			t.Fatalf("%s: no rule %s", d.Pos, n)
		}
		rules = append(rules, r)
	}
	types := inputTypes(inputs)
	prep := Uniquify(SplitLets(e))
	c := NewCtx(prep, types)
	c.Dense = argSet(d, "dense")
	c.Dims = sdqltest.ScanDims(t, d)
	s := Choice(ApplyAny(rules), InlineLet)
	var out sdql.Expr
	if d.HasArg("innermost") {
		out, _ = NormalizeInnermost(s)(c, prep)
	} else {
		out, _ = Normalize(s)(c, prep)
	}
	checkExpect(t, d, c.Fired)
	checkSame(t, d.Pos, e, out, inputs, inputs)
	return sdql.Print(out) + "\n"
}

func runStrategyCmd(t *testing.T, d *datadriven.TestData) string {
	first, rest, _ := strings.Cut(d.Input, "\n")
	strat, err := ParseStrategy(first)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	inputs, prog, err := sdqltest.Split(rest)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	e, err := sdql.Parse("prog.sdql", prog)
	if err != nil {
		t.Fatalf("%s: %v", d.Pos, err)
	}
	prep := Uniquify(SplitLets(e))
	c := NewCtx(prep, inputTypes(inputs))
	c.Dense = argSet(d, "dense")
	c.Dims = sdqltest.ScanDims(t, d)
	out, ok := strat(c, prep)
	checkExpect(t, d, c.Fired)
	checkSame(t, d.Pos, e, out, inputs, inputs)
	if !ok {
		return "failed\n"
	}
	return sdql.Print(out) + "\n"
}

func runSaturate(t *testing.T, d *datadriven.TestData) string {
	e, inputs := parseProg(t, d)
	types := inputTypes(inputs)
	prep := Uniquify(SplitLets(e))
	rc := RunnerConfig{TimeLimit: 5 * time.Second, Disabled: argSet(d, "disable"), Dims: sdqltest.ScanDims(t, d), NoShare: d.HasArg("noshare")}
	if d.HasArg("iters") {
		d.ScanArgs(t, "iters", &rc.IterLimit)
	}
	if d.HasArg("nodes") {
		d.ScanArgs(t, "nodes", &rc.NodeLimit)
	}
	out, rep := Saturate(prep, SaturationRules(), types, argSet(d, "dense"), nil, rc)
	checkExpect(t, d, rep.Fired)
	checkSame(t, d.Pos, e, out, inputs, inputs)
	return fmt.Sprintf("%s\n-- stopped: %s\n", sdql.Print(out), rep.Stop)
}

var formatArg = regexp.MustCompile(`^(\w+)=(\w+)/(\d+)(?:x(\d+))?$`)

func runPlan(t *testing.T, d *datadriven.TestData) string {
	e, inputs := parseProg(t, d)
	cfg := &Config{Inputs: inputTypes(inputs), Dense: argSet(d, "dense"), Disabled: argSet(d, "disable"),
		Dims: sdqltest.ScanDims(t, d), Runner: RunnerConfig{TimeLimit: 5 * time.Second}}
	if d.HasArg("opt") {
		d.ScanArgs(t, "opt", &cfg.Opt)
	}
	var wrt string
	if d.HasArg("wrt") {
		d.ScanArgs(t, "wrt", &wrt) // differentiate with ad.Grad
	}
	physVals := map[string]sdql.Value{}
	for n, v := range inputs {
		physVals[n] = v
	}
	for _, f := range argList(d, "formats") {
		m := formatArg.FindStringSubmatch(f)
		if m == nil {
			t.Fatalf("%s: bad format %q (want NAME=FORMAT/DIMS)", d.Pos, f)
		}
		dims := []int{atoi(m[3])}
		if m[4] != "" {
			dims = append(dims, atoi(m[4]))
		}
		if _, given := cfg.Dims[m[1]]; !given {
			cfg.Dims[m[1]] = dims
		}
		if cfg.Defs == nil {
			cfg.Defs, cfg.PhysInputs = map[string]sdql.Expr{}, map[string]sdql.Type{}
		}
		cfg.Defs[m[1]] = sdql.MustParse(defText(m[2], m[1], len(dims)))
		v, ok := inputs[m[1]]
		if !ok {
			v = sdql.NewDict()
		}
		vals, types := physBind(m[2], m[1], v, dims)
		for n, x := range vals {
			physVals[n] = x
		}
		for n, x := range types {
			cfg.PhysInputs[n] = x
		}
		delete(physVals, m[1])
	}
	res, err := optimizeGrad(e, wrt, cfg)
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	checkExpect(t, d, res.Fired)
	physical := false
	for _, st := range res.Stages {
		if st.Name == StageComposed {
			physical = true
		}
		if st.Name == StageDifferentiated {
			e = st.Program // later stages compute the gradient
		}
		vals := inputs
		if physical {
			vals = physVals
		}
		checkSame(t, d.Pos+" stage "+st.Name, e, st.Program, inputs, vals)
		sdqltest.CheckRoundTrip(t, d.Pos, st.Program)
	}
	var b strings.Builder
	for _, st := range res.Stages {
		fmt.Fprintf(&b, "-- stage: %s\n%s\n", st.Name, sdql.Print(st.Program))
	}
	for _, rep := range res.Reports {
		fmt.Fprintf(&b, "-- saturation stopped: %s\n", rep.Stop)
	}
	return b.String()
}

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// TestEveryRuleExpected fails for any rule that no test case expects to fire.
func TestEveryRuleExpected(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.txt")
	expected := map[string]bool{}
	re := regexp.MustCompile(`expect=\(([^)]*)\)`)
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(data), -1) {
			for _, n := range strings.Split(m[1], ",") {
				expected[strings.TrimSpace(n)] = true
			}
		}
	}
	var missing []string
	for _, r := range Rules() {
		if !expected[r.Name] {
			missing = append(missing, r.Name)
		}
	}
	for name := range goPasses {
		if !expected[name] {
			missing = append(missing, name)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("rules no test expects to fire: %s", strings.Join(missing, ", "))
	}
}
