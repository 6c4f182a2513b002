package nablasd

import (
	"fmt"
	"math/bits"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/jit"
)

// The tiered executor, Options.Exec "auto": a kernel runs as closures
// (exec) from its first run, as Options.Exec "compiled" runs it, and as
// native code (the JIT's plugin, as Options.Exec "jit") once that is
// built and has measured faster.
//
//	Compile   the closures; then the kernel's Go source, and the JIT's cache
//	          asked for it (jit.LoadCached: never the toolchain)
//	  verdict an earlier process measured the two over inputs of this
//	          size: the faster, for good, from the first run
//	  hit     native from the first run, measured against the closures
//	  miss    the closures, their run time counted; past Options.JITAfter
//	          one build in the background (one at a time in the process)
//	built     the next runs alternate native and closures, timed; the
//	          faster is kept for good (Kernel.Tier says which and why),
//	          and after a full measurement noted in the cache (verdict)
//
// The switch off: Options.Exec "compiled"; NABLASD_JIT=off, or a machine
// where plugins cannot be built (jit.Available); Options.JITAfter < 0
// builds nothing, but a kernel already in the cache runs native.

// DefaultJITAfter is Options.JITAfter's default: 200 ms of closure runs
// before an "auto" kernel's native code is built. The build takes about a
// second of another core (10–30 s the first time on a machine), off the
// runs' path, and pays for itself within 1.1–2 s more of closure run time
// at the workloads' 2–8× (bench/results/report.md). A kernel that has run
// for 200 ms is in a loop (training, a batch of groups) likely to run as
// long again; a program that runs its kernels for less (a command, a
// test, a script) never builds, and a process that ends during a build
// ends the build with it.
const DefaultJITAfter = 200 * time.Millisecond

// jitSwitch reads NABLASD_JIT: "off" turns the JIT tier of Options.Exec
// "auto" off (the closures only, as "compiled"); "" and "on" leave it on.
// bad is a warning for any other value.
func jitSwitch() (off bool, bad string) {
	switch v := os.Getenv("NABLASD_JIT"); strings.ToLower(v) {
	case "", "on":
		return false, ""
	case "off":
		return true, ""
	default:
		return false, fmt.Sprintf("NABLASD_JIT=%q: want off or on; the JIT tier stays on", v)
	}
}

// The JIT's entry points, variables so that tests can make a build fail
// (and keep the verdicts of fake plugins out of the cache).
var (
	loadJIT       = jit.Load
	loadCachedJIT = jit.LoadCached
	jitAvailable  = jit.Available
	readNote      = jit.ReadNote
	writeNote     = jit.WriteNote
	// tierNow is the measurement's clock
	tierNow = time.Now
)

// unopenable is the first error opening a cached plugin: after it the
// process asks the cache no more (a binary that cannot open one plugin,
// built with -cover for one, cannot open any), so that it warns once.
var unopenable atomic.Pointer[error]

// buildSlot holds the one background build the process runs at a time;
// a kernel that finds it taken tries again at its next run.
var buildSlot = make(chan struct{}, 1)

// measureRuns is how many timed runs of each executor decide, after one
// of each that is not counted (its destination is sized then); the first
// earlyRuns of each decide early when their fastest are measureGap or
// more apart.
const (
	measureRuns = 5
	earlyRuns   = 2
	measureGap  = 2.0
)

// decide reports whether the timed runs so far, as seconds per entry of
// the inputs (native's and the closures'), decide between the two, and
// whether native is the faster: once each has had measureRuns runs, or
// early when the fastest of each one's first earlyRuns are measureGap
// apart; full is false for an early decision. The faster is the one with
// the faster fastest run. Other work on the machine only ever adds to a
// run's time, so the fastest run is the least disturbed: with medians of
// three, mlp2's gradient kept the closures at 1.67x the hand-written
// loop's time in one report, though its native kernel ran 1.19x. An early
// decision takes two runs of each, not one: on the shared 2-core machine
// one native run of the least-squares gradient took 12.9 ms against the
// closures' 1.0 ms (its usual 0.69 ms), and one pair so apart decided
// for the closures.
func decide(rateN, rateC []float64) (done, native, full bool) {
	n, c := len(rateN), len(rateC)
	if n == 0 || c == 0 {
		return false, false, false
	}
	rn, rc := slices.Min(rateN), slices.Min(rateC)
	enough := n >= measureRuns && c >= measureRuns
	apart := n >= earlyRuns && c >= earlyRuns && (rn*measureGap <= rc || rc*measureGap <= rn)
	return enough || apart, rn <= rc, enough
}

// The states of a tier.
const (
	tierCounting  int32 = iota // closures; their run time counted toward JITAfter
	tierBuilding               // closures while the native kernel is built
	tierMeasuring              // native and closures in turn, timed
	tierNative                 // the native kernel, for good
	tierClosures               // the closures, for good (state says why)
)

// tier is an "auto" kernel's choice of executor.
type tier struct {
	k      *Kernel
	warnTo *Query // the query Compile was called on: where warnings go
	after  time.Duration
	source time.Duration // generating the source and asking the cache, at Compile

	state  atomic.Int32
	spent  atomic.Int64 // nanoseconds of closure runs (counting)
	native atomic.Pointer[jitKernel]
	turn   atomic.Uint64 // runs while measuring: odd ones native
	// last is what ran the most recent run: ranNone, ranNative or
	// ranClosures
	last atomic.Int32

	mu sync.Mutex
	// gen and src are the kernel's Go and its plugin's source until built
	gen *gogen.Kernel
	src []byte
	// plugin is the plugin's source, kept to name its verdict (a note
	// beside it in the cache: verdictNote); nil when there is none
	plugin []byte
	// done is closed when the background build is over (nil: none)
	done       chan struct{}
	buildStart time.Time
	build      time.Duration
	err        error
	// why is the state's reason; final names the state once closed
	// ("decided", "failed", "off")
	why, final string
	// the measurement: seconds per unit of input, after the first run of
	// each; times are the runs' durations, for reporting
	warmN, warmC bool
	rateN, rateC []float64
	timeN, timeC []time.Duration
	fastN, fastC time.Duration
}

// newTier makes k's tier (Options.Exec "auto"): it generates k's source
// and asks the cache for its plugin. q is the query Compile was called on.
func newTier(q *Query, k *Kernel) *tier {
	t := &tier{k: k, warnTo: q, after: q.opts.JITAfter}
	start := time.Now()
	defer func() { t.source = time.Since(start) }()
	off, bad := jitSwitch()
	if bad != "" {
		q.warn(bad)
	}
	switch {
	case k.ex == nil:
		return t.close(tierClosures, "off", "no compiled kernel to tier from")
	case off:
		return t.close(tierClosures, "off", "NABLASD_JIT=off")
	}
	if err := jitAvailable(); err != nil {
		return t.close(tierClosures, "off", fmt.Sprintf("the JIT is not available here: %v", err))
	}
	if err := unopenable.Load(); err != nil {
		t.err = *err
		return t.close(tierClosures, "off", fmt.Sprintf("this process cannot open the JIT's plugins: %v", *err))
	}
	gen, src, err := k.q.jitSource(k.plan)
	if err != nil {
		t.err = err
		return t.close(tierClosures, "off", fmt.Sprintf("the kernel has no native form: %v", err))
	}
	t.plugin = src
	v, hasVerdict := t.readVerdict(bound{}.entries(k))
	if hasVerdict && !v.native {
		// no need to open the plugin
		return t.close(tierClosures, "decided", "an earlier run measured the closures faster: "+v.how)
	}
	syms, found, err := loadCachedJIT(src, jitSymbols...)
	var j *jitKernel
	if err == nil && found {
		j, err = newJITKernel(gen, syms, k.q.opts.Threads)
	}
	switch {
	case err != nil:
		t.err = err
		unopenable.CompareAndSwap(nil, &err)
		q.warn(fmt.Sprintf("the JIT's cached kernel cannot be loaded (%v); the compiled kernel runs instead", err))
		return t.close(tierClosures, "failed", fmt.Sprintf("the cached native kernel cannot be loaded: %v", err))
	case found && hasVerdict:
		t.native.Store(j)
		t.final, t.why = "decided", "the native kernel was in the JIT cache, and an earlier run measured it faster: "+v.how
		t.state.Store(tierNative)
		return t
	case found:
		t.native.Store(j)
		t.why = "the native kernel was in the JIT cache; measuring it against the closures"
		t.state.Store(tierMeasuring)
		return t
	case t.after < 0:
		return t.close(tierClosures, "off", "not in the JIT cache, and Options.JITAfter < 0 builds nothing")
	}
	t.gen, t.src = gen, src
	t.why = fmt.Sprintf("not in the JIT cache: the closures run, and the native kernel is built once they have run %v", t.after)
	return t
}

// close ends t in a final state with its reason.
func (t *tier) close(state int32, final, why string) *tier {
	t.final, t.why = final, why
	t.gen, t.src = nil, nil
	t.state.Store(state)
	return t
}

// run is Kernel.Run of an "auto" kernel.
func (t *tier) run(dst *Result, inputs Inputs) error {
	b, err := t.k.bind(inputs)
	if err != nil {
		return err
	}
	return t.runBound(dst, b)
}

// runBound is run once the inputs are bound (a training loop binds them
// once and runs many times: Problem).
func (t *tier) runBound(dst *Result, b bound) error {
	switch t.state.Load() {
	case tierNative:
		dst.idle = nil
		if err := t.k.runBound(dst, b, t.native.Load(), false); err != nil {
			return t.nativeFailed(dst, b, err)
		}
		t.last.Store(ranNative)
		return nil
	case tierClosures:
		dst.idle = nil
		t.last.Store(ranClosures)
		return t.k.runBound(dst, b, nil, false)
	case tierMeasuring:
		return t.measure(dst, b)
	}
	start := time.Now()
	t.last.Store(ranClosures)
	if err := t.k.runBound(dst, b, nil, false); err != nil {
		return err
	}
	if t.state.Load() == tierCounting &&
		t.spent.Add(int64(time.Since(start))) >= int64(t.after) {
		t.startBuild()
	}
	return nil
}

// startBuild starts the background build of the native kernel, unless
// another kernel's build holds the slot (the next run tries again).
func (t *tier) startBuild() {
	select {
	case buildSlot <- struct{}{}:
	default:
		return
	}
	t.mu.Lock()
	if !t.state.CompareAndSwap(tierCounting, tierBuilding) {
		t.mu.Unlock()
		<-buildSlot
		return
	}
	done := make(chan struct{})
	t.done, t.buildStart = done, time.Now()
	t.why = fmt.Sprintf("building the native kernel in the background, after %v of closure runs", t.spentTime())
	gen, src := t.gen, t.src
	t.mu.Unlock()
	go func() {
		defer close(done)
		syms, err := loadJIT(src, jitSymbols...)
		var j *jitKernel
		if err == nil {
			j, err = newJITKernel(gen, syms, t.k.q.opts.Threads)
		}
		<-buildSlot
		t.mu.Lock()
		t.build = time.Since(t.buildStart)
		t.gen, t.src = nil, nil
		if err != nil {
			t.err = err
			t.final = "failed"
			t.why = fmt.Sprintf("the native kernel failed to build: %v", err)
			t.state.Store(tierClosures)
			t.mu.Unlock()
			t.warnTo.warn(fmt.Sprintf("the JIT cannot build the kernel (%v); the compiled kernel keeps running", err))
			return
		}
		t.native.Store(j)
		t.why = fmt.Sprintf("built in %v after %v of closure runs; measuring it against the closures", t.build.Round(time.Millisecond), t.spentTime())
		t.state.Store(tierMeasuring)
		t.mu.Unlock()
	}()
}

// measure runs the kernel natively or by the closures, in turn, and keeps
// the faster once each has run measureRuns times (or a first pair
// differs by measureGap): the time of the run once its inputs are bound,
// per entry of the inputs (bound.entries), so that runs over groups of
// different sizes compare.
func (t *tier) measure(dst *Result, b bound) error {
	native := t.turn.Add(1)%2 == 1
	var j *jitKernel
	if native {
		j = t.native.Load()
	}
	start := tierNow()
	err := t.k.runBound(dst, b, j, true)
	d := tierNow().Sub(start)
	t.last.Store(map[bool]int32{true: ranNative, false: ranClosures}[native])
	if err != nil && native {
		return t.nativeFailed(dst, b, err)
	}
	if err != nil {
		return err
	}
	rate := d.Seconds() / float64(max(b.entries(t.k), 1))
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.state.Load() != tierMeasuring {
		return nil
	}
	switch {
	case native && !t.warmN:
		t.warmN = true
		return nil
	case !native && !t.warmC:
		t.warmC = true
		return nil
	case native:
		t.rateN, t.timeN = append(t.rateN, rate), append(t.timeN, d)
	default:
		t.rateC, t.timeC = append(t.rateC, rate), append(t.timeC, d)
	}
	done, native, full := decide(t.rateN, t.rateC)
	if !done {
		return nil
	}
	t.fastN, t.fastC = slices.Min(t.timeN), slices.Min(t.timeC)
	how := fmt.Sprintf("%v a run native, %v by the closures (the fastest of %d and %d timed runs)", t.fastN, t.fastC, len(t.timeN), len(t.timeC))
	if native {
		t.final, t.why = "decided", "native measured faster: "+how
		t.state.Store(tierNative)
	} else {
		t.final, t.why = "decided", "the closures measured faster: "+how
		t.native.Store(nil)
		t.state.Store(tierClosures)
	}
	if full {
		t.writeVerdict(b.entries(t.k), verdict{native: native, how: how})
	}
	return nil
}

// A verdict is a measurement's decision, kept beside the plugin in the
// JIT's cache (jit.WriteNote) so that later processes take the faster
// executor from their first run instead of measuring again: a one-shot
// command runs a few times at most, too few to measure well, and a
// decision made from one disturbed pair would change what it reports from
// one run of the command to the next. A verdict is kept per
// Options.Threads and per size of the inputs (their stored entries within
// a factor of four), and only from a full measurement (measureRuns of
// each), never from an early one. Emptying the cache forgets it.
type verdict struct {
	native bool
	how    string // the measurement, as Tier.Reason gives it
}

// verdictNote is the name of the note holding the verdict for inputs of
// about entries stored entries.
func (t *tier) verdictNote(entries int) string {
	return fmt.Sprintf("verdict-t%d-s%d", max(t.k.q.opts.Threads, 1), bits.Len(uint(entries))/2)
}

// readVerdict returns the verdict for inputs of about entries stored
// entries, if one was kept.
func (t *tier) readVerdict(entries int) (verdict, bool) {
	if t.plugin == nil {
		return verdict{}, false
	}
	b, ok := readNote(t.plugin, t.verdictNote(entries))
	if !ok {
		return verdict{}, false
	}
	which, how, _ := strings.Cut(string(b), "\n")
	switch which {
	case "native", "closures":
		return verdict{native: which == "native", how: how}, true
	}
	return verdict{}, false // not one of ours: measure again
}

// writeVerdict keeps a full measurement's verdict; failing to is not an
// error (the next process measures again).
func (t *tier) writeVerdict(entries int, v verdict) {
	if t.plugin == nil {
		return
	}
	which := map[bool]string{true: "native", false: "closures"}[v.native]
	_ = writeNote(t.plugin, t.verdictNote(entries), []byte(which+"\n"+v.how))
}

// nativeFailed answers a native run that returned err: the closures run
// instead, and when they succeed the native kernel is dropped for good
// (the two disagree about what is an error: the native kernel's is kept,
// with one warning); when they fail too, theirs is the run's error.
func (t *tier) nativeFailed(dst *Result, b bound, err error) error {
	if cerr := t.k.runBound(dst, b, nil, false); cerr != nil {
		return cerr
	}
	t.last.Store(ranClosures)
	t.mu.Lock()
	if t.state.Load() == tierClosures {
		t.mu.Unlock()
		return nil
	}
	t.err, t.final = err, "failed"
	t.why = fmt.Sprintf("the native kernel failed a run the closures ran: %v", err)
	t.native.Store(nil)
	t.state.Store(tierClosures)
	t.mu.Unlock()
	t.warnTo.warn(fmt.Sprintf("the JIT's kernel failed a run (%v) that the compiled kernel ran; the compiled kernel runs from now on", err))
	return nil
}

func (t *tier) spentTime() time.Duration {
	return time.Duration(t.spent.Load()).Round(time.Millisecond)
}

// What ran a tier's most recent run (tier.last).
const (
	ranNone int32 = iota
	ranNative
	ranClosures
)

// executor is Kernel.Executor: "jit" once the native kernel is loaded,
// unless the closures measured faster; while the two are measured, in
// turn, the executor of the most recent run ("jit" before the first:
// the first is native).
func (t *tier) executor() string {
	switch t.state.Load() {
	case tierNative:
		return "jit"
	case tierMeasuring:
		if t.last.Load() == ranClosures {
			return "compiled"
		}
		return "jit"
	}
	return "compiled"
}

// ranNative reports whether the most recent run was the native kernel's.
func (t *tier) ranNative() bool { return t.last.Load() == ranNative }

// Tier says what runs a kernel and why: with Options.Exec "auto", where
// the kernel is in tiering (see Options.Exec and Options.JITAfter).
type Tier struct {
	// Executor is what runs the kernel now, as Kernel.Executor.
	Executor string
	// Last is what ran the most recent run ("jit" or "compiled"; "" before
	// the first, and for executors other than "auto"): while the two are
	// measured the runs alternate.
	Last string
	// State is "fixed" (Options.Exec is not "auto"), "off" (the native
	// tier is not tried: NABLASD_JIT=off, no toolchain or C compiler, a
	// kernel gogen cannot print, or Options.JITAfter < 0 and nothing in
	// the cache), "counting" (the closures run, their time counted toward
	// JITAfter), "building" (the closures run while the native kernel is
	// built in the background), "measuring" (native and closures in
	// turn), "decided" (by measurement, for good) or "failed" (the build
	// or the cached plugin failed: Err; the closures run).
	State string
	// Reason says why, in a sentence.
	Reason string
	// After is the threshold (Options.JITAfter) and Spent the closures'
	// run time counted toward it.
	After, Spent time.Duration
	// Source is what generating the kernel's Go and asking the JIT's
	// cache took at Compile (part of CompileTime); Build is the
	// background build's time (0: none).
	Source, Build time.Duration
	// Native and Compiled are the fastest of the runs measured (0
	// before the decision, or when there was none).
	Native, Compiled time.Duration
	// Err is the build's or the cached plugin's error, or why the kernel
	// has no native form (with Options.Exec "jit": why it fell back to
	// the compiled kernel).
	Err error
}

// String is the executor with the state and its reason: "jit (decided:
// native measured faster: ...)".
func (t Tier) String() string {
	return fmt.Sprintf("%s (%s: %s)", t.Executor, t.State, t.Reason)
}

// Tier tells what runs the kernel and why (Options.Exec "auto"; for the
// other executors, State "fixed").
func (k *Kernel) Tier() Tier {
	t := k.tier
	if t == nil {
		info := Tier{Executor: k.Executor(), State: "fixed", Reason: fmt.Sprintf("Options.Exec %q", k.q.opts.Exec), Err: k.jitErr}
		if k.jitErr != nil {
			info.Reason = fmt.Sprintf("Options.Exec %q, but the JIT cannot build the kernel: %v", k.q.opts.Exec, k.jitErr)
		}
		return info
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	info := Tier{Executor: t.executor(), Reason: t.why, After: t.after, Spent: time.Duration(t.spent.Load()),
		Source: t.source, Build: t.build, Native: t.fastN, Compiled: t.fastC, Err: t.err}
	switch t.state.Load() {
	case tierCounting:
		info.State = "counting"
	case tierBuilding:
		info.State = "building"
	case tierMeasuring:
		info.State = "measuring"
		info.Reason += fmt.Sprintf(" (so far %s native and %s by the closures; the first of each is not timed)",
			nRuns(len(t.timeN)+btoi(t.warmN)), nRuns(len(t.timeC)+btoi(t.warmC)))
	default:
		info.State = t.final
	}
	switch t.last.Load() {
	case ranNative:
		info.Last = "jit"
	case ranClosures:
		info.Last = "compiled"
	}
	return info
}

// nRuns is "1 run" or "n runs".
func nRuns(n int) string {
	if n == 1 {
		return "1 run"
	}
	return fmt.Sprintf("%d runs", n)
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WaitBuild waits until the background build of the kernel's native code
// (Options.Exec "auto"), if one is under way, is over; it returns at once
// when there is none. The kernel takes the native code up at its next
// Run. A process may end during a build: the build stops with it.
func (k *Kernel) WaitBuild() {
	if k.tier == nil {
		return
	}
	k.tier.mu.Lock()
	done := k.tier.done
	k.tier.mu.Unlock()
	if done != nil {
		<-done
	}
}

// idleDest is the destination of the executor that did not fill a Result
// last, kept while an "auto" kernel runs both in turn, so that neither
// pays for a new destination at every other run.
type idleDest struct {
	ex    *exec.Result
	owner *exec.Kernel
	jr    *jitResult
}

// parkEx keeps r's compiled destination aside.
func (r *Result) parkEx() {
	if r.idle == nil {
		r.idle = &idleDest{}
	}
	r.idle.ex, r.idle.owner = r.ex, r.owner
}

// parkJIT keeps r's native destination aside.
func (r *Result) parkJIT() {
	if r.idle == nil {
		r.idle = &idleDest{}
	}
	r.idle.jr = r.jr
}

// unparkEx returns the compiled destination kept aside when it is ex's,
// else a new one.
func (r *Result) unparkEx(ex *exec.Kernel) *exec.Result {
	if r.idle != nil && r.idle.ex != nil && r.idle.owner == ex {
		d := r.idle.ex
		r.idle.ex, r.idle.owner = nil, nil
		return d
	}
	return ex.NewResult()
}

// unparkJIT returns the native destination kept aside when it is j's,
// else a new one.
func (r *Result) unparkJIT(j *jitKernel) *jitResult {
	if r.idle != nil && r.idle.jr != nil && r.idle.jr.k == j {
		d := r.idle.jr
		r.idle.jr = nil
		return d
	}
	return j.newResult()
}
