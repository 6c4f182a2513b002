package legacyexec

import "github.com/nablasd/nablasd/sdql"

// The row loops of the flat matrix results (seg.go, segdict.go) as jobs:
// the serial kernels run them whole, a parallel run cuts them into blocks
// of rows holding about equal numbers of entries (the result's positions),
// each block on a worker (its own frame where the loop runs closures).
// The blocks write disjoint positions: no merge, results exactly the
// serial ones. SMMM's column sums (a scatter-add) are cut by A's entries
// into per-worker accumulators, added in by the row blocks.

// rowCuts cuts rows lo..hi-1 of a CSR structure pos into n blocks of
// about equal entries (plus one per row).
func (t *team) rowCuts(n, lo, hi int, pos []int) {
	t.weightedCuts(n, lo, hi, func(x int) int { return pos[x] - pos[lo] + x - lo })
}

// diagJob fills a diagonal result (segDiag): vals[q] for q in a block.
type diagJob struct {
	vals     []float64
	constant bool
	x        float64 // the value when constant
	val      fexpr
	is       int // the slot of the loop variable
}

func (j *diagJob) part(t *team, r, p int) {
	var fr *frame
	if !j.constant {
		fr = t.frame(r)
	}
	j.fill(fr, t.cuts[p], t.cuts[p+1])
}

func (j *diagJob) fill(fr *frame, lo, hi int) {
	if j.constant {
		// x in a local: a store into vs could alias j.x, so the loop
		// would reload it every iteration
		vs, x := j.vals[lo:hi], j.x
		for q := range vs {
			vs[q] = x
		}
		return
	}
	for q := lo; q < hi; q++ {
		fr.i[j.is] = q
		j.vals[q] = j.val(fr)
	}
}

// rowsJob fills rows with an input's CSR structure (segRows): row k's
// positions ps[k]..ps[k+1]-1 get its factor (times a at the position).
type rowsJob struct {
	ps              []int
	vals, a, direct []float64
	rowDirect, is   int
	p               *plan
}

func (j *rowsJob) part(t *team, r, p int) { j.rows(t.frame(r), t.cuts[p], t.cuts[p+1]) }

func (j *rowsJob) rows(fr *frame, lo, hi int) {
	for k := lo; k < hi; k++ {
		var x float64
		switch {
		case j.rowDirect >= 0 && j.direct != nil:
			if uint(k) < uint(len(j.direct)) {
				x = j.direct[k]
			}
		case j.rowDirect >= 0 && fr.d[j.rowDirect] == nil:
		default:
			fr.i[j.is] = k
			x = j.p.scale(fr, 1)
		}
		vs := j.vals[j.ps[k]:j.ps[k+1]]
		if j.a == nil {
			for q := range vs {
				vs[q] = x
			}
		} else {
			src := j.a[j.ps[k]:j.ps[k+1]]
			for q := range vs {
				vs[q] = x * src[q]
			}
		}
	}
}

// colSumJob sums A's values by column into a workspace over B's rows
// (segColSum's first phase); part p > 0 into its own accumulator.
type colSumJob struct {
	aix     []int
	ava     []float64
	ws      []float64
	on      []bool
	rows, n int // B's rows; the guard's bound
	guarded bool
	npos    int // the length of B's pos, for errors
	where   sdql.Pos
}

func (j *colSumJob) part(t *team, _, p int) {
	ws, on := j.ws, j.on
	if p > 0 {
		ws, on = t.acc[p].f, t.on[p]
		clear(ws)
		clear(on)
	}
	j.scatter(ws, on, t.cuts[p], t.cuts[p+1])
}

func (j *colSumJob) scatter(ws []float64, on []bool, lo, hi int) {
	vs := j.ava[lo:hi]
	for q, c := range j.aix[lo:hi] {
		if uint(c) >= uint(j.rows) {
			if j.guarded && (c < 0 || c >= j.n) {
				continue // skipped by the guard
			}
			panic(rtErrorf("%s: row %d out of range of a pos array of length %d", j.where, c, j.npos))
		}
		ws[c] += vs[q]
		on[c] = true
	}
}

// colRowsJob writes segColSum's rows: B's positions of row k get its
// column sum (times B's value); first it adds in the accumulators of the
// column sums' parts 1..nacc-1 and drops the rows past the guard.
type colRowsJob struct {
	ps            []int
	vals, arr, ws []float64
	on            []bool
	nacc          int
	n             int // the guard's bound (B's rows when none)
	justA         bool
	ks, as        int
	p             *plan
}

func (j *colRowsJob) part(t *team, r, p int) {
	var fr *frame
	if !j.justA {
		fr = t.frame(r)
	}
	j.rows(t, fr, t.cuts[p], t.cuts[p+1])
}

func (j *colRowsJob) rows(t *team, fr *frame, lo, hi int) {
	ws, on := j.ws[lo:hi], j.on[lo:hi]
	for v := 1; v < j.nacc; v++ {
		acc, aon := t.acc[v].f[lo:hi], t.on[v][lo:hi]
		for k, x := range acc {
			ws[k] += x
			if aon[k] {
				on[k] = true
			}
		}
	}
	if j.n < hi {
		clear(j.on[max(j.n, lo):hi])
	}
	for k := lo; k < hi; k++ {
		if !j.on[k] {
			continue
		}
		x := j.ws[k]
		if !j.justA {
			fr.i[j.ks], fr.f[j.as] = k, x
			x = j.p.scale(fr, 1)
		}
		b, e := j.ps[k], j.ps[k+1]
		out := j.vals[b:e]
		if j.arr == nil {
			for q := range out {
				out[q] = x
			}
		} else {
			src := j.arr[b:e]
			for q := range out {
				out[q] = x * src[q]
			}
		}
	}
}
