package exec

// Gustavson's algorithm of segOuterTop (segouter.go) by blocks of result
// rows, on as many workers: the blocks hold about equal work (the entries
// their rows accumulate, not the rows), each worker has its own dense
// workspace and marks and builds its block's rows in a piece of its own;
// the pieces are then concatenated, worker 0's already in place. The
// merged rows and the transpose stay serial (linear in the entries). When
// the buffers may be short, a first parallel pass counts each block's
// entries exactly, as the serial kernel does, so that they are allocated
// once at their size. Every result row is computed as the serial kernel
// computes it: results are exactly the serial ones.

// outerPiece is one worker's share of the parallel Gustavson.
type outerPiece struct {
	mark []int32
	w    []float64
	oidx []int
	vals []float64
}

// Phases of outerJob.
const (
	outerCount = iota
	outerFill
	outerConcat
)

// outerJob is a phase of the parallel Gustavson; block w is result rows
// t.cuts[w]..t.cuts[w+1]-1.
type outerJob struct {
	wk         *outerWork
	cc         float64
	ncols      int
	mpos, midx []int
	mval       []float64
	tpos, trow []int
	tval       []float64
	opos       []int
	phase      int
	// the concatenation: final buffers, offsets of the pieces
	oidx []int
	vals []float64
	offs []int
}

func (j *outerJob) part(t *team, w int) {
	c0, c1 := t.cuts[w], t.cuts[w+1]
	switch j.phase {
	case outerCount:
		mark := j.marks(&j.wk.pieces[w])
		total := 0
		for i1 := c0; i1 < c1; i1++ {
			m := int32(i1)
			for q := j.tpos[i1]; q < j.tpos[i1+1]; q++ {
				k := j.trow[q]
				for _, c := range j.midx[j.mpos[k]:j.mpos[k+1]] {
					if mark[c] != m {
						mark[c] = m
						total++
					}
				}
			}
		}
		j.wk.counts[w] = total
	case outerFill:
		pc := &j.wk.pieces[w]
		mark := j.marks(pc)
		wv := grow(pc.w, j.ncols)
		oidx, ovals := pc.oidx[:0], pc.vals[:0]
		for i1 := c0; i1 < c1; i1++ {
			start := len(oidx)
			m := int32(i1)
			for q := j.tpos[i1]; q < j.tpos[i1+1]; q++ {
				k := j.trow[q]
				a := j.cc * j.tval[q]
				rv := j.mval[j.mpos[k]:j.mpos[k+1]]
				for x, c := range j.midx[j.mpos[k]:j.mpos[k+1]] {
					if mark[c] != m {
						mark[c] = m
						wv[c] = 0
						oidx = append(oidx, c)
					}
					wv[c] += a * rv[x]
				}
			}
			for _, c := range oidx[start:] {
				ovals = append(ovals, wv[c])
			}
			j.opos[i1+1] = len(oidx)
		}
		pc.w, pc.oidx, pc.vals = wv, oidx, ovals
	case outerConcat:
		// entries c0..c1-1 of the result (past piece 0, in place)
		for v := 1; v+1 < len(j.offs); v++ {
			ps := j.offs[v]
			p := &j.wk.pieces[v]
			a, b := max(c0, ps), min(c1, ps+len(p.oidx))
			if a < b {
				copy(j.oidx[a:b], p.oidx[a-ps:b-ps])
				copy(j.vals[a:b], p.vals[a-ps:b-ps])
			}
		}
	}
}

// marks returns the piece's marks over the columns, all -1.
func (j *outerJob) marks(pc *outerPiece) []int32 {
	mark := growI32(pc.mark, j.ncols)
	for q := range mark {
		mark[q] = -1
	}
	pc.mark = mark
	return mark
}

// parGustavson runs Gustavson's phase of segOuterTop on n workers, given
// the merged rows and their transpose (in j), into sg.
func (c *compiler) parGustavson(fr *frame, id, n int, sg *segResult, args outerJob) {
	wk := sg.outer
	j := jobAt[outerJob](fr, id)
	*j = args
	j.wk = wk
	ncols := j.ncols
	t := c.teamOf(fr)
	// the blocks: about equal work, a row's work being the entries it
	// accumulates, plus one
	cum := growInt(wk.cum, ncols+1)
	cum[0] = 0
	for i1 := 0; i1 < ncols; i1++ {
		w := 1
		for q := j.tpos[i1]; q < j.tpos[i1+1]; q++ {
			k := j.trow[q]
			w += j.mpos[k+1] - j.mpos[k]
		}
		cum[i1+1] = cum[i1] + w
	}
	wk.cum = cum
	bound := cum[ncols] - ncols
	t.weightedCuts(n, 0, ncols, func(x int) int { return cum[x] })
	for len(wk.pieces) < n {
		wk.pieces = append(wk.pieces, outerPiece{})
	}
	p0 := &wk.pieces[0]
	p0.mark, p0.w, p0.oidx, p0.vals = wk.mark, wk.w, wk.oidx, sg.vals
	// exact sizes when a piece may be short of its block's bound
	short := false
	for w := 0; w < n; w++ {
		b := cum[t.cuts[w+1]] - cum[t.cuts[w]]
		short = short || cap(wk.pieces[w].oidx) < b || cap(wk.pieces[w].vals) < b
	}
	short = short || cap(p0.oidx) < bound || cap(p0.vals) < bound
	if short && (wk.counted != bound || wk.countedN != n) {
		wk.counted, wk.countedN = bound, n
		wk.counts = growInt(wk.counts, n)
		j.phase = outerCount
		c.fork(fr, n, j)
		total := 0
		for w := 0; w < n; w++ {
			total += wk.counts[w]
			p := &wk.pieces[w]
			if cap(p.oidx) < wk.counts[w] {
				p.oidx = make([]int, 0, wk.counts[w])
			}
			if cap(p.vals) < wk.counts[w] {
				p.vals = make([]float64, 0, wk.counts[w])
			}
		}
		if cap(p0.oidx) < total {
			p0.oidx = make([]int, 0, total)
		}
		if cap(p0.vals) < total {
			p0.vals = make([]float64, 0, total)
		}
	}
	j.opos = growInt(wk.opos, ncols+1)
	j.opos[0] = 0
	j.phase = outerFill
	c.fork(fr, n, j)
	// the offsets of the pieces; row starts made absolute
	wk.offs = growInt(wk.offs, n+1)
	offs := wk.offs
	offs[0] = 0
	for w := 0; w < n; w++ {
		offs[w+1] = offs[w] + len(wk.pieces[w].oidx)
		if w > 0 {
			for i1 := t.cuts[w]; i1 < t.cuts[w+1]; i1++ {
				j.opos[i1+1] += offs[w]
			}
		}
	}
	total := offs[n]
	oidx, vals := p0.oidx, p0.vals
	if cap(oidx) < total {
		oidx = append(make([]int, 0, total), oidx...)
	}
	if cap(vals) < total {
		vals = append(make([]float64, 0, total), vals...)
	}
	j.oidx, j.vals, j.offs = oidx[:total], vals[:total], offs
	if m := c.workers(fr, total-offs[1], minParallelWork); total > offs[1] {
		t.evenCuts(m, offs[1], total)
		j.phase = outerConcat
		c.fork(fr, m, j)
	}
	wk.mark, wk.w, wk.opos, wk.oidx = p0.mark, p0.w, j.opos, j.oidx
	p0.oidx, p0.vals = nil, nil // the result's buffers, not a piece's
	sg.lo, sg.hi, sg.rowKeys, sg.start, sg.colKeys, sg.sameKey, sg.rowOn = 0, ncols, nil, j.opos, j.oidx, false, nil
	sg.vals = j.vals
	*j = outerJob{}
}
