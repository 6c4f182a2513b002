package exec

import "github.com/nablasd/nablasd/lower"

// A temporary kept in the result (lower.TempsInResult says when, and
// why): a gradient's x̄, accumulated in a dense vector T and then copied
// into the result R, is accumulated at the start of R's own values
// instead, where T's extent fits there (known at run time). T's Init
// then makes T's values a view of R's first keys, cleared as its own
// would have been (or left to the parallel loop that clears them,
// lower/deferclear.go), and the copy loop only clears the keys of R that
// T does not hold; where T does not fit, T keeps its own memory and the
// copy runs. T's own memory is given back at the copy, or at T's next
// Init when a run failed before it. A frame's tensors belong to one
// result (Result.fr), so T only ever views its own run's R. The
// closures' gradients with respect to a signal copied 8 MB (the
// Toeplitz band's: 0.9 ms of 8.9) for nothing.

// findInResults finds the temporaries kept in the result.
func (c *compiler) findInResults() {
	c.inResInit = map[*lower.Init]*lower.TempInResult{}
	c.inResLoop = map[*lower.For]*lower.TempInResult{}
	for _, tr := range lower.TempsInResult(c.p, c.deferred) {
		c.inResInit[tr.Init] = &tr
		c.inResLoop[tr.Copy] = &tr
	}
}

// inResultInit compiles T's Init: a view of R's first keys when T fits
// there, else the Init as it is.
func (c *compiler) inResultInit(tr *lower.TempInResult, s *lower.Init) stmt {
	plain := c.init(s)
	size := c.int(tr.T.Levels[0].Size)
	var covered func(*frame) bool
	if s.Covered != nil {
		covered = c.boolean(s.Covered)
	}
	keep := c.deferred.Init[s]
	tid, rid := tr.T.ID, tr.R.ID
	setFirst := s.SetFirst
	return func(fr *frame) {
		t := fr.t[tid]
		t.release()
		e, r := size(fr), fr.t[rid]
		if e < 0 || e > len(r.vals) {
			plain(fr)
			return
		}
		t.setFirst = setFirst
		t.own, t.vals = t.vals, r.vals[:e:e]
		l := t.levels[0]
		l.size, l.present = e, nil
		if !keep && (covered == nil || !covered(fr)) {
			clear(t.vals)
		}
		t.inResult = true
	}
}

// inResultCopy compiles the copy loop: with T still a view of R, only
// R's keys that the copy sets to zero, or that T held past the copy's
// range (R's Init left them zero), are cleared; otherwise the loop runs
// (over a view, each value copied onto itself); loop is the loop
// compiled.
func (c *compiler) inResultCopy(tr *lower.TempInResult, f *lower.For, loop stmt) stmt {
	hi := c.int(f.Hi)
	tid, rid, zero := tr.T.ID, tr.R.ID, tr.Zero
	return func(fr *frame) {
		t, r := fr.t[tid], fr.t[rid]
		if t.inResult && views(t.vals, r.vals) {
			h := hi(fr)
			switch {
			case zero && h <= len(r.vals):
				// keys below min(T's extent, h) hold T's values; those
				// between it and max(T's extent, h) are zero
				h = max(h, 0)
				clear(r.vals[min(len(t.vals), h):max(len(t.vals), h)])
				t.release()
				return
			case !zero && h <= len(t.vals):
				// the loop reads T's value at every key below h
				clear(r.vals[max(h, 0):len(t.vals)])
				t.release()
				return
			}
		}
		loop(fr)
		t.release()
	}
}

// views reports whether t is a view of r's first values.
func views(t, r []float64) bool {
	return len(t) == 0 || len(r) > 0 && &t[0] == &r[0]
}

// release gives a tensor kept in the result its own memory back.
func (rt *tensor) release() {
	if rt.inResult {
		rt.vals, rt.own, rt.inResult = rt.own, nil, false
	}
}
