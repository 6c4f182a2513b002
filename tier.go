package nablasd

import (
	"fmt"
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
//	  hit     native from the first run, measured against the closures
//	  miss    the closures, their run time counted; past Options.JITAfter
//	          one build in the background (one at a time in the process)
//	built     the next runs alternate native and closures, timed; the
//	          faster is kept for good (Kernel.Tier says which and why)
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

// The JIT's entry points, variables so that tests can make a build fail.
var (
	loadJIT       = jit.Load
	loadCachedJIT = jit.LoadCached
	jitAvailable  = jit.Available
)

// unopenable is the first error opening a cached plugin: after it the
// process asks the cache no more (a binary that cannot open one plugin,
// built with -cover for one, cannot open any), so that it warns once.
var unopenable atomic.Pointer[error]

// buildSlot holds the one background build the process runs at a time;
// a kernel that finds it taken tries again at its next run.
var buildSlot = make(chan struct{}, 1)

// measureRuns is how many timed runs of each executor decide, after one
// of each that is not counted (its destination is sized then); a first
// pair apart by measureGap or more decides at once.
const (
	measureRuns = 5
	measureGap  = 2.0
)

// decide reports whether the timed runs so far, as seconds per entry of
// the inputs (native's and the closures'), decide between the two, and
// whether native is the faster: once each has had measureRuns runs, or at
// once when a first pair is measureGap apart. The faster is the one with
// the faster fastest run. Other work on the machine only ever adds to a
// run's time, so the fastest run is the least disturbed: with medians of
// three, mlp2's gradient kept the closures at 1.67x the hand-written
// loop's time in one report, though its native kernel ran 1.19x.
func decide(rateN, rateC []float64) (done, native bool) {
	n, c := len(rateN), len(rateC)
	if n == 0 || c == 0 {
		return false, false
	}
	rn, rc := slices.Min(rateN), slices.Min(rateC)
	enough := n >= measureRuns && c >= measureRuns
	apart := n == 1 && c == 1 && (rn*measureGap <= rc || rc*measureGap <= rn)
	return enough || apart, rn <= rc
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

	state      atomic.Int32
	spent      atomic.Int64 // nanoseconds of closure runs (counting)
	native     atomic.Pointer[jitKernel]
	turn       atomic.Uint64 // runs while measuring: odd ones native
	lastNative atomic.Bool   // the most recent run was native

	mu sync.Mutex
	// gen and src are the kernel's Go and its plugin's source until built
	gen *gogen.Kernel
	src []byte
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
	switch t.state.Load() {
	case tierNative:
		dst.idle = nil
		b, err := t.k.bind(inputs)
		if err != nil {
			return err
		}
		if err := t.k.runBound(dst, b, t.native.Load(), false); err != nil {
			return t.nativeFailed(dst, b, err)
		}
		return nil
	case tierClosures:
		dst.idle = nil
		return t.k.run(dst, inputs, nil, false)
	case tierMeasuring:
		return t.measure(dst, inputs)
	}
	start := time.Now()
	if err := t.k.run(dst, inputs, nil, false); err != nil {
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
func (t *tier) measure(dst *Result, inputs Inputs) error {
	native := t.turn.Add(1)%2 == 1
	var j *jitKernel
	if native {
		j = t.native.Load()
	}
	b, err := t.k.bind(inputs)
	if err != nil {
		return err
	}
	start := time.Now()
	err = t.k.runBound(dst, b, j, true)
	d := time.Since(start)
	t.lastNative.Store(native)
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
	done, native := decide(t.rateN, t.rateC)
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
	return nil
}

// nativeFailed answers a native run that returned err: the closures run
// instead, and when they succeed the native kernel is dropped for good
// (the two disagree about what is an error: the native kernel's is kept,
// with one warning); when they fail too, theirs is the run's error.
func (t *tier) nativeFailed(dst *Result, b bound, err error) error {
	if cerr := t.k.runBound(dst, b, nil, false); cerr != nil {
		return cerr
	}
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

// executor is Kernel.Executor: "jit" once the native kernel is loaded
// (while it is measured too), unless the closures measured faster.
func (t *tier) executor() string {
	switch t.state.Load() {
	case tierMeasuring, tierNative:
		return "jit"
	}
	return "compiled"
}

// ranNative reports whether the most recent run was the native kernel's.
func (t *tier) ranNative() bool {
	switch t.state.Load() {
	case tierMeasuring:
		return t.lastNative.Load()
	case tierNative:
		return true
	}
	return false
}

// Tier says what runs a kernel and why: with Options.Exec "auto", where
// the kernel is in tiering (see Options.Exec and Options.JITAfter).
type Tier struct {
	// Executor is what runs the kernel now, as Kernel.Executor.
	Executor string
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
	// has no native form.
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
		return Tier{Executor: k.Executor(), State: "fixed", Reason: fmt.Sprintf("Options.Exec %q", k.q.opts.Exec)}
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
	default:
		info.State = t.final
	}
	return info
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
