package legacyexec

// Parallel versions of the dense loops (fast.go, view.go). A loop over
// positions lo..hi-1 is cut into equal parts:
//
//   - keys that are the positions (dense stores and copies, VVD, VSM):
//     the parts write disjoint keys of the destination; no merge, results
//     exactly the serial ones;
//   - other keys (a scatter-add, SMVM's column sums): one part per
//     goroutine; part 0 adds into the destination, part p > 0 into a dense
//     accumulator of its own (kept in the team for the next run), and a
//     second fork adds the accumulators into the destination by key
//     ranges, in part order.
//
// Only a dense destination of known extent (modeFull: no presence bits,
// no keys list) is shared so; others run serially.

// scatterFn runs positions lo..hi-1 of a scatter loop into dst.
type scatterFn func(dst *hdict, lo, hi int, idx, ka []int, a, b []float64, c float64)

// scatterJob is a scatter loop split across workers.
type scatterJob struct {
	run     scatterFn
	dst     *hdict
	idx, ka []int
	a, b    []float64
	c       float64
	merge   bool // keys are not the positions: accumulators
	adding  bool // the merge phase
	n       int  // parts of the scatter phase
}

func (j *scatterJob) part(t *team, _, p int) {
	lo, hi := t.cuts[p], t.cuts[p+1]
	if j.adding {
		f := j.dst.f[lo:hi]
		for v := 1; v < j.n; v++ {
			src := t.acc[v].f[lo:hi]
			for k := range f {
				f[k] += src[k]
			}
		}
		return
	}
	d := j.dst
	if j.merge && p > 0 {
		d = t.acc[p]
		clear(d.f)
	}
	j.run(d, lo, hi, j.idx, j.ka, j.a, j.b, j.c)
}

// parScatter runs a scatter loop across workers when the destination and
// the work allow it, and reports whether it did. byPos says that the keys
// are the positions; unit is the kind of work (team.go): minCopyWork,
// minDenseWork or minScatterWork.
func (c *compiler) parScatter(fr *frame, id int, run scatterFn, byPos bool, unit int, dst *hdict, lo, hi int, idx, ka []int, a, b []float64, cc float64) bool {
	if id < 0 || dst.mode != modeFull || dst.t.leaf != kReal || hi <= lo {
		return false
	}
	n := c.workers(fr, hi-lo, unit)
	if n <= 1 {
		return false
	}
	if byPos && (lo < 0 || hi > len(dst.f)) {
		return false // the serial loop reports the key out of range
	}
	if !byPos && len(dst.f) > 4*(hi-lo) {
		return false // merging would cost more than the loop
	}
	t := c.teamOf(fr)
	j := jobAt[scatterJob](fr, id)
	*j = scatterJob{run: run, dst: dst, idx: idx, ka: ka, a: a, b: b, c: cc, merge: !byPos, n: n}
	parts := partsPerRunner * n
	if j.merge {
		parts = n
		t.accumulators(n, len(dst.f))
	}
	t.evenCuts(parts, lo, hi)
	c.fork(fr, n, parts, j)
	if j.merge {
		j.adding = true
		m := c.workers(fr, len(dst.f)*(n-1), minDenseWork)
		t.evenCuts(partsPerRunner*m, 0, len(dst.f))
		c.fork(fr, m, partsPerRunner*m, j)
	}
	*j = scatterJob{}
	return true
}

// parJob reserves a job slot for a parallel step, or returns -1 when the
// kernel runs serially.
func (c *compiler) parJob() int {
	if c.opts.Threads <= 1 {
		return -1
	}
	return c.newJob()
}

// addRange adds c * a into dst at keys lo..hi-1 (in range).
func addRange(dst *hdict, lo, hi int, _, _ []int, a, _ []float64, c float64) {
	f, src := dst.f[lo:hi], a[lo:hi]
	for k := range f {
		f[k] += c * src[k]
	}
}

// setRange stores c * a into dst at keys lo..hi-1 (in range).
func setRange(dst *hdict, lo, hi int, _, _ []int, a, _ []float64, c float64) {
	f, src := dst.f[lo:hi], a[lo:hi]
	if c == 1 {
		copy(f, src)
		return
	}
	for k := range f {
		f[k] = c * src[k]
	}
}

// parAddArr adds s * a into a dense destination across workers (addArr's
// loop), and reports whether it did.
func (c *compiler) parAddArr(fr *frame, id int, dst *hdict, a []float64, s float64) bool {
	return len(a) <= len(dst.f) && c.parScatter(fr, id, addRange, true, minDenseWork, dst, 0, len(a), nil, nil, a, nil, s)
}

// dotJob is a dot-gather split across workers: part p's sum in
// t.partial[p], added in part order.
type dotJob struct {
	loop dotLoop
	idx  []int
	a, b []float64
	c    float64
}

func (j *dotJob) part(t *team, _, p int) {
	t.partial[p] = j.loop(t.cuts[p], t.cuts[p+1], j.idx, j.a, j.b, j.c)
}

// parDot runs a dot-gather across workers; ok is false when it did not.
func (c *compiler) parDot(fr *frame, id int, loop dotLoop, lo, hi int, idx []int, a, b []float64, cc float64) (float64, bool) {
	if id < 0 {
		return 0, false
	}
	n := c.workers(fr, hi-lo, minScatterWork)
	if n <= 1 {
		return 0, false
	}
	t := c.teamOf(fr)
	j := jobAt[dotJob](fr, id)
	*j = dotJob{loop: loop, idx: idx, a: a, b: b, c: cc}
	parts := partsPerRunner * n
	t.evenCuts(parts, lo, hi)
	t.partial = grow(t.partial, parts)
	c.fork(fr, n, parts, j)
	*j = dotJob{}
	s := 0.0
	for _, x := range t.partial {
		s += x
	}
	return s, true
}
