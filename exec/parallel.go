package exec

import (
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nablasd/nablasd/internal/vec"
	"github.com/nablasd/nablasd/lower"
)

// Parallel loops. A loop lowering marks parallel (lower.MarkParallel:
// its iterations only add into tensors and variables made before it)
// runs, with Options.Threads > 1 and enough iterations, on up to Threads
// goroutines: each takes a contiguous range of iterations and runs them
// in its own frame, with its own, empty copies of the tensors the loop
// adds into and zeroed copies of the variables it adds to; the other
// tensors and variables it reads are the run's. After them, each worker's
// copies are added into the run's, in worker order: the result equals the
// serial one up to the order of floating-point additions (the same for a
// given number of threads and input).

// minParallel is the least work a loop is split for (its iterations,
// plus the entries of the rows it reads, see work); below it the
// goroutines cost more than they save.
var minParallel = 8192

// parallelFor compiles a marked loop to run on several workers: the loop
// is compiled once over a chunk whose bounds the worker sets.
func (c *compiler) parallelFor(s *lower.For) stmt {
	serial := c.serialFor(s)
	lo, hi := c.int(s.Lo), c.int(s.Hi)
	clo, chi := c.extraVar(), c.extraVar()
	chunkVarLo := &lower.Var{Name: s.V.Name + "_lo", Kind: lower.Int, ID: clo}
	chunkVarHi := &lower.Var{Name: s.V.Name + "_hi", Kind: lower.Int, ID: chi}
	chunk := c.serialFor(&lower.For{V: s.V, Lo: &lower.Ref{V: chunkVarLo}, Hi: &lower.Ref{V: chunkVarHi}, Body: s.Body, Prim: s.Prim})
	par := s.Par
	threads := c.opts.Threads
	seg := lower.RowSegment(s)
	trips := c.innerTrips(s)
	// the tensor whose Init's clear this loop does (lower/deferclear.go):
	// serially before the loop, else on the first worker (the run's own)
	cleared := -1
	if t := c.deferred.Loop[s]; t != nil {
		cleared = t.ID
		serialNow := serial
		serial = func(fr *frame) {
			clear(fr.t[cleared].vals)
			serialNow(fr)
		}
	}
	rows := c.inPlaceRows(s)
	// a loop that keeps no copies (it adds into variables, writes by key
	// in place, or reads only) runs in chunks the workers take in turn
	// (runChunks)
	chunked := len(par.Tensors) == 0 && len(par.Private) == 0 && cleared < 0
	return func(fr *frame) {
		l, h := lo(fr), hi(fr)
		n := h - l
		if n < 2 || fr.worker {
			serial(fr)
			return
		}
		// the work: iterations, and the entries of the rows they read
		var pos []int
		work := n
		if seg != nil {
			pos = fr.ia[seg.ID]
			if l >= 0 && h < len(pos) {
				work += pos[h] - pos[l]
			} else {
				pos = nil
			}
		}
		if trips != nil {
			// an iteration runs an inner loop: its trips are the work
			// (a stencil's 1,000 rows of 1,000 entries, not 1,000)
			fr.i[s.V.ID] = l
			if t := trips(fr); t > 1 {
				work = n * min(t, 1<<30)
			}
		}
		w := min(threads, work/(minParallel/2), n)
		if work < minParallel || w < 2 {
			serial(fr)
			return
		}
		workers := fr.workers(c, w)
		if chunked {
			runChunks(fr, workers, par, chunk, clo, chi, l, h, pos)
			fr.used = max(fr.used, w)
			return
		}
		if rows != nil {
			if span, ok := rows.skipAll(fr, par, l, h); ok && n/w > 2*span {
				if cleared >= 0 {
					clear(fr.t[cleared].vals) // before any worker writes it
				}
				fr.inPlace(workers, par, chunk, clo, chi, l, h, span, pos)
				return
			}
		}
		for i, wf := range workers {
			// the first worker adds into the run's own tensors: one
			// worker's copy fewer to clear and to merge (every copy is
			// made from them before any worker starts)
			wf.copyFrom(fr, par, i == 0)
			wf.i[clo], wf.i[chi] = split(l, h, i, w, pos), split(l, h, i+1, w, pos)
		}
		runWorkers(workers, func(wf *frame) {
			if wf == workers[0] && cleared >= 0 {
				clear(wf.t[cleared].vals) // the run's own: the Init's clear
			}
			for _, r := range wf.resets {
				if !r.t.zero || !r.t.sizedAs(r.sizes) {
					r.t.reset(r.sizes)
				}
				r.t.zero = false
			}
			chunk(wf)
			for _, r := range wf.resets {
				r.t.findSpan()
			}
		})
		fr.mergeAll(workers, par)
		fr.used = max(fr.used, w)
	}
}

// chunksPerWorker is how many chunks a worker takes on average in a loop
// run in chunks (runChunks).
const chunksPerWorker = 8

// runChunks runs the loop's chunk statement over l..h-1 cut into chunks,
// chunksPerWorker a worker (at most one an iteration), on the workers,
// each taking the next chunk no other has taken until none is left: a
// worker whose processor is slow, or busy, runs fewer. (This machine's
// second CPU often runs at half speed, or not at all, for a few
// milliseconds: with two equal halves a loop waited for the slow one.)
// A chunk's sums (par.Reduce) are its own, added into the run's in
// chunk order, so that a result depends on the number of workers only,
// as with halves. A chunk that panics stops the others from taking more
// (every chunk before it was taken, and runs to its end), and the first
// chunk in order that panicked panics again here: the serial loop's
// failure.
func runChunks(fr *frame, workers []*frame, par *lower.Par, chunk stmt, clo, chi, l, h int, pos []int) {
	nc := min(chunksPerWorker*len(workers), h-l)
	r := len(par.Reduce)
	parts, iparts := make([]float64, nc*r), make([]int, nc*r) // chunk c's sums at c*r...
	panics := make([]any, nc)
	var next atomic.Int64
	var failed atomic.Bool
	for i, wf := range workers {
		wf.copyFrom(fr, par, i == 0)
	}
	runWorkers(workers, func(wf *frame) {
		for !failed.Load() {
			c := int(next.Add(1)) - 1
			if c >= nc {
				return
			}
			wf.i[clo], wf.i[chi] = split(l, h, c, nc, pos), split(l, h, c+1, nc, pos)
			for _, v := range par.Reduce {
				wf.i[v.ID], wf.f[v.ID] = 0, 0
			}
			func() {
				defer func() {
					if p := recover(); p != nil {
						panics[c] = p
						failed.Store(true)
					}
				}()
				chunk(wf)
			}()
			for k, v := range par.Reduce {
				parts[c*r+k], iparts[c*r+k] = wf.f[v.ID], wf.i[v.ID]
			}
		}
	})
	for _, p := range panics {
		if p != nil {
			panic(p)
		}
	}
	for c := range nc {
		for k, v := range par.Reduce {
			switch v.Kind {
			case lower.Real:
				fr.f[v.ID] += parts[c*r+k]
			case lower.Bool:
				if iparts[c*r+k] != 0 {
					fr.i[v.ID] = 1
				}
			default:
				fr.i[v.ID] += iparts[c*r+k]
			}
		}
	}
}

// runWorkers runs chunk on every worker frame, each on a goroutine, and
// panics with the first worker's panic, if any.
func runWorkers(workers []*frame, chunk stmt) {
	var wg sync.WaitGroup
	for _, wf := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					wf.panicked = p
				}
			}()
			chunk(wf)
		}()
	}
	wg.Wait()
	for _, wf := range workers {
		if wf.panicked != nil {
			p := wf.panicked
			wf.panicked = nil
			panic(p)
		}
	}
}

// innerTrips compiles the trip count of the parallel loop's inner loop
// (lower.InnerRange): what an iteration's work is beyond one. nil when
// there is none.
func (c *compiler) innerTrips(s *lower.For) func(*frame) int {
	inner := lower.InnerRange(s)
	if inner == nil {
		return nil
	}
	lo, hi := c.int(inner.Lo), c.int(inner.Hi)
	return func(fr *frame) int { return hi(fr) - lo(fr) }
}

// split is the first iteration of worker i of w over l..h-1: equal
// shares of iterations, or of a pos array's entries when the loop reads
// rows (balanced by their lengths).
func split(l, h, i, w int, pos []int) int {
	if i == w {
		return h
	}
	if pos == nil {
		return l + (h-l)*i/w
	}
	target := pos[l] + (pos[h]-pos[l])*i/w
	lo, hi := l, h
	for lo < hi { // the first iteration whose row starts at or past target
		m := int(uint(lo+hi) >> 1)
		if pos[m] < target {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// serialFor compiles a loop without its parallel mark.
func (c *compiler) serialFor(s *lower.For) stmt {
	cp := *s
	cp.Par = nil
	return c.stmt(&cp)
}

// extraVar allocates a frame slot beyond the program's variables.
func (c *compiler) extraVar() int {
	c.extra++
	return len(c.p.Vars) + c.extra - 1
}

// workers returns w worker frames of the run's pool.
func (fr *frame) workers(c *compiler, w int) []*frame {
	for len(fr.pool) < w {
		wf := c.newFrame()
		wf.worker = true
		fr.pool = append(fr.pool, wf)
	}
	return fr.pool[:w]
}

// copyFrom prepares a worker frame for a parallel loop: the run's scalars,
// arrays and tensors, but empty tensors and zero variables where the loop
// adds.
func (wf *frame) copyFrom(fr *frame, par *lower.Par, inPlace bool) {
	wf.resets = wf.resets[:0]
	copy(wf.i, fr.i)
	copy(wf.f, fr.f)
	copy(wf.ia, fr.ia)
	copy(wf.fa, fr.fa)
	for id := range wf.t {
		wf.t[id] = fr.t[id]
	}
	for _, t := range par.Tensors {
		if inPlace {
			continue // the run's own tensor: the other workers write copies
		}
		own := wf.own[t.ID]
		if own == nil {
			own = newTensor(t, fr.t[t.ID].dict)
			wf.own[t.ID] = own
		}
		main := fr.t[t.ID]
		sizes := make([]int, len(main.levels))
		for i, l := range main.levels {
			if l.kind == lower.Dense || l.kind == lower.Sparse {
				sizes[i] = l.size
			}
		}
		own.limit = main.limit
		for i, l := range main.levels {
			own.levels[i].pos, own.levels[i].idx = l.pos, l.idx
		}
		// emptied by the worker itself, so that the workers clear their
		// copies at once (the sizes are read here: the first worker
		// may grow the run's tensor)
		wf.resets = append(wf.resets, pendingReset{own, sizes})
		wf.t[t.ID] = own
	}
	for _, t := range par.Private {
		if wf.own[t.ID] == nil {
			wf.own[t.ID] = newTensor(t, fr.t[t.ID].dict)
			wf.own[t.ID].limit = fr.t[t.ID].limit
		}
		wf.t[t.ID] = wf.own[t.ID]
	}
	for _, v := range par.Reduce {
		wf.i[v.ID], wf.f[v.ID] = 0, 0
	}
}

// pendingReset is a worker's copy of a tensor to empty to the sizes of
// the run's (tensor.reset).
type pendingReset struct {
	t     *tensor
	sizes []int
}

// minParallelMerge is the least number of values of a full dense tensor
// whose workers' copies are added into the run's on several goroutines,
// each a range of values.
var minParallelMerge = 1 << 14

// mergeAll adds the workers' tensors and variables into the run's (the
// first worker's are the run's own): full dense tensors (a vector, a
// matrix of dense rows: a stencil's gradient) of at least
// minParallelMerge values range by range on as many goroutines as there
// are workers, the rest in worker order.
func (fr *frame) mergeAll(workers []*frame, par *lower.Par) {
	var ranged, moved []*lower.Tensor
	var rangedLen []int
	for _, t := range par.Tensors {
		if n := fr.t[t.ID].fullDenseOf(workers[1:], t.ID); n >= minParallelMerge {
			ranged = append(ranged, t)
			rangedLen = append(rangedLen, n)
			continue
		}
		srcs := make([]*tensor, 0, len(workers)-1)
		for _, wf := range workers[1:] {
			srcs = append(srcs, wf.t[t.ID])
		}
		if fr.t[t.ID].appendRowsAll(srcs, len(workers)) {
			moved = append(moved, t)
		}
	}
	for i, wf := range workers {
		fr.merge(wf, par, i == 0, append(ranged, moved...))
	}
	if len(ranged) == 0 {
		return
	}
	// each goroutine adds a share of the positions the copies wrote (the
	// union of their spans), copy after copy, and zeroes what it added:
	// the copies are then zero for the next run (tensor.zero)
	w := len(workers)
	spans := make([][2]int, len(ranged))
	for i, t := range ranged {
		lo, hi := rangedLen[i], 0
		for _, wf := range workers[1:] {
			c := wf.t[t.ID]
			if !c.span.ok || c.span.hi > rangedLen[i] {
				c.span.lo, c.span.hi, c.span.ok = 0, rangedLen[i], false // all of it
			}
			if c.span.lo < c.span.hi {
				lo, hi = min(lo, c.span.lo), max(hi, c.span.hi)
			}
		}
		spans[i] = [2]int{lo, max(hi, lo)}
	}
	var wg sync.WaitGroup
	for r := 0; r < w; r++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i, t := range ranged {
				dst := fr.t[t.ID]
				ulo, uhi := spans[i][0], spans[i][1]
				lo, hi := ulo+(uhi-ulo)*r/w, ulo+(uhi-ulo)*(r+1)/w
				for _, wf := range workers[1:] {
					c := wf.t[t.ID]
					a, b := max(lo, c.span.lo), min(hi, c.span.hi)
					if a < b {
						addZero(dst.vals[a:b], c.vals[a:b])
					}
				}
			}
		}()
	}
	wg.Wait()
	for i, t := range ranged {
		for _, wf := range workers[1:] {
			c := wf.t[t.ID]
			c.zero = c.span.ok && len(c.vals) == rangedLen[i]
		}
	}
}

// addZero adds src into dst and zeroes src (equal lengths), a block at
// a time, the block still in the cache when it is cleared.
func addZero(dst, src []float64) {
	const block = 2048
	for len(src) > 0 {
		n := min(block, len(src))
		vec.Arith(vec.Add, dst[:n], dst[:n], src[:n])
		clear(src[:n])
		dst, src = dst[n:], src[n:]
	}
}

// fullDenseOf returns the number of values of rt when it and every
// worker's copy of it are full dense real tensors (every level dense,
// with no presence) of the same sizes (the copies are made at the run's
// sizes; the run's level 0 may have grown since), else 0: their values
// are then added position by position.
func (rt *tensor) fullDenseOf(workers []*frame, id int) int {
	if rt.t.Leaf == lower.Bool {
		return 0
	}
	n := 1
	for i, l := range rt.levels {
		if l.kind != lower.Dense || l.present != nil {
			return 0
		}
		for _, wf := range workers {
			s := wf.t[id].levels[i]
			if s.kind != lower.Dense || s.present != nil || s.size != l.size {
				return 0
			}
		}
		n *= l.size
	}
	if len(rt.vals) < n {
		return 0
	}
	for _, wf := range workers {
		if len(wf.t[id].vals) < n {
			return 0
		}
	}
	return n
}

// merge adds a worker's tensors and variables into the run's.
func (fr *frame) merge(wf *frame, par *lower.Par, inPlace bool, ranged []*lower.Tensor) {
	for _, t := range par.Tensors {
		if !inPlace && !slices.Contains(ranged, t) {
			fr.t[t.ID].add(wf.t[t.ID])
		}
	}
	for _, v := range par.Reduce {
		switch v.Kind {
		case lower.Real:
			fr.f[v.ID] += wf.f[v.ID]
		case lower.Bool:
			if wf.i[v.ID] != 0 {
				fr.i[v.ID] = 1
			}
		default:
			fr.i[v.ID] += wf.i[v.ID]
		}
	}
}

// add adds every entry of src (a tensor of the same levels) into rt.
func (rt *tensor) add(src *tensor) {
	l0 := src.levels[0]
	if len(src.levels) == 1 && l0.kind == lower.Dense && rt.levels[0].kind == lower.Dense {
		// dense vectors: element by element
		dst := rt.levels[0]
		if l0.size > dst.size {
			rt.growDense(0, l0.size)
			dst = rt.levels[0]
		}
		if l0.present == nil && dst.present == nil && rt.t.Leaf != lower.Bool {
			// full dense vectors: one pass
			addVals(rt.vals[:l0.size], src.vals[:l0.size])
			return
		}
		for k := 0; k < l0.size; k++ {
			if l0.present == nil || l0.present[k] {
				if dst.present != nil {
					dst.present[k] = true
				}
				rt.addLeaf(k, src.vals[k])
			}
		}
		return
	}
	if rt.appendRows(src) {
		return
	}
	var walk func(lv, sp, dp int)
	walk = func(lv, sp, dp int) {
		src.children(lv, sp, func(key, c int) bool {
			var d int
			if rt.levels[lv].kind == lower.Positions {
				d = rt.insertAt(lv, c) // the same input positions
			} else {
				d = rt.insert(lv, dp, key)
			}
			if lv == len(src.levels)-1 {
				rt.addLeaf(d, src.vals[c])
			} else {
				walk(lv+1, c, d)
			}
			return true
		})
	}
	walk(0, 0, 0)
}

// appendRows adds src into rt by moving its rows whole, and reports
// whether it could: both a dense level over an appended one, src's rows
// all absent from rt (a parallel loop's workers fill disjoint rows, such
// as Gustavson's rows of BATAx). Each row's children are consecutive in
// an appended level, so src's keys and values are appended at once and
// its rows' spans moved by the offset, instead of inserted entry by
// entry.
func (rt *tensor) appendRows(src *tensor) bool {
	if len(src.levels) != 2 || len(rt.levels) != 2 {
		return false
	}
	d0, s0, d1, s1 := rt.levels[0], src.levels[0], rt.levels[1], src.levels[1]
	if d0.kind != lower.Dense || s0.kind != lower.Dense || d1.kind != lower.Appended || s1.kind != lower.Appended ||
		s0.size > d0.size || (d0.present == nil) != (s0.present == nil) || len(src.vals) != len(s1.keys) || len(rt.vals) != len(d1.keys) {
		return false
	}
	for p, h := range s1.head {
		if h != 0 && p < len(d1.head) && d1.head[p] != 0 {
			return false
		}
	}
	d1.endBurst()
	s1.endBurst()
	off := int32(len(d1.keys))
	if need := len(d1.keys) + len(s1.keys); need > cap(d1.keys) && need >= 1<<16 {
		rt.reserve(16 * float64(len(s1.keys)))
	}
	d1.keys = append(d1.keys, s1.keys...)
	rt.vals = append(rt.vals, src.vals...)
	for len(d1.head) < len(s1.head) {
		d1.head = append(d1.head, 0)
		d1.tail = append(d1.tail, 0)
	}
	for p, h := range s1.head {
		if h != 0 {
			d1.head[p], d1.tail[p] = h+off, s1.tail[p]+off
		}
	}
	if d0.present != nil && s0.present != nil {
		// rows present without children too
		for k, ok := range s0.present[:s0.size] {
			if ok {
				d0.present[k] = true
			}
		}
	}
	return true
}

// minParallelCopy is the least number of entries appendRowsAll moves on
// several goroutines.
var minParallelCopy = 1 << 16

// appendRowsAll moves the rows of the workers' copies srcs into rt, as
// appendRows does one copy (its conditions for each, and the copies'
// rows disjoint), but at once: rt's arrays grow once to hold them all,
// and w goroutines each copy an equal share of the keys and values and
// set the spans of a share of the rows. Gustavson's result of a parallel
// loop (BATAx) is then merged at the speed its rows were made, where
// moving them one worker after the other left a serial pass over most of
// the result behind the parallel loop. It reports whether it moved them.
func (rt *tensor) appendRowsAll(srcs []*tensor, w int) bool {
	if len(srcs) == 0 || len(rt.levels) != 2 {
		return false
	}
	d0, d1 := rt.levels[0], rt.levels[1]
	rows := len(d1.head)
	for _, src := range srcs {
		if len(src.levels) != 2 {
			return false
		}
		s0, s1 := src.levels[0], src.levels[1]
		if d0.kind != lower.Dense || s0.kind != lower.Dense || d1.kind != lower.Appended || s1.kind != lower.Appended ||
			s0.size > d0.size || (d0.present == nil) != (s0.present == nil) || len(src.vals) != len(s1.keys) || len(rt.vals) != len(d1.keys) {
			return false
		}
		rows = max(rows, len(s1.head))
	}
	// every row in one tensor at most
	for p := 0; p < rows; p++ {
		n := 0
		if p < len(d1.head) && d1.head[p] != 0 {
			n++
		}
		for _, src := range srcs {
			if h := src.levels[1].head; p < len(h) && h[p] != 0 {
				n++
			}
		}
		if n > 1 {
			return false
		}
	}
	d1.endBurst()
	offs := make([]int, len(srcs)+1)
	offs[0] = len(d1.keys)
	for i, src := range srcs {
		src.levels[1].endBurst()
		offs[i+1] = offs[i] + len(src.levels[1].keys)
	}
	base, total := offs[0], offs[len(srcs)]
	if total > cap(d1.keys) && total-base >= 1<<16 {
		rt.reserve(16 * float64(total-base))
	}
	d1.keys = slices.Grow(d1.keys, total-base)[:total]
	rt.vals = slices.Grow(rt.vals, total-base)[:total]
	for len(d1.head) < rows {
		d1.head = append(d1.head, 0)
		d1.tail = append(d1.tail, 0)
	}
	if total-base < minParallelCopy {
		w = 1
	}
	share := func(g int) {
		// the entries base+(total-base)*g/w.. of the concatenation
		lo, hi := base+(total-base)*g/w, base+(total-base)*(g+1)/w
		for i, src := range srcs {
			a, b := max(lo, offs[i]), min(hi, offs[i+1])
			if a < b {
				copy(d1.keys[a:b], src.levels[1].keys[a-offs[i]:b-offs[i]])
				copy(rt.vals[a:b], src.vals[a-offs[i]:b-offs[i]])
			}
		}
		// the rows rows*g/w.. : their spans moved by their copy's offset
		for i, src := range srcs {
			s1, off := src.levels[1], int32(offs[i])
			for p := rows * g / w; p < min(rows*(g+1)/w, len(s1.head)); p++ {
				if h := s1.head[p]; h != 0 {
					d1.head[p], d1.tail[p] = h+off, s1.tail[p]+off
				}
			}
		}
	}
	if w == 1 {
		share(0)
	} else {
		var wg sync.WaitGroup
		for g := range w {
			wg.Add(1)
			go func() {
				defer wg.Done()
				share(g)
			}()
		}
		wg.Wait()
	}
	if d0.present != nil {
		// rows present without children too
		for _, src := range srcs {
			s0 := src.levels[0]
			for k, ok := range s0.present[:s0.size] {
				if ok {
					d0.present[k] = true
				}
			}
		}
	}
	return true
}

// addVals adds src into dst element by element (equal lengths).
func addVals(dst, src []float64) {
	dst = dst[:len(src)]
	for k, v := range src {
		dst[k] += v
	}
}

// addLeaf adds v at leaf position c by the leaves' semi-ring.
func (rt *tensor) addLeaf(c int, v float64) {
	if rt.t.Leaf == lower.Bool {
		if v != 0 {
			rt.vals[c] = 1
		}
		return
	}
	rt.vals[c] += v
}

// findSpan sets rt.span to the positions of its values that are not
// zero (to the bit: a -0 counts), when rt is a full dense real tensor
// (every level dense, no presence: what mergeAll adds position by
// position), else to none found. A worker's copy was zero before its
// chunk, so its chunk wrote nothing outside the span that is not zero,
// and adding the rest is adding zeros: a chunk that wrote half the rows
// of a stencil's gradient is merged over those rows only.
func (rt *tensor) findSpan() {
	rt.span.lo, rt.span.hi, rt.span.ok = 0, 0, false
	if rt.t.Leaf == lower.Bool {
		return
	}
	for _, l := range rt.levels {
		if l.kind != lower.Dense || l.present != nil {
			return
		}
	}
	rt.span.lo, rt.span.hi = nonzeroSpan(rt.vals)
	rt.span.ok = true
}

// nonzeroSpan returns the first position of x whose value's bits are
// not zero and one past the last (lo == hi when there is none), testing
// eight values at once.
func nonzeroSpan(x []float64) (lo, hi int) {
	bits := math.Float64bits
	for lo+8 <= len(x) {
		b := x[lo : lo+8 : lo+8]
		if bits(b[0])|bits(b[1])|bits(b[2])|bits(b[3])|bits(b[4])|bits(b[5])|bits(b[6])|bits(b[7]) != 0 {
			break
		}
		lo += 8
	}
	for lo < len(x) && bits(x[lo]) == 0 {
		lo++
	}
	if lo == len(x) {
		return 0, 0
	}
	hi = len(x)
	for hi-8 >= lo {
		b := x[hi-8 : hi : hi]
		if bits(b[0])|bits(b[1])|bits(b[2])|bits(b[3])|bits(b[4])|bits(b[5])|bits(b[6])|bits(b[7]) != 0 {
			break
		}
		hi -= 8
	}
	for bits(x[hi-1]) == 0 {
		hi--
	}
	return lo, hi
}

// sizedAs reports whether rt's levels have the sizes reset would give
// them (its dense levels'; every other kind is reset anew).
func (rt *tensor) sizedAs(sizes []int) bool {
	for i, l := range rt.levels {
		if l.kind != lower.Dense || l.size != max(sizes[i], 0) {
			return false
		}
	}
	return true
}
