package nablasd

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"plugin"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/jit"
)

// tierProgram is the tier tests' program, a matrix's quadratic form
// scaled by c, differentiated with respect to the dense x: its gradient
// is dense in x's extent, so a rerun over inputs of another shape gets a
// result of another shape. Its constant makes its plugin the tests' own;
// newTierProgram changes it, for a plugin this process has not opened.
var tierProgram = "sum(<i, r> in A) sum(<j, a> in r) a * x(i) * x(j) * c * 1.0625"

var tierPrograms = 0

func newTierProgram() {
	tierPrograms++
	tierProgram = fmt.Sprintf("sum(<i, r> in A) sum(<j, a> in r) a * x(i) * x(j) * c * %d.0625", tierPrograms)
}

// tierInputs are the program's inputs at size n (a band matrix).
func tierInputs(t *testing.T, n int, seed float64) Inputs {
	var rows, cols []int
	var vals []float64
	for i := 0; i < n; i++ {
		for _, j := range []int{i - 1, i, i + 2} {
			if j >= 0 && j < n {
				rows, cols = append(rows, i), append(cols, j)
				vals = append(vals, seed+float64(i)-0.5*float64(j))
			}
		}
	}
	A, err := formats.FromCoords([]int{n, n}, [][]int{rows, cols}, vals, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, n)
	for i := range x {
		x[i] = seed - float64(i)/3
	}
	return Inputs{"A": A, "x": DenseVector(x), "c": 0.5}
}

// tierWant is the gradient the executor exec gives over inputs on its
// own (Options.Exec "compiled" or "jit"): the reference of each tier's
// runs. The two may differ in the last bits of a sum (exec and the
// generated Go do not round alike); each tier must give its own.
func tierWant(t *testing.T, inputs Inputs, exec string) string {
	t.Helper()
	q, err := Prepare(tierProgram, inputs, &Options{Exec: exec})
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.Compile("x")
	if err != nil {
		t.Fatal(err)
	}
	if k.Executor() != exec {
		t.Fatalf("Exec %q ran %q: warnings %q", exec, k.Executor(), q.Warnings())
	}
	r := k.NewResult()
	if err := k.Run(r, nil); err != nil {
		t.Fatal(err)
	}
	return r.String()
}

// wants are a tier test's references for one set of inputs.
type wants struct{ compiled, jit string }

// of is the reference of the executor that filled dst.
func (w wants) of(dst *Result) string {
	if dst.jr != nil {
		return w.jit
	}
	return w.compiled
}

// tierKernel compiles the program's gradient with options o.
func tierKernel(t *testing.T, inputs Inputs, o *Options) (*Query, *Kernel) {
	t.Helper()
	q, err := Prepare(tierProgram, inputs, o)
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.Compile("x")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.WaitBuild) // no build outlives the test
	return q, k
}

// needPlugins skips a test that builds native kernels where plugins
// cannot be built, and gives it a cache of its own.
func needPlugins(t *testing.T) {
	t.Helper()
	if err := jit.Available(); err != nil {
		t.Skip(err)
	}
	t.Setenv("NABLASD_JIT_CACHE", t.TempDir())
}

// hookJIT replaces the JIT's entry points for one test (nil: keep).
func hookJIT(t *testing.T, cached func([]byte, ...string) (map[string]plugin.Symbol, bool, error),
	load func([]byte, ...string) (map[string]plugin.Symbol, error), available func() error) {
	oc, ol, oa, orn, own := loadCachedJIT, loadJIT, jitAvailable, readNote, writeNote
	t.Cleanup(func() { loadCachedJIT, loadJIT, jitAvailable, readNote, writeNote = oc, ol, oa, orn, own })
	if cached != nil {
		// a fake cache keeps no verdicts
		loadCachedJIT = cached
		readNote = func([]byte, string) ([]byte, bool) { return nil, false }
		writeNote = func([]byte, string, []byte) error { return nil }
	}
	if load != nil {
		loadJIT = load
	}
	if available != nil {
		jitAvailable = available
	}
}

// missing is a cache that holds nothing.
func missing([]byte, ...string) (map[string]plugin.Symbol, bool, error) { return nil, false, nil }

// run is one run of a tier test: which executor filled its destination,
// over which inputs, with what result.
type run struct {
	native bool
	in     string
	got    string
}

// runOnce runs k into dst over inputs (named in), waiting first for a
// build under way, and records the run.
func runOnce(t *testing.T, k *Kernel, dst *Result, in string, inputs Inputs, runs *[]run) {
	t.Helper()
	if k.Tier().State == "building" {
		k.WaitBuild()
	}
	if err := k.Run(dst, inputs); err != nil {
		t.Fatal(err)
	}
	*runs = append(*runs, run{dst.jr != nil, in, dst.String()})
}

// check compares every run with the reference of its executor and its
// inputs, and reports whether the native kernel ran.
func check(t *testing.T, runs []run, ws map[string]wants) (ranNative bool) {
	t.Helper()
	for i, r := range runs {
		want := ws[r.in].compiled
		if r.native {
			want = ws[r.in].jit
		}
		if r.got != want {
			t.Errorf("run %d over %s inputs, native %v: %s, want %s", i, r.in, r.native, r.got, want)
		}
		ranNative = ranNative || r.native
	}
	return ranNative
}

// TestTierSwitches: with a tiny JITAfter, an "auto" kernel runs the
// closures, builds its native kernel in the background, measures both
// and decides: every run's result is its executor's, on one destination
// filled by both in turn and over inputs of other shapes. The next query
// of the same program finds the native kernel built (the process's table
// or the cache) and runs it from its first run.
func TestTierSwitches(t *testing.T) {
	needPlugins(t)
	newTierProgram()
	small, large := tierInputs(t, 6, 1), tierInputs(t, 11, 2)
	q, k := tierKernel(t, small, &Options{JITAfter: time.Nanosecond})
	if tr := k.Tier(); tr.State != "counting" || k.Executor() != "compiled" {
		t.Fatalf("after Compile: %v, want the closures counting", tr)
	}
	dst, other := k.NewResult(), k.NewResult()
	var runs []run
	runOnce(t, k, dst, "small", nil, &runs)
	if runs[0].native {
		t.Fatalf("first run: by the native kernel (%v), want the closures", k.Tier())
	}
	if tr := k.Tier(); tr.State != "building" && tr.State != "measuring" {
		t.Fatalf("after a run past JITAfter: %v, want a build", tr)
	}
	k.WaitBuild()
	for i := 0; i < 40 && k.Tier().State == "measuring"; i++ {
		// three runs a round, so that each executor fills each
		// destination with each shape
		runOnce(t, k, dst, "small", nil, &runs)
		runOnce(t, k, other, "large", large, &runs)
		runOnce(t, k, dst, "large", large, &runs)
	}
	tr := k.Tier()
	t.Logf("%v", tr)
	if tr.State != "decided" || tr.Build <= 0 || tr.Native <= 0 || tr.Compiled <= 0 {
		t.Fatalf("after the build: %v, want a decision measured", tr)
	}
	if want := map[bool]string{true: "jit", false: "compiled"}[tr.Native <= tr.Compiled]; k.Executor() != want || tr.Executor != want {
		t.Errorf("measured %v native, %v compiled: Executor() %q, want %q (%v)", tr.Native, tr.Compiled, k.Executor(), want, tr)
	}
	// the decided executor on destinations both filled, both shapes
	for _, d := range []*Result{dst, other, dst, k.NewResult()} {
		runOnce(t, k, d, "large", large, &runs)
		runOnce(t, k, d, "small", small, &runs)
		if native := k.Executor() == "jit"; runs[len(runs)-1].native != native || d.idle != nil {
			t.Errorf("decided %v: a run native %v, idle destination kept %v", tr, runs[len(runs)-1].native, d.idle != nil)
		}
	}
	if len(q.Warnings()) != 0 {
		t.Errorf("warnings %q", q.Warnings())
	}

	// a new query of the program: the native kernel is there (its
	// verdict forgotten, TestTierVerdict's subject: it measures again)
	notes, _ := filepath.Glob(filepath.Join(jit.CacheDir(), "*", "note-*"))
	for _, n := range notes {
		os.Remove(n)
	}
	_, k2 := tierKernel(t, small, nil)
	if tr := k2.Tier(); tr.State != "measuring" || k2.Executor() != "jit" || tr.Source <= 0 {
		t.Fatalf("the program again: %v, want the native kernel loaded at Compile", tr)
	}
	r := k2.NewResult()
	runOnce(t, k2, r, "small", nil, &runs)
	if !runs[len(runs)-1].native {
		t.Errorf("its first run: by the closures, want the native kernel")
	}
	for i := 0; i < 20 && k2.Tier().State == "measuring"; i++ {
		runOnce(t, k2, r, "large", large, &runs)
	}
	if s := k2.Tier().State; s != "decided" {
		t.Errorf("the program again, after 20 runs: %s, want decided", s)
	}
	ws := map[string]wants{
		"small": {tierWant(t, small, "compiled"), tierWant(t, small, "jit")},
		"large": {tierWant(t, large, "compiled"), tierWant(t, large, "jit")},
	}
	if !check(t, runs, ws) {
		t.Error("the native kernel never ran")
	}
}

// TestTierOff: NABLASD_JIT=off and Options.Exec "compiled" never leave
// the closures, however long they run, even with the native kernel in
// the cache; Options.JITAfter < 0 never builds, but takes a cached
// kernel.
func TestTierOff(t *testing.T) {
	t.Cleanup(func() { unopenable.Store(nil) })
	in := tierInputs(t, 5, 3)
	want := tierWant(t, in, "compiled")
	built := 0
	hookJIT(t, nil, func([]byte, ...string) (map[string]plugin.Symbol, error) {
		built++
		return nil, errors.New("no build was asked for")
	}, func() error { return nil })
	runs := func(k *Kernel) {
		t.Helper()
		r := k.NewResult()
		for i := 0; i < 20; i++ {
			if err := k.Run(r, nil); err != nil {
				t.Fatal(err)
			}
			k.WaitBuild()
			if r.String() != want || r.jr != nil {
				t.Fatalf("%v: %s (native %v), want %s by the closures", k.Tier(), r, r.jr != nil, want)
			}
		}
	}
	for _, c := range []struct {
		env   string
		o     Options
		state string
	}{
		{"off", Options{JITAfter: time.Nanosecond}, "off"},
		{"OFF", Options{}, "off"},
		{"", Options{Exec: "compiled"}, "fixed"},
		{"", Options{JITAfter: -1}, "off"},
	} {
		t.Setenv("NABLASD_JIT", c.env)
		hookJIT(t, missing, nil, nil)
		q, k := tierKernel(t, in, &c.o)
		runs(k)
		if tr := k.Tier(); tr.State != c.state || tr.Executor != "compiled" || built > 0 || len(q.Warnings()) > 0 {
			t.Errorf("NABLASD_JIT=%q %+v: %v, built %d times, warnings %q; want %s on the closures, no build", c.env, c.o, tr, built, q.Warnings(), c.state)
		}
		// with the kernel in the cache: only JITAfter < 0 takes it
		var asked bool
		hookJIT(t, func([]byte, ...string) (map[string]plugin.Symbol, bool, error) {
			asked = true
			return nil, true, errors.New("the cache was asked")
		}, nil, nil)
		q, k = tierKernel(t, in, &c.o)
		if c.o.JITAfter < 0 {
			if !asked || k.Tier().State != "failed" || len(q.Warnings()) != 1 {
				t.Errorf("JITAfter < 0: %v, warnings %q; want the cache asked", k.Tier(), q.Warnings())
			}
			// a plugin that cannot be opened: the process asks no more,
			// and warns no more
			asked = false
			q, k = tierKernel(t, in, &c.o)
			if asked || k.Tier().State != "off" || len(q.Warnings()) != 0 {
				t.Errorf("after a cached plugin failed to open: asked %v, %v, warnings %q", asked, k.Tier(), q.Warnings())
			}
			continue
		}
		runs(k)
		if asked {
			t.Errorf("NABLASD_JIT=%q %+v: the cache was asked", c.env, c.o)
		}
	}
	t.Setenv("NABLASD_JIT", "maybe")
	hookJIT(t, missing, nil, nil)
	q, k := tierKernel(t, in, &Options{JITAfter: -1})
	if ws := q.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], `NABLASD_JIT="maybe": want off or on`) || k.Tier().State != "off" {
		t.Errorf("NABLASD_JIT=maybe: warnings %q, %v", ws, k.Tier())
	}
}

// TestTierBuildFailure: a build that fails leaves the kernel on the
// closures for good, its error kept, with one warning however many runs
// follow; no second build is tried.
func TestTierBuildFailure(t *testing.T) {
	t.Setenv("NABLASD_JIT", "")
	in := tierInputs(t, 7, 1)
	want := tierWant(t, in, "compiled")
	builds := 0
	hookJIT(t, missing, func([]byte, ...string) (map[string]plugin.Symbol, error) {
		builds++
		return nil, errors.New("jit: go build -buildmode=plugin: exit status 1 (forced)")
	}, func() error { return nil })
	q, k := tierKernel(t, in, &Options{JITAfter: time.Nanosecond})
	r := k.NewResult()
	for i := 0; i < 30; i++ {
		if err := k.Run(r, nil); err != nil {
			t.Fatal(err)
		}
		k.WaitBuild()
		if r.String() != want {
			t.Fatalf("run %d: %s, want %s", i, r, want)
		}
	}
	tr := k.Tier()
	if tr.State != "failed" || tr.Executor != "compiled" || tr.Err == nil || !strings.Contains(tr.Err.Error(), "forced") || builds != 1 {
		t.Errorf("%v (err %v), %d builds; want failed on the closures after one build", tr, tr.Err, builds)
	}
	var jitWarnings []string
	for _, w := range q.Warnings() {
		if strings.Contains(w, "JIT") {
			jitWarnings = append(jitWarnings, w)
		}
	}
	if len(jitWarnings) != 1 || !strings.Contains(jitWarnings[0], "forced") || !strings.Contains(jitWarnings[0], "compiled kernel keeps running") {
		t.Errorf("warnings %q, want one about the failed build", q.Warnings())
	}
}

// TestTierOneBuildAtATime: kernels past their threshold together build
// one at a time; one that finds the slot taken tries again at a later
// run.
func TestTierOneBuildAtATime(t *testing.T) {
	t.Setenv("NABLASD_JIT", "")
	in := tierInputs(t, 4, 2)
	release := make(chan struct{})
	var mu sync.Mutex
	running, most := 0, 0
	hookJIT(t, missing, func([]byte, ...string) (map[string]plugin.Symbol, error) {
		mu.Lock()
		running++
		most = max(most, running)
		mu.Unlock()
		<-release
		mu.Lock()
		running--
		mu.Unlock()
		return nil, errors.New("jit: not built (test)")
	}, func() error { return nil })
	_, k1 := tierKernel(t, in, &Options{JITAfter: time.Nanosecond})
	q2, err := Prepare(tierProgram+" + 0.0", in, &Options{JITAfter: time.Nanosecond})
	if err != nil {
		t.Fatal(err)
	}
	k2, err := q2.Compile("x")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k2.WaitBuild)
	r1, r2 := k1.NewResult(), k2.NewResult()
	for _, k := range []*Kernel{k1, k2, k2} {
		if err := k.Run(map[*Kernel]*Result{k1: r1, k2: r2}[k], nil); err != nil {
			t.Fatal(err)
		}
	}
	if s1, s2 := k1.Tier().State, k2.Tier().State; s1 != "building" || s2 != "counting" {
		t.Errorf("while one builds: %s and %s, want building and counting", s1, s2)
	}
	close(release)
	k1.WaitBuild()
	if err := k2.Run(r2, nil); err != nil {
		t.Fatal(err)
	}
	k2.WaitBuild()
	if s := k2.Tier().State; s != "failed" || most != 1 {
		t.Errorf("the second kernel after the first's build: %s, %d builds at once; want its own build, one at a time", s, most)
	}
}

// TestTierConcurrentRuns: goroutines running one kernel, each into its
// own destinations, while it switches to the native kernel and measures
// it (go test -race).
func TestTierConcurrentRuns(t *testing.T) {
	needPlugins(t)
	small, large := tierInputs(t, 6, 1), tierInputs(t, 9, 4)
	ws := map[string]wants{ // Exec "jit" builds the plugin first
		"small": {tierWant(t, small, "compiled"), tierWant(t, small, "jit")},
		"large": {tierWant(t, large, "compiled"), tierWant(t, large, "jit")},
	}
	// the cache misses, so that the kernel starts on the closures and
	// switches during the runs (its build finds the plugin open)
	hookJIT(t, missing, nil, nil)
	q, k := tierKernel(t, small, &Options{JITAfter: 50 * time.Microsecond})
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	natives := make([]bool, 4)
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a, b := k.NewResult(), k.NewResult()
			deadline := time.Now().Add(time.Minute)
			for i := 0; ; i++ {
				if err := k.Run(a, nil); err != nil {
					errs <- err
					return
				}
				if err := k.Run(b, large); err != nil {
					errs <- err
					return
				}
				if a.String() != ws["small"].of(a) || b.String() != ws["large"].of(b) {
					errs <- fmt.Errorf("goroutine %d run %d (%v): %s and %s, want %s and %s", g, i, k.Tier(), a, b, ws["small"].of(a), ws["large"].of(b))
					return
				}
				natives[g] = natives[g] || a.jr != nil || b.jr != nil
				if s := k.Tier().State; s == "decided" || s == "failed" || time.Now().After(deadline) {
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if tr := k.Tier(); tr.State != "decided" || len(q.Warnings()) > 0 {
		t.Errorf("%v, warnings %q; want a decision", tr, q.Warnings())
	}
	if !slices.Contains(natives, true) {
		t.Error("no goroutine ran the native kernel")
	}
}

// TestTierDefault: the default executor is "auto".
func TestTierDefault(t *testing.T) {
	t.Setenv("NABLASD_JIT", "off")
	_, k := tierKernel(t, tierInputs(t, 3, 1), nil)
	if tr := k.Tier(); tr.State != "off" || tr.After != DefaultJITAfter || !strings.Contains(tr.Reason, "NABLASD_JIT=off") {
		t.Errorf("the default: %v (after %v), want auto, switched off by NABLASD_JIT", tr, tr.After)
	}
	if _, err := Prepare("1", nil, &Options{Exec: "native"}); err == nil || !strings.Contains(err.Error(), `want one of [auto compiled jit interp]`) {
		t.Errorf("Exec \"native\": %v", err)
	}
}

// TestTierNativeRunFails: a native kernel that fails a run the closures
// run (here a stand-in plugin whose run always fails) is dropped for
// good, with one warning; the run gives the closures' result.
func TestTierNativeRunFails(t *testing.T) {
	t.Setenv("NABLASD_JIT", "")
	in := tierInputs(t, 5, 2)
	want := tierWant(t, in, "compiled")
	hookJIT(t, func([]byte, ...string) (map[string]plugin.Symbol, bool, error) {
		return map[string]plugin.Symbol{
			"NablasdRun": func([]any, any, any, int) (float64, int, error) {
				return 0, 1, errors.New("kernel: index 7 out of range (stand-in)")
			},
			"NablasdAlloc":   func() (any, any) { return nil, nil },
			"NablasdEntries": func(any, func([]int, float64) bool) {},
			"NablasdEmpty":   func(any, func([]int) bool) {},
			"NablasdDense":   func(any) []float64 { return nil },
		}, true, nil
	}, nil, func() error { return nil })
	q, k := tierKernel(t, in, nil)
	if k.Executor() != "jit" {
		t.Fatalf("a cache hit: %v", k.Tier())
	}
	r := k.NewResult()
	for i := 0; i < 5; i++ {
		if err := k.Run(r, nil); err != nil {
			t.Fatal(err)
		}
		if r.String() != want || r.jr != nil {
			t.Fatalf("run %d: %s (native %v), want %s by the closures", i, r, r.jr != nil, want)
		}
	}
	tr := k.Tier()
	if tr.State != "failed" || tr.Executor != "compiled" || tr.Err == nil || !strings.Contains(tr.Err.Error(), "stand-in") {
		t.Errorf("%v (err %v), want failed on the closures", tr, tr.Err)
	}
	if ws := q.Warnings(); len(ws) != 1 || !strings.Contains(ws[0], "stand-in") {
		t.Errorf("warnings %q, want one about the failed run", ws)
	}
}

// TestDecide: the tier keeps the executor with the faster fastest run,
// after measureRuns timed runs of each, or at once after a first pair
// measureGap apart; a disturbed run (slow) does not decide.
func TestDecide(t *testing.T) {
	five := func(xs ...float64) []float64 { return xs }
	cases := []struct {
		name         string
		rateN, rateC []float64
		done, native bool
	}{
		{"none yet", nil, five(1), false, false},
		{"one pair, close", five(1), five(1.5), false, false},
		// one pair apart does not decide: one of them may be disturbed
		// (on the shared machine, a native run 12.9x the closures' once)
		{"one pair, native twice as fast", five(1), five(2), false, true},
		{"one pair, closures twice as fast", five(2.5), five(1), false, false},
		{"two pairs, native twice as fast", five(1, 1.1), five(2.2, 2), true, true},
		{"two pairs, closures twice as fast", five(2.5, 3), five(1, 1.2), true, false},
		{"two pairs, one disturbed", five(12, 1), five(1.5, 1.4), false, true},
		{"four each, not yet", five(1, 1, 1, 1), five(1.5, 1.5, 1.5, 1.5), false, true},
		{"five each, native faster", five(1, 1, 1, 1, 1), five(1.4, 1.4, 1.4, 1.4, 1.4), true, true},
		{"five each, closures faster", five(1.4, 1.4, 1.4, 1.4, 1.4), five(1, 1.1, 1, 1.2, 1), true, false},
		// three of native's runs disturbed: its median is the closures',
		// its fastest run says what it costs
		{"native disturbed", five(1, 3, 3, 1, 3), five(1.4, 1.4, 1.4, 1.4, 1.4), true, true},
	}
	for _, c := range cases {
		done, native, full := decide(c.rateN, c.rateC)
		if done != c.done || done && native != c.native {
			t.Errorf("%s: decide = %v, %v; want %v, %v", c.name, done, native, c.done, c.native)
		}
		if wantFull := len(c.rateN) >= measureRuns && len(c.rateC) >= measureRuns; full != wantFull {
			t.Errorf("%s: a full measurement %v, want %v", c.name, full, wantFull)
		}
	}
}

// TestTierVerdict: a full measurement's decision is kept beside the
// plugin (a note) and taken by a later query of the program over inputs
// of about the same size from its Compile: the closures without opening
// the plugin, or the native kernel without measuring; inputs of another
// size measure again, and an early decision keeps nothing. The native
// kernel is a stand-in returning the closures' value, and the
// measurement's clock a fake one: a closure run takes 1 ms, a native one
// a set multiple of it.
func TestTierVerdict(t *testing.T) {
	t.Setenv("NABLASD_JIT", "")
	const prog = "sum(<i, r> in A) sum(<j, a> in r) a * x(i) * x(j) * c * 3.0625"
	in, small := tierInputs(t, 3000, 1), tierInputs(t, 30, 1)
	q, err := Prepare(prog, in, &Options{Exec: "compiled"})
	if err != nil {
		t.Fatal(err)
	}
	want, err := q.Value()
	if err != nil {
		t.Fatal(err)
	}
	// the fake clock: each reading advances it by step, 1 ms but after a
	// native run (its stand-in sets step)
	var clock time.Time
	step, nativeStep := time.Millisecond, time.Duration(0)
	old := tierNow
	t.Cleanup(func() { tierNow = old })
	tierNow = func() time.Time {
		clock = clock.Add(step)
		step = time.Millisecond
		return clock
	}
	opened := 0
	hookJIT(t, func([]byte, ...string) (map[string]plugin.Symbol, bool, error) {
		opened++
		return map[string]plugin.Symbol{
			"NablasdRun": func([]any, any, any, int) (float64, int, error) {
				step = nativeStep
				return want.Scalar(), 1, nil
			},
			"NablasdAlloc":   func() (any, any) { return nil, nil },
			"NablasdEntries": func(any, func([]int, float64) bool) {},
			"NablasdEmpty":   func(any, func([]int) bool) {},
			"NablasdDense":   func(any) []float64 { return nil },
		}, true, nil
	}, nil, func() error { return nil })
	notes := map[string]string{}
	readNote = func(_ []byte, name string) ([]byte, bool) {
		v, ok := notes[name]
		return []byte(v), ok
	}
	writeNote = func(_ []byte, name string, data []byte) error {
		notes[name] = string(data)
		return nil
	}
	compile := func(in Inputs) *Kernel {
		t.Helper()
		q, err := Prepare(prog, in, &Options{JITAfter: -1}) // a one-shot command's
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile()
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	// measure runs a new kernel until it decides
	measure := func(factor float64) *Kernel {
		t.Helper()
		nativeStep = time.Duration(float64(time.Millisecond) * factor)
		clear(notes)
		k := compile(in)
		r := k.NewResult()
		for i := 0; i < 30 && k.Tier().State == "measuring"; i++ {
			if err := k.Run(r, nil); err != nil {
				t.Fatal(err)
			}
			if r.Scalar() != want.Scalar() {
				t.Fatalf("run %d: %v, want %v", i, r.Scalar(), want.Scalar())
			}
		}
		return k
	}
	for _, c := range []struct {
		factor   float64
		executor string
		reason   string
	}{
		{1.4, "compiled", "an earlier run measured the closures faster: "},
		{0.7, "jit", "the native kernel was in the JIT cache, and an earlier run measured it faster: "},
	} {
		k := measure(c.factor)
		tr := k.Tier()
		if tr.State != "decided" || tr.Executor != c.executor || len(notes) != 1 || !strings.Contains(tr.Reason, "of 5 and 5 timed runs") {
			t.Fatalf("native at %.1fx: %v, notes %q; want %s decided in full and kept", c.factor, tr, notes, c.executor)
		}
		opened = 0
		k2 := compile(in)
		tr2 := k2.Tier()
		if tr2.State != "decided" || tr2.Executor != c.executor || !strings.Contains(tr2.Reason, c.reason) ||
			!strings.Contains(tr2.Reason, tr.Reason[strings.Index(tr.Reason, ": ")+2:]) {
			t.Errorf("native at %.1fx, a later query: %v; want %s from %q", c.factor, tr2, c.executor, tr.Reason)
		}
		if (opened > 0) != (c.executor == "jit") {
			t.Errorf("native at %.1fx, a later query opened the plugin %d times", c.factor, opened)
		}
		r := k2.NewResult()
		if err := k2.Run(r, nil); err != nil {
			t.Fatal(err)
		}
		if last := k2.Tier().Last; last != c.executor || r.Scalar() != want.Scalar() {
			t.Errorf("native at %.1fx, a later query's first run: by %s, %v; want %s, %v", c.factor, last, r.Scalar(), c.executor, want)
		}
		if k3 := compile(small); k3.Tier().State != "measuring" {
			t.Errorf("native at %.1fx, inputs 100 times smaller: %v, want them measured", c.factor, k3.Tier())
		}
	}
	// native far slower: decided early, nothing kept
	k := measure(4)
	if tr := k.Tier(); tr.State != "decided" || tr.Executor != "compiled" || len(notes) != 0 || !strings.Contains(tr.Reason, "of 2 and 2 timed runs") {
		t.Errorf("native at 4x: %v, notes %q; want an early decision for the closures, nothing kept", tr, notes)
	}
}
