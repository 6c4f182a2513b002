package exec

import (
	"sync"
)

// Parallel runs (Options.Threads > 1) fork and join inside one kernel run:
// a primitive with enough work splits it into parts, hands parts 1..n-1 to
// pooled worker goroutines and runs part 0 itself, then waits. Everything
// a fork needs is kept between runs, so that a run into a reused
// destination does not allocate: the team (worker frames, per-worker
// accumulators) lives in the frame, which the kernel pools; each
// primitive's job (its per-run arguments) lives in the frame's job slots;
// per-worker pieces of results live in the Result. The worker goroutines
// are shared by every kernel of the process and started on demand; a part
// never forks again (frames of workers are marked), so a worker never
// waits for another and the pool cannot deadlock.

// minParallelWork is the work (entries or elements a primitive touches)
// below which a worker is not worth its start and merge: a primitive runs
// on at most work/minParallelWork goroutines, serially below twice it.
// Measured on the benchmark kernels (bench/threads_test.go): a fork and
// join costs 2-10 µs, the time of 5-30k entries of a dense loop. Tests
// lower it to split small inputs.
var minParallelWork = 1 << 15

// minSplitIterations is the same bound for the general closure path,
// counted in iterations of the outermost loop, each of which runs
// closures and may hold a whole row.
var minSplitIterations = 1 << 10

// job is one parallel step of a primitive: part runs the w-th of t.n
// parts. A job is a struct kept in the frame (jobAt), holding the
// arguments of the step.
type job interface {
	part(t *team, w int)
}

// task hands part w of a team's job to a pooled worker.
type task struct {
	t *team
	w int
}

// team is the fork-join state of one frame.
type team struct {
	c      *compiler
	fr     *frame // the frame of the run (part 0)
	n      int    // parts of the current fork
	job    job
	tasks  []task
	panics []any
	wg     sync.WaitGroup
	// frames are the workers' frames (index 0 unused: part 0 runs on fr),
	// copied from fr by syncFrames for jobs that run closures
	frames []*frame
	// acc and on are per-worker dense accumulators (index 0 unused:
	// part 0 writes into the destination)
	acc []*hdict
	on  [][]bool
	// cuts are the bounds of the current fork's parts
	cuts []int
	// partial are per-part scalar results
	partial []float64
}

// pool is the process's worker goroutines.
var pool struct {
	mu sync.Mutex
	n  int
	ch chan *task
}

// startWorkers makes sure that at least n pooled workers exist.
func startWorkers(n int) chan *task {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	if pool.ch == nil {
		pool.ch = make(chan *task)
	}
	for ; pool.n < n; pool.n++ {
		go worker(pool.ch)
	}
	return pool.ch
}

func worker(ch chan *task) {
	for tk := range ch {
		tk.t.runPart(tk.w)
		tk.t.wg.Done()
	}
}

// runPart runs one part, keeping a panic for the forking goroutine.
func (t *team) runPart(w int) {
	defer func() {
		if p := recover(); p != nil {
			t.panics[w] = p
		}
	}()
	t.job.part(t, w)
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
// is not already a worker's, and there are at least two units of work
// (unit: minParallelWork or minSplitIterations); at most Options.Threads
// and one per unit.
func (c *compiler) workers(fr *frame, work, unit int) int {
	n := c.opts.Threads
	if n <= 1 || fr.worker || work < 2*unit {
		return 1
	}
	return min(n, work/unit)
}

// fork runs j in n parts (part 0 on the calling goroutine) and waits for
// all of them; a panic in a part is raised again here, after the join.
// With n == 1 it runs the single part inline.
func (c *compiler) fork(fr *frame, n int, j job) {
	t := c.teamOf(fr)
	if n <= 1 {
		t.n = 1
		j.part(t, 0)
		return
	}
	if cap(t.tasks) < n {
		t.tasks = make([]task, n)
		t.panics = make([]any, n)
	}
	t.tasks, t.panics = t.tasks[:n], t.panics[:n]
	clear(t.panics)
	t.n, t.job = n, j
	fr.used = max(fr.used, n)
	fr.worker = true // part 0 does not fork again
	ch := startWorkers(n - 1)
	t.wg.Add(n - 1)
	for w := 1; w < n; w++ {
		t.tasks[w] = task{t, w}
		ch <- &t.tasks[w]
	}
	t.runPart(0)
	t.wg.Wait()
	fr.worker = false
	t.job = nil
	for _, p := range t.panics {
		if p != nil {
			panic(p)
		}
	}
}

// syncFrames makes the frames of workers 1..n-1 copies of the run's frame
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

// frame returns the frame part w runs on (syncFrames made them).
func (t *team) frame(w int) *frame {
	if w == 0 {
		return t.fr
	}
	return t.frames[w]
}

// accumulators makes the dense accumulators of workers 1..n-1: leaf
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

// flags makes the per-worker presence arrays of workers 1..n-1, of length
// m; each part clears its own.
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
