package legacyexec

import (
	"sync"
	"sync/atomic"
)

// Parallel runs (Options.Threads > 1) fork and join inside one kernel run:
// a primitive with enough work cuts it into parts, offers them to up to
// n-1 pooled worker goroutines and takes parts itself, then waits for the
// parts taken by others. Parts are claimed from a shared counter, so when
// the machine is busy and a worker is not scheduled in time, the forking
// goroutine runs its parts too instead of waiting for it (a late worker
// finds nothing to claim, by a generation number in the counter, and
// touches nothing). State that decides results is per part (accumulators,
// pieces, partial sums), so results do not depend on which goroutine ran
// which part; scratch (frames, workspaces) is per runner.
//
// Everything a fork needs is kept between runs, so that a run into a
// reused destination does not allocate: the team (worker frames,
// per-part accumulators) lives in the frame, which the kernel pools; each
// primitive's job (its per-run arguments) lives in the frame's job slots;
// per-part pieces of results live in the Result. The worker goroutines are
// shared by every kernel of the process and started on demand; a part
// never forks again (frames of runners are marked), so a part never waits
// for another and the pool cannot deadlock.

// The work a goroutine must get for a fork to pay, by kind of step: a
// step runs on at most work/unit goroutines, serially below two units.
// Measured on this 2-core VM with BenchmarkThreadsCrossover
// (threads_bench_test.go: every step forced parallel, inputs of 4k to 4M
// entries, rounds when the machine had a core to spare). A parked worker
// starts 15-25 µs after it is offered a part (p50-p90), and loops over
// arrays that stay in the caches between runs gain little from a second
// core. Two goroutines against one: dense loops and scatter-adds 0.9-1.1x
// at 262k entries, 1.0-1.6x at 1M (VVD's copy the least), 1.3-1.75x at
// 4M; Gustavson 1.1-1.2x at 41k accumulated entries, 1.3x from 164k; the
// general split 0.8x at 410 rows, 1.4x at 1.6k. When the machine is busy
// (another process on the other core) two goroutines lose at any size:
// Kernel.Threads and the benchmarks' cpu-ns/op show it.
var (
	// minCopyWork: elements of a dense copy or store of an array's
	// values by position (VVD: 0.4 ns an element at the caches' bandwidth;
	// 0.9-1.2x at 1M, 1.5x at 4M)
	minCopyWork = 1 << 20
	// minDenseWork: elements of a dense fill or add (VSM, VVA, rows
	// broadcast, merges, concatenations)
	minDenseWork = 1 << 18
	// minScatterWork: entries of a scatter-add, a dot-gather or a loop of
	// closures per element (SMVM, SMMM's column sums)
	minScatterWork = 1 << 18
	// minOuterWork: entries that Gustavson's rows accumulate (BATAx)
	minOuterWork = 1 << 15
	// minSplitIterations: iterations of the general split's outermost
	// loop, each running closures over a whole row
	minSplitIterations = 1 << 9
)

// partsPerRunner is how many parts a step without per-part accumulators
// is cut into per goroutine: finer parts let the others take over the
// parts of a goroutine the machine delays.
const partsPerRunner = 4

// job is one parallel step of a primitive: part runs part p of t.parts on
// runner r (0: the forking goroutine; the index of its frame and scratch).
// A job is a struct kept in the frame (jobAt), holding the step's
// arguments.
type job interface {
	part(t *team, r, p int)
}

// task offers the parts of a team's fork of generation gen to runner r.
type task struct {
	t   *team
	r   int
	gen uint32
}

// team is the fork-join state of one frame.
type team struct {
	c     *compiler
	fr    *frame // the frame of the run (runner 0)
	parts int    // parts of the current fork
	job   job
	// state is gen<<32 | parts<<16 | the next part to claim
	state   atomic.Uint64
	gen     uint32
	pending atomic.Int64  // parts not finished
	done    chan struct{} // a runner > 0 finished the last part
	panics  []any         // per part
	// frames are the runners' frames (index 0 unused: runner 0 runs on
	// fr), copied from fr by syncFrames for jobs that run closures
	frames []*frame
	// acc and on are per-part dense accumulators (index 0 unused: part 0
	// writes into the destination)
	acc []*hdict
	on  [][]bool
	// cuts are the bounds of the current fork's parts
	cuts []int
	// partial are per-part scalar results
	partial []float64
}

// maxParts bounds the parts of a fork (the counter's field); workers
// keeps a fork's goroutines below maxParts/partsPerRunner.
const maxParts = 1<<16 - 1

// pool is the process's worker goroutines.
var pool struct {
	mu sync.Mutex
	n  int
	ch chan task
}

// startWorkers makes sure that at least n pooled workers exist.
func startWorkers(n int) chan task {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.ch == nil {
		pool.ch = make(chan task, 1024)
	}
	for ; pool.n < n; pool.n++ {
		go worker(pool.ch)
	}
	return pool.ch
}

func worker(ch chan task) {
	for tk := range ch {
		tk.t.participate(tk.r, tk.gen)
	}
}

// participate claims and runs parts of fork gen until none is left, and
// reports whether it finished the last part to finish (a runner > 0 then
// tells the forking one).
func (t *team) participate(r int, gen uint32) (last bool) {
	for {
		s := t.state.Load()
		if uint32(s>>32) != gen || s&0xffff >= s>>16&0xffff {
			return last
		}
		if !t.state.CompareAndSwap(s, s+1) {
			continue
		}
		t.runPart(r, int(s&0xffff))
		if t.pending.Add(-1) == 0 {
			if r == 0 {
				last = true
			} else {
				t.done <- struct{}{}
			}
		}
	}
}

// runPart runs one part, keeping a panic for the forking goroutine.
func (t *team) runPart(r, p int) {
	defer func() {
		if x := recover(); x != nil {
			t.panics[p] = x
		}
	}()
	t.job.part(t, r, p)
}

// teamOf returns the frame's team, made on first use.
func (c *compiler) teamOf(fr *frame) *team {
	if fr.team == nil {
		fr.team = &team{c: c, fr: fr}
	}
	return fr.team
}

// workers returns how many goroutines a step with the given work should
// use in this run: 1 (run serially) unless Options.Threads > 1, the frame
// is not already a runner's, and there are at least two units of work
// (minDenseWork, ...); at most Options.Threads and one per unit.
func (c *compiler) workers(fr *frame, work, unit int) int {
	n := c.opts.Threads
	if n <= 1 || fr.worker || work < 2*unit {
		return 1
	}
	return min(n, work/unit, maxParts/partsPerRunner)
}

// fork runs parts 0..parts-1 of j on up to n goroutines (the calling one
// included) and returns when all are done; a panic in a part is raised
// again here, after the join. With n == 1 it runs the parts inline.
func (c *compiler) fork(fr *frame, n, parts int, j job) {
	t := c.teamOf(fr)
	if n <= 1 {
		t.parts = parts
		for p := 0; p < parts; p++ {
			j.part(t, 0, p)
		}
		return
	}
	if parts > maxParts {
		panic("internal error: too many parts for a fork")
	}
	if cap(t.panics) < parts {
		t.panics = make([]any, parts)
	}
	t.panics = t.panics[:parts]
	clear(t.panics)
	if t.done == nil {
		t.done = make(chan struct{}, 1)
	}
	t.parts, t.job = parts, j
	t.gen++
	t.pending.Store(int64(parts))
	t.state.Store(uint64(t.gen)<<32 | uint64(parts)<<16)
	fr.used = max(fr.used, n)
	fr.worker = true // runner 0 does not fork again
	ch := startWorkers(n - 1)
	for r := 1; r < n; r++ {
		select {
		case ch <- task{t, r, t.gen}:
		default: // every worker busy: run the parts here
		}
	}
	if !t.participate(0, t.gen) {
		<-t.done
	}
	fr.worker = false
	t.job = nil
	for _, p := range t.panics {
		if p != nil {
			panic(p)
		}
	}
}

// syncFrames makes the frames of runners 1..n-1 copies of the run's frame
// (its inputs, lets and loop variables as they are now), for jobs whose
// parts run compiled closures. Dictionaries are shared, read-only.
func (t *team) syncFrames(n int) {
	fr := t.fr
	for len(t.frames) < n {
		t.frames = append(t.frames, nil)
	}
	for w := 1; w < n; w++ {
		fw := t.frames[w]
		if fw == nil {
			fw = t.c.newFrame()
			fw.worker = true
			t.frames[w] = fw
		}
		copy(fw.f, fr.f)
		copy(fw.i, fr.i)
		copy(fw.d, fr.d)
		copy(fw.ia, fr.ia)
		copy(fw.ra, fr.ra)
		copy(fw.hints, fr.hints)
		fw.split, fw.splitLo, fw.splitHi = fr.split, fr.splitLo, fr.splitHi
	}
}

// frame returns runner r's frame (syncFrames made them).
func (t *team) frame(r int) *frame {
	if r == 0 {
		return t.fr
	}
	return t.frames[r]
}

// accumulators makes the dense accumulators of parts 1..n-1: leaf
// dictionaries of m reals each; each part clears its own.
func (t *team) accumulators(n, m int) {
	for len(t.acc) < n {
		t.acc = append(t.acc, nil)
	}
	for w := 1; w < n; w++ {
		a := t.acc[w]
		if a == nil {
			a = &hdict{t: accType, mode: modeFull}
			t.acc[w] = a
		}
		if cap(a.f) < m {
			a.f = make([]float64, m)
		}
		a.f = a.f[:m]
	}
}

// accType is the type of the accumulators: real leaves, dense.
var accType = &dictType{leaf: kReal}

// flags makes the presence arrays of parts 1..n-1, of length m; each
// part clears its own.
func (t *team) flags(n, m int) {
	for len(t.on) < n {
		t.on = append(t.on, nil)
	}
	for w := 1; w < n; w++ {
		if cap(t.on[w]) < m {
			t.on[w] = make([]bool, m)
		}
		t.on[w] = t.on[w][:m]
	}
}

// evenCuts splits lo..hi into n parts of equal length: part w is
// t.cuts[w]..t.cuts[w+1]-1.
func (t *team) evenCuts(n, lo, hi int) {
	t.cuts = growInt(t.cuts, n+1)
	for w := 0; w <= n; w++ {
		t.cuts[w] = lo + int(int64(hi-lo)*int64(w)/int64(n))
	}
}

// weightedCuts splits lo..hi into n parts of about equal weight, where
// cum(x) is the (non-decreasing) weight of lo..x-1.
func (t *team) weightedCuts(n, lo, hi int, cum func(x int) int) {
	t.cuts = growInt(t.cuts, n+1)
	t.cuts[0], t.cuts[n] = lo, hi
	total := cum(hi)
	for w := 1; w < n; w++ {
		target := int(int64(total) * int64(w) / int64(n))
		// the first x in cuts[w-1]..hi with cum(x) >= target
		a, b := t.cuts[w-1], hi
		for a < b {
			m := int(uint(a+b) >> 1)
			if cum(m) < target {
				a = m + 1
			} else {
				b = m
			}
		}
		t.cuts[w] = a
	}
}

// jobAt returns the frame's job of type T in slot id, made on first use.
func jobAt[T any, PT interface {
	*T
	job
}](fr *frame, id int) PT {
	if j, ok := fr.jobs[id].(PT); ok {
		return j
	}
	j := PT(new(T))
	fr.jobs[id] = j
	return j
}

// newJob reserves a job slot in every frame.
func (c *compiler) newJob() int {
	c.njobs++
	return c.njobs - 1
}
