package lower

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// A Pass is one named step of lowering, run on the loop IR after the
// physical program has been built as loops (the "build" step: Lower's
// into and decideStorage). Every pass rewrites the program in place and
// keeps its meaning: each is an optimization a test may switch off
// (Options.Disable), except the Required ones.
type Pass struct {
	// Name is how plans, goldens, tests and `nablasd plan --after` name
	// the pass; a pass run twice has a name per run ("deadcode",
	// "late-deadcode").
	Name string
	// Doc is one line: what the pass does (its function's doc comment has
	// the rest).
	Doc string
	// Func is the pass.
	Func func(p *Program, opts Options)
	// Dense passes choose dense or positional storage: Options.NoDense
	// (every level hashed) skips them.
	Dense bool
	// Required passes cannot be disabled: a back end needs what they do.
	Required bool
}

// passes is the table of lowering passes, in the order they run.
var passes = []Pass{
	{Name: "canonicalize", Func: noOpts(Canonicalize),
		Doc: "rewrite every expression in canonical form (what CanonString compares)"},
	{Name: "early-deadcode", Func: noOpts(eliminateDead),
		Doc: "remove what computes nothing the program needs"},
	{Name: "coalesce", Func: noOpts(Coalesce),
		Doc: "one loop over all positions of a range of compressed segments whose body ignores the parent"},
	{Name: "interchange", Func: noOpts(Interchange), Dense: true,
		Doc: "loop over a matrix result's rows (transposing the input's structure) so each row is built in a workspace"},
	{Name: "interchange-deadcode", Func: noOpts(eliminateDead), Dense: true,
		Doc: "remove what interchange left unread"},
	{Name: "gatherscatters", Func: noOpts(GatherScatters),
		Doc: "turn a scatter into a dense vector at an affine key into a gather where the cost model prefers it (Smith normal form)"},
	{Name: "affineguards", Func: noOpts(AffineGuards),
		Doc: "drop the tests of index arithmetic the facts imply (Fourier–Motzkin) and partition loops where the rest hold"},
	{Name: "splitguards", Func: noOpts(SplitGuards),
		Doc: "split an innermost loop's range where a guard on its variable holds, and unswitch invariant ones"},
	{Name: "hoistinvariants", Func: noOpts(HoistInvariants),
		Doc: "move loop-invariant lets and inserts before their counted loop"},
	{Name: "choosediagonal", Func: noOpts(ChooseDiagonal), Dense: true,
		Doc: "store a two-level tensor inserted only at its parent's key as a diagonal"},
	{Name: "chooseappended", Func: noOpts(ChooseAppended), Dense: true,
		Doc: "store a level whose parents each get all children in one burst as appended (Gustavson)"},
	{Name: "densifylevels", Func: noOpts(DensifyLevels), Dense: true,
		Doc: "store a hashed level under a sized dense one as dense where its keys come from range loops, bounded"},
	{Name: "commoninserts", Func: noOpts(CommonInserts),
		Doc: "reuse an insert's position for a later insert of the same key under the same parent into a dense level"},
	{Name: "hoistexprs", Func: noOpts(HoistExprs),
		Doc: "move maximal loop-invariant subexpressions into lets before their loop"},
	{Name: "mergeguards", Func: noOpts(MergeGuards),
		Doc: "fold an if nested last in an if with the same condition into it"},
	{Name: "dropimpliedguards", Func: noOpts(DropImpliedGuards),
		Doc: "remove the tests that enclosing ifs and loop ranges already imply"},
	{Name: "localaccumulators", Func: noOpts(LocalAccumulators),
		Doc: "accumulate a loop's adds into one fixed tensor position in a local, added once after"},
	{Name: "hoistconjuncts", Func: noOpts(HoistConjuncts),
		Doc: "compute a select condition's loop-invariant conjuncts before the loop"},
	{Name: "commonsubexprs", Func: noOpts(CommonSubexprs),
		Doc: "let-bind a subexpression a statement computes more than once"},
	{Name: "propagatecopies", Func: noOpts(PropagateCopies),
		Doc: "remove lets that only copy another variable"},
	{Name: "factorconstants", Func: noOpts(FactorConstants),
		Doc: "multiply an accumulator by a sum's constant factor once, after its loop"},
	{Name: "rangelevelloops", Func: noOpts(RangeLevelLoops),
		Doc: "loop over a range (locating each key) instead of a dense level's keys below a bound"},
	{Name: "zeroextend", Func: ZeroExtend,
		Doc: "read a workspace's missing key as zero where the completed result only gains zeros"},
	{Name: "late-dropimpliedguards", Func: noOpts(DropImpliedGuards),
		Doc: "remove the tests a loop zeroextend made over all keys implies"},
	{Name: "fullpositions", Func: noOpts(FullPositions), Dense: true,
		Doc: "keep no presence for a positions level every present row fills whole"},
	{Name: "fullrows", Func: FullRows, Dense: true,
		Doc: "keep no presence for the dense rows of a completed result or of a tape only located"},
	{Name: "coverfull", Func: noOpts(CoverFull),
		Doc: "keep no presence for a level 0 a loop writes over exactly its size"},
	{Name: "dropmarks", Func: noOpts(DropMarks),
		Doc: "keep no presence for a dense workspace whose lookups default to zero"},
	{Name: "affinelocates", Func: noOpts(AffineLocates),
		Doc: "read a dense level's value where a locate's key is certainly inside it"},
	{Name: "positionlocates", Func: noOpts(PositionLocates),
		Doc: "read a full positions level at the position of a loop over its input level instead of searching the key"},
	{Name: "markparallel", Func: noOpts(MarkParallel),
		Doc: "mark the outermost loops whose iterations only add as parallel"},
	{Name: "writeonce", Func: noOpts(WriteOnce),
		Doc: "assign (not add) where every position is written at most once; mark a covering init"},
	{Name: "dropemptyguards", Func: noOpts(DropEmptyGuards),
		Doc: "remove a segment's non-empty test where its body does nothing for an empty one"},
	{Name: "droprowinserts", Func: noOpts(DropRowInserts), Dense: true,
		Doc: "remove a full dense row's insert that only names its position"},
	{Name: "late-propagatecopies", Func: noOpts(PropagateCopies),
		Doc: "remove the copies dropmarks' zero-defaulted lookups left"},
	{Name: "fuseloops", Func: noOpts(FuseLoops),
		Doc: "merge consecutive loops over the same range that touch disjoint state"},
	{Name: "versionloops", Func: noOpts(VersionLoops),
		Doc: "write a loop once per combination of the invariant conditions its body tests"},
	{Name: "late-deadcode", Func: noOpts(eliminateDead), Required: true,
		Doc: "remove what versioned copies no longer read (Go refuses an unread local)"},
	{Name: "markprimitives", Func: noOpts(MarkPrimitives),
		Doc: "mark the loops a primitive rule runs whole"},
	{Name: "fingersearches", Func: noOpts(FingerSearches),
		Doc: "start an ascending search from the last key found, and gallop"},
}

// noOpts adapts a pass that takes no options.
func noOpts(f func(*Program)) func(*Program, Options) {
	return func(p *Program, _ Options) { f(p) }
}

// A passOrder says that pass Before must run before pass After, and why.
type passOrder struct{ Before, After, Why string }

// passOrders are the ordering rules of the table, checked at init (as the
// Go compiler's SSA pass table checks its own).
var passOrders = []passOrder{
	{"canonicalize", "dropimpliedguards", "facts and conditions are compared in canonical form"},
	{"canonicalize", "affineguards", "index arithmetic is read as affine forms of canonical atoms"},
	{"gatherscatters", "affineguards", "the gather's box tests become its inner loops' bounds"},
	{"affineguards", "splitguards", "a guard the facts decide is not split on"},
	{"affineguards", "affinelocates", "affinelocates continues affineguards' analysis"},
	{"dropmarks", "affinelocates", "a locate is certain where the level keeps no presence"},
	{"affinelocates", "markparallel", "a locate turned into a read is what a worker reads"},
	{"affinelocates", "positionlocates", "a full level 0's locate is its key once affinelocates made it a read"},
	{"fullrows", "positionlocates", "a locate at the loop's position needs the levels fullrows and fullpositions made full"},
	{"positionlocates", "fingersearches", "a locate turned into the loop's position is no search"},
	{"choosediagonal", "densifylevels", "a diagonal is cheaper than a dense block"},
	{"chooseappended", "densifylevels", "an appended row is cheaper than a dense block"},
	{"densifylevels", "affinelocates", "a locate is certain only in a dense level"},
	{"interchange", "chooseappended", "interchange makes each row of the result one iteration's burst"},
	{"hoistinvariants", "chooseappended", "an insert must sit where it runs"},
	{"hoistinvariants", "mergeguards", "hoisting guards a loop by its bounds"},
	{"hoistexprs", "mergeguards", "hoisting guards a loop by its bounds"},
	{"hoistinvariants", "commoninserts", "hoisting brings an inner loop's inserts of one row side by side"},
	{"densifylevels", "commoninserts", "only a dense level's insert is its position"},
	{"dropimpliedguards", "rangelevelloops", "the guard k < H is left alone once 0 <= k is known"},
	{"rangelevelloops", "markparallel", "a loop over a range is what can be split among workers"},
	{"fullpositions", "fullrows", "fullrows makes full the rows of a level fullpositions made full"},
	{"zeroextend", "dropmarks", "zeroextend's lookups are dropmarks' zero-defaulted reads"},
	{"zeroextend", "late-dropimpliedguards", "a loop over a workspace's keys, made a loop over a range, implies its tests"},
	{"late-dropimpliedguards", "writeonce", "a test the loop implies does not keep a dense result's rows from being covered"},
	{"rangelevelloops", "dropmarks", "run after the passes that may add loops over levels"},
	{"coverfull", "markparallel", "a parallel loop writes a covered level in place"},
	{"markparallel", "writeonce", "markparallel keeps adds; writeonce decides a parallel loop's sharing"},
	{"writeonce", "markprimitives", "the primitive rules take assignments or adds"},
	{"fullrows", "dropemptyguards", "only a full level's insert cannot fail"},
	{"coverfull", "dropemptyguards", "only a full level's insert cannot fail"},
	{"fullrows", "droprowinserts", "only a full level's insert names its row"},
	{"coverfull", "droprowinserts", "only a full level's insert names its row"},
	{"dropmarks", "late-propagatecopies", "dropmarks' zero-defaulted lookups are copied into a row's variable"},
	{"markparallel", "fuseloops", "a loop marked parallel is left as it is"},
	{"splitguards", "versionloops", "versioning copies a split loop's parts whole"},
	{"versionloops", "late-deadcode", "a version's resolved tests leave lets unread"},
	{"markparallel", "fingersearches", "a parallel loop's iterations do not run in order: it keeps bisecting"},
	{"markprimitives", "fingersearches", "a loop a primitive runs whole is not rewritten"},
}

func init() {
	if err := checkPasses(passes, passOrders); err != nil {
		panic("lower: " + err.Error())
	}
}

// checkPasses checks a pass table: names unique and non-empty, every pass
// documented and with a function, every ordering rule naming two passes
// of the table in the order it says.
func checkPasses(ps []Pass, orders []passOrder) error {
	at := map[string]int{}
	for i, p := range ps {
		switch {
		case p.Name == "" || strings.ContainsAny(p.Name, " \t,()="):
			return fmt.Errorf("pass %d has no proper name (%q: one word, no commas or brackets)", i, p.Name)
		case p.Doc == "":
			return fmt.Errorf("pass %s has no doc line", p.Name)
		case p.Func == nil:
			return fmt.Errorf("pass %s has no function", p.Name)
		}
		if _, dup := at[p.Name]; dup {
			return fmt.Errorf("pass %s appears twice: a pass run twice needs a name per run", p.Name)
		}
		at[p.Name] = i
	}
	for _, o := range orders {
		b, okb := at[o.Before]
		a, oka := at[o.After]
		switch {
		case !okb:
			return fmt.Errorf("ordering rule names no pass %q", o.Before)
		case !oka:
			return fmt.Errorf("ordering rule names no pass %q", o.After)
		case b >= a:
			return fmt.Errorf("pass %s must run before %s (%s)", o.Before, o.After, o.Why)
		}
	}
	return nil
}

// Passes returns the lowering passes in the order they run (a copy).
func Passes() []Pass { return append([]Pass(nil), passes...) }

// BuildStep is the name Options.Trace gives the program as lowering built
// it, before the first pass.
const BuildStep = "build"

// checkDisable checks Options.Disable: every name a pass of the table that
// may be disabled.
func checkDisable(names []string) (map[string]bool, error) {
	if len(names) == 0 {
		return nil, nil
	}
	off := map[string]bool{}
	for _, n := range names {
		var p *Pass
		for i := range passes {
			if passes[i].Name == n {
				p = &passes[i]
			}
		}
		switch {
		case p == nil:
			return nil, fmt.Errorf("lower: no pass named %q%s (the passes: %s)", n, didYouMean(n, passNames()), strings.Join(passNames(), ", "))
		case p.Required:
			return nil, fmt.Errorf("lower: pass %q cannot be disabled: it is required", n)
		}
		off[n] = true
	}
	return off, nil
}

// passNames are the names of the table's passes, in order.
func passNames() []string {
	out := make([]string, len(passes))
	for i, p := range passes {
		out[i] = p.Name
	}
	return out
}

// runPasses runs the table over p, skipping the disabled passes, the dense
// ones with NoDense, and calling opts.Trace after each pass that ran.
func runPasses(p *Program, opts Options, off map[string]bool) {
	for _, ps := range passes {
		if off[ps.Name] || ps.Dense && opts.NoDense {
			continue
		}
		ps.Func(p, opts)
		if p.Body == nil {
			p.Body = &Block{}
		}
		if opts.Trace != nil {
			opts.Trace(ps.Name, p)
		}
	}
}

// didYouMean suggests the name of names closest to n, as
// " (did you mean X?)", or "".
func didYouMean(n string, names []string) string {
	if s := sdql.Suggest(n, names); s != "" {
		return fmt.Sprintf(" (did you mean %q?)", s)
	}
	return ""
}
