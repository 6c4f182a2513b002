package crosscheck

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

// programs is how many programs TestCrossCheck checks: 2,000, 300 with
// -short, 50 under the race detector, or $NABLASD_CROSSCHECK_N.
func programs() int { return sampleSize("NABLASD_CROSSCHECK_N", 2000, 300, 50) }

// sampleSize is how many programs a cross-check checks: full, short with
// -short, race under the race detector, or the positive number in the
// environment variable env.
func sampleSize(env string, full, short, race int) int {
	if n, err := strconv.Atoi(os.Getenv(env)); err == nil && n > 0 {
		return n
	}
	switch {
	case raceEnabled:
		return race
	case testing.Short():
		return short
	}
	return full
}

// goEvery: the generated Go of every goEvery()-th program's jobs is built
// (in one go build) and checked, over one of its storage rounds: every
// 4th program, every 10th with -short (a sample of about 30 kernels, so
// that make test checks the native path too).
func goEvery() int {
	if testing.Short() {
		return 10
	}
	return 4
}

// report is what a cross-check found.
type report struct {
	failures []string
	programs int // programs whose oracle evaluated
	jobs     int // programs and gradients
	runs     int // variant runs compared
	goCases  []gorun.Case
	goWants  []sdql.Value
	goWhere  []string
	// taped counts the programs whose value-and-gradient kernel reads a
	// tape at a loop's position (lower's positionlocates changed it)
	taped int
}

// config is what a cross-check runs: the rules (nil: the built-in ones),
// whether the generated Go is checked too, and whether the programs have
// index arithmetic (sdqlgen.Gen.Index).
type config struct {
	rules  []*fuse.Rule
	withGo bool
	index  bool
	// valueGrad checks real-valued programs' value and gradient from one
	// reverse sweep (a fit's kernel: ad.Derive with Request.Value)
	// instead of the program and its gradient apart.
	valueGrad bool
}

// checkProgram checks program number i of seed: the program and its
// gradient with respect to one input, over every storage round, through
// every variant; the generated Go cases are collected, not run.
func checkProgram(seed uint64, i int, cfg config) report {
	rules, withGo := cfg.rules, cfg.withGo
	c, err := generateWith(seed, i, cfg.index, cfg.valueGrad)
	if err != nil {
		return report{failures: []string{err.Error()}}
	}
	r, src, in, prog, wrt := c.r, c.src, c.in, c.prog, c.wrt
	goRound := -1
	if withGo && i%goEvery() == 0 {
		goRound = r.IntN(rounds())
	}
	var rep report
	counted := false
	for round := 0; round < rounds(); round++ {
		ts, err := in.store(round)
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("program %d: %v", i, err))
			return rep
		}
		b, err := bind(ts, in.scalars())
		if err != nil {
			rep.failures = append(rep.failures, fmt.Sprintf("program %d: binding: %v", i, err))
			return rep
		}
		ws := []string{"", wrt}
		if cfg.valueGrad {
			ws = []string{wrt}
		}
		for _, w := range ws {
			j := &job{prog: prog, wrt: w, b: b, rules: rules}
			if cfg.valueGrad {
				j.derive = valueAndGrad(prog, w)
			}
			want, err := j.oracle()
			if err != nil {
				continue // not a program over these inputs, or not differentiable with respect to w
			}
			if !counted {
				rep.programs, counted = 1, true
			}
			rep.jobs++
			goName := ""
			if round == goRound {
				goName = fmt.Sprintf("k%d_%d_%s", seed, i, strings.ToLower(w))
			}
			outs, gc := j.run(goName)
			rep.runs += len(outs)
			what := "the program"
			switch {
			case cfg.valueGrad:
				what = "its value and gradient with respect to " + w
				if rep.taped == 0 && tapeRead(j) {
					rep.taped = 1 // this program's, in some round
				}
			case w != "":
				what = "its gradient with respect to " + w
			}
			where := fmt.Sprintf("program %d (seed %d), %s, over %s", i, seed, what, b.desc)
			if bad := disagreements(want, outs); len(bad) > 0 {
				rep.failures = append(rep.failures, fmt.Sprintf("%s:\n%s\n  %s\nM: %s",
					where, sdqlgen.Indent(src), strings.Join(bad, "\n  "), in.desc))
			}
			if gc != nil {
				gc.Name = where
				rep.goCases = append(rep.goCases, *gc)
				rep.goWants = append(rep.goWants, want)
				rep.goWhere = append(rep.goWhere, fmt.Sprintf("%s\n%s", where, sdqlgen.Indent(src)))
			}
		}
	}
	return rep
}

// generated is program number i of a seed: its text, inputs and the
// input to differentiate it with respect to, and the random source that
// made them, to draw more from.
type generated struct {
	r    *rand.Rand
	src  string
	in   inputs
	prog sdql.Expr
	wrt  string
}

// generate makes program number i of seed.
func generate(seed uint64, i int) (*generated, error) { return generateWith(seed, i, false, false) }

// generateWith is generate, with index arithmetic in the programs when
// index is set (sdqlgen.Gen.Index), and only real-valued programs
// differentiated with respect to a tensor when real is set.
func generateWith(seed uint64, i int, index, real bool) (*generated, error) {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	g := &sdqlgen.Gen{R: r, Index: index}
	typ := []string{"real", "vec", "mat"}[r.IntN(3)]
	if real {
		typ = "real"
	}
	src := g.Program(typ, 4)
	if real && i%2 == 0 {
		// every other one a loss over M's entries with a value per
		// entry on a tape (sdqlgen.Gen.TapeProgram)
		src = g.TapeProgram(3)
	}
	in := genInputs(r)
	prog, err := sdql.Parse("gen.sdql", src)
	if err != nil {
		return nil, fmt.Errorf("program %d does not parse: %v\n%s", i, err, src)
	}
	wrt := []string{"V", "W", "M", "s"}[r.IntN(4)]
	if real {
		wrt = []string{"V", "W", "M"}[r.IntN(3)]
	}
	return &generated{r: r, src: src, in: in, prog: prog, wrt: wrt}, nil
}

// crossCheck checks programs 0..n-1 of seed on all cores, stopping early
// once maxFailures are found; the generated Go is built and run at the
// end when withGo.
func crossCheck(t *testing.T, seed uint64, n int, cfg config, maxFailures int) report {
	t.Helper()
	reps := make([]report, n)
	var next, failed int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				i := int(next)
				next++
				stop := failed >= int64(maxFailures)
				mu.Unlock()
				if i >= n || stop {
					return
				}
				reps[i] = checkProgram(seed, i, cfg)
				if len(reps[i].failures) > 0 {
					mu.Lock()
					failed += int64(len(reps[i].failures))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	var all report
	for _, r := range reps {
		all.failures = append(all.failures, r.failures...)
		all.programs += r.programs
		all.jobs += r.jobs
		all.runs += r.runs
		all.taped += r.taped
		all.goCases = append(all.goCases, r.goCases...)
		all.goWants = append(all.goWants, r.goWants...)
		all.goWhere = append(all.goWhere, r.goWhere...)
	}
	return all
}

// TestCrossCheck: every generated program and its gradient, over every
// storage format of its inputs, gives the oracle's dictionary through
// --opt none|rules|full × --exec compiled|interp, and through the
// generated Go of the optimized program.
func TestCrossCheck(t *testing.T) {
	runCrossCheck(t, 1, programs(), config{withGo: !raceEnabled})
}

// indexPrograms is how many programs TestCrossCheckIndex checks: 400, 30
// with -short, 10 under the race detector, or $NABLASD_CROSSCHECK_N.
func indexPrograms() int { return sampleSize("NABLASD_CROSSCHECK_N", 400, 30, 10) }

// TestCrossCheckIndex is TestCrossCheck over programs with index
// arithmetic (sdqlgen.Gen.Index): keys shifted both ways, strided and
// summed (V(k - 1), M(2 * k)(k + j)), sums over ranges bounded by
// enclosing keys, every input in every format (the compressed ones
// included), the program and a gradient, through every variant and the
// generated Go: the tests lowering decides and the loops it partitions
// (lower's affineGuards) must not change a result.
func TestCrossCheckIndex(t *testing.T) {
	runCrossCheck(t, 34, indexPrograms(), config{withGo: !raceEnabled, index: true})
}

// runCrossCheck checks programs 0..n-1 of seed and reports what differs.
func runCrossCheck(t *testing.T, seed uint64, n int, cfg config) {
	start := time.Now()
	rep := crossCheck(t, seed, n, cfg, 20)
	for _, f := range rep.failures {
		t.Error(f)
	}
	checked := time.Since(start)
	goRuns := checkGo(t, rep)
	if rep.programs < n*3/4 {
		t.Errorf("only %d of %d generated programs evaluated", rep.programs, n)
	}
	t.Logf("%d programs, %d programs and gradients over every storage round, %d variant runs agree as dictionaries (%v); %d generated Go kernels agree (%v)",
		rep.programs, rep.jobs, rep.runs, checked.Round(time.Millisecond), goRuns, (time.Since(start) - checked).Round(time.Millisecond))
}

// checkGo builds and runs the generated Go kernels a cross-check
// collected (when it found no failure) and compares them with the
// interpreter's values; it returns how many ran.
func checkGo(t *testing.T, rep report) int {
	t.Helper()
	goRuns := 0
	if len(rep.goCases) > 0 && len(rep.failures) == 0 {
		results, err := gorun.Run(rep.goCases)
		if err != nil {
			t.Fatal(err)
		}
		for i, res := range results {
			want := rep.goWants[i]
			switch {
			case res.Err != nil:
				t.Errorf("%s: generated Go: %v\n%s", rep.goWhere[i], res.Err, rep.goCases[i].Kernel.Source)
			case res.KernelErr != nil:
				t.Errorf("%s: generated Go fails: %v\n%s", rep.goWhere[i], res.KernelErr, rep.goCases[i].Kernel.Source)
			default:
				// the generated Go returns the derivative program's value;
				// a scalar program's gradient is completed to the wrt
				// input's positions by the caller, as the API does
				got := res.Value
				if d := sdql.DiffDicts(got, want, 1e-9); d != "" && !sdql.Equal(got, want) {
					t.Errorf("%s: generated Go %s, interpreter %s (%s)\n%s", rep.goWhere[i], sdql.FormatValue(got), sdql.FormatValue(want), d, rep.goCases[i].Kernel.Source)
				}
			}
			goRuns++
		}
	}
	return goRuns
}

// unsoundRules are the built-in rules with LookupOfSum and
// LookupOfSumUnique as they were before issue 15: without the condition
// that the key lies inside the dense input's extent.
func unsoundRules(t *testing.T) []*fuse.Rule {
	t.Helper()
	bad, err := fuse.ParseRules("fusion.rules", `
# LookupOfSum: (unsound) without inextent.
[LookupOfSum, Normalize]
(sum(<$k, $v> in $d) {$k -> $e})($x)  =>  let $k = $x in let $v = $d($x) in $e
  where dense($d), notfree($k, $x), notfree($v, $x), nounique($e)

# LookupOfSumUnique: (unsound) without inextent.
[LookupOfSumUnique, Normalize]
(sum(<$k, $v> in $d) {unique($k) -> $e})($x)  =>  let $k = $x in let $v = $d($x) in $e
  where dense($d), notfree($k, $x), notfree($v, $x), nounique($e)
`)
	if err != nil {
		t.Fatal(err)
	}
	var rules []*fuse.Rule
	replaced := 0
	for _, r := range fuse.Rules() {
		for _, b := range bad {
			if b.Name == r.Name {
				r = b
				replaced++
			}
		}
		rules = append(rules, r)
	}
	if replaced != len(bad) {
		t.Fatalf("replaced %d of %d rules", replaced, len(bad))
	}
	return rules
}

// TestCrossCheckCatchesUnsoundRule: with a deliberately unsound rule (the
// extent condition dropped again), the cross-check finds a disagreement,
// so it would have caught issue 15's first fault.
func TestCrossCheckCatchesUnsoundRule(t *testing.T) {
	rep := crossCheck(t, 1, programs(), config{rules: unsoundRules(t)}, 1)
	if len(rep.failures) == 0 {
		t.Fatalf("the cross-check of %d programs did not notice LookupOfSum without its extent condition", rep.programs)
	}
	t.Logf("caught after at most %d programs:\n%s", rep.programs, rep.failures[0])
}

// FuzzCrossCheck checks one generated program per input (its seed and
// index) as TestCrossCheck does, the generated Go excepted; make fuzz runs
// it for longer.
func FuzzCrossCheck(f *testing.F) {
	for i := 0; i < 8; i++ {
		f.Add(uint64(1), uint32(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, i uint32) {
		rep := checkProgram(seed, int(i), config{})
		for _, fail := range rep.failures {
			t.Error(fail)
		}
	})
}
