package legacyexec

// Gustavson's algorithm of segOuterTop (segouter.go) by blocks of result
// rows, on up to n goroutines: the blocks (partsPerRunner per goroutine)
// hold about equal work (the entries their rows accumulate, not the
// rows); each goroutine has its own dense workspace and marks, and each
// block builds its rows in a piece of its own. The pieces are then
// concatenated, block 0's already in place (it is the result's buffer).
// The merged rows and the transpose stay serial (linear in the entries).
// When the buffers may be short, a first parallel pass counts each
// block's entries exactly, as the serial kernel does, so that they are
// allocated once at their size. Every result row is computed as the
// serial kernel computes it: results are exactly the serial ones.

// outerScratch is one goroutine's dense workspace.
type outerScratch struct {
	mark []int32
	w    []float64
}

// outerPiece is one block's result rows.
type outerPiece struct {
	oidx []int
	vals []float64
}

// Phases of outerJob.
const (
	outerCount = iota
	outerFill
	outerConcat
)

// outerJob is a phase of the parallel Gustavson; block p is result rows
// cuts[p]..cuts[p+1]-1 (cuts saved in wk.blocks).
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

func (j *outerJob) part(t *team, r, p int) {
	wk := j.wk
	switch j.phase {
	case outerCount:
		wk.counts[p] = j.countRows(wk.blocks[p], wk.blocks[p+1], j.marks(&wk.scratch[r]))
	case outerFill:
		ws := &wk.scratch[r]
		mark := j.marks(ws)
		wv := grow(ws.w, j.ncols)
		ws.w = wv
		pc := &wk.pieces[p]
		pc.oidx, pc.vals = j.fillRows(wk.blocks[p], wk.blocks[p+1], mark, wv, pc.oidx[:0], pc.vals[:0])
	case outerConcat:
		// entries cuts[p]..cuts[p+1]-1 of the result (past piece 0, in
		// place)
		c0, c1 := t.cuts[p], t.cuts[p+1]
		for v := 1; v+1 < len(j.offs); v++ {
			ps := j.offs[v]
			pc := &wk.pieces[v]
			a, b := max(c0, ps), min(c1, ps+len(pc.oidx))
			if a < b {
				copy(j.oidx[a:b], pc.oidx[a-ps:b-ps])
				copy(j.vals[a:b], pc.vals[a-ps:b-ps])
			}
		}
	}
}

// countRows counts the entries of result rows lo..hi-1 (a symbolic
// pass); mark holds no row of them on entry.
func (j *outerJob) countRows(lo, hi int, mark []int32) int {
	total := 0
	for i1 := lo; i1 < hi; i1++ {
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
	return total
}

// fillRows appends result rows lo..hi-1 to oidx and ovals (Gustavson:
// row i1 = the sum over rows k with column i1 of cc * A(k, i1) * row k,
// accumulated in the dense w marked per row) and sets opos[i1+1] to the
// end of row i1 in oidx; mark holds no row of them on entry.
func (j *outerJob) fillRows(lo, hi int, mark []int32, w []float64, oidx []int, ovals []float64) ([]int, []float64) {
	for i1 := lo; i1 < hi; i1++ {
		start := len(oidx)
		m := int32(i1)
		for q := j.tpos[i1]; q < j.tpos[i1+1]; q++ {
			k := j.trow[q]
			a := j.cc * j.tval[q]
			rv := j.mval[j.mpos[k]:j.mpos[k+1]]
			for x, c := range j.midx[j.mpos[k]:j.mpos[k+1]] {
				if mark[c] != m {
					mark[c] = m
					w[c] = 0
					oidx = append(oidx, c)
				}
				w[c] += a * rv[x]
			}
		}
		for _, c := range oidx[start:] {
			ovals = append(ovals, w[c])
		}
		j.opos[i1+1] = len(oidx)
	}
	return oidx, ovals
}

// marks returns the goroutine's marks over the columns, all -1.
func (j *outerJob) marks(ws *outerScratch) []int32 {
	mark := growI32(ws.mark, j.ncols)
	for q := range mark {
		mark[q] = -1
	}
	ws.mark = mark
	return mark
}

// parGustavson runs Gustavson's phase of segOuterTop on n goroutines,
// given the merged rows and their transpose (in args), into sg.
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
	parts := min(partsPerRunner*n, maxParts)
	t.weightedCuts(parts, 0, ncols, func(x int) int { return cum[x] })
	wk.blocks = append(wk.blocks[:0], t.cuts...)
	for len(wk.pieces) < parts {
		wk.pieces = append(wk.pieces, outerPiece{})
	}
	for len(wk.scratch) < n {
		wk.scratch = append(wk.scratch, outerScratch{})
	}
	p0, s0 := &wk.pieces[0], &wk.scratch[0]
	p0.oidx, p0.vals, s0.mark, s0.w = wk.oidx, sg.vals, wk.mark, wk.w
	// exact sizes when a piece may be short of its block's bound
	short := cap(p0.oidx) < bound || cap(p0.vals) < bound
	for p := 1; p < parts; p++ {
		b := cum[wk.blocks[p+1]] - cum[wk.blocks[p]]
		short = short || cap(wk.pieces[p].oidx) < b || cap(wk.pieces[p].vals) < b
	}
	if short && (wk.counted != bound || wk.countedN != parts) {
		wk.counted, wk.countedN = bound, parts
		wk.counts = growInt(wk.counts, parts)
		j.phase = outerCount
		c.fork(fr, n, parts, j)
		total := 0
		for p := 0; p < parts; p++ {
			total += wk.counts[p]
			pc := &wk.pieces[p]
			if cap(pc.oidx) < wk.counts[p] {
				pc.oidx = make([]int, 0, wk.counts[p])
			}
			if cap(pc.vals) < wk.counts[p] {
				pc.vals = make([]float64, 0, wk.counts[p])
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
	c.fork(fr, n, parts, j)
	// the offsets of the pieces; row starts made absolute
	wk.offs = growInt(wk.offs, parts+1)
	offs := wk.offs
	offs[0] = 0
	for p := 0; p < parts; p++ {
		offs[p+1] = offs[p] + len(wk.pieces[p].oidx)
		if p > 0 {
			for i1 := wk.blocks[p]; i1 < wk.blocks[p+1]; i1++ {
				j.opos[i1+1] += offs[p]
			}
		}
	}
	total := offs[parts]
	oidx, vals := p0.oidx, p0.vals
	if cap(oidx) < total {
		oidx = append(make([]int, 0, total), oidx...)
	}
	if cap(vals) < total {
		vals = append(make([]float64, 0, total), vals...)
	}
	j.oidx, j.vals, j.offs = oidx[:total], vals[:total], offs
	if total > offs[1] {
		m := c.workers(fr, total-offs[1], minDenseWork)
		t.evenCuts(partsPerRunner*m, offs[1], total)
		j.phase = outerConcat
		c.fork(fr, m, partsPerRunner*m, j)
	}
	wk.mark, wk.w, wk.opos, wk.oidx = s0.mark, s0.w, j.opos, j.oidx
	p0.oidx, p0.vals = nil, nil // the result's buffers, not a piece's
	sg.lo, sg.hi, sg.rowKeys, sg.start, sg.colKeys, sg.sameKey, sg.rowOn = 0, ncols, nil, j.opos, j.oidx, false, nil
	sg.vals = j.vals
	*j = outerJob{}
}
