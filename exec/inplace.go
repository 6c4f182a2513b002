package exec

import (
	"sync"

	"github.com/nablasd/nablasd/lower"
)

// Parallel loops that write their result in place. A parallel loop that
// adds into a tensor runs its workers but the first on copies of it,
// added in after (parallel.go). When the loop's keys at the tensor's
// level 0 are its own variable plus constants (a stencil's gradient adds
// into rows i - 1, i and i + 1 of iteration i), a chunk of iterations
// l..h-1 writes rows l + dmin .. h - 1 + dmax only, so two chunks share
// the rows of the first dmax - dmin iterations of the later one. Every
// worker then writes the tensor itself, the later chunks' first dmax -
// dmin iterations left out, and those run after the workers, one chunk
// after the other: no copy to clear, no merge, as a hand-written split
// writes in place (the two goroutines of the stencil's hand-written
// gradient ran 1.85× its one against 1.34× privatized, on this project's
// VM). The result is the serial one up to the order of additions into
// the rows both chunks write, the same for a given number of threads.

// inPlaceSpan returns dmax - dmin for a parallel loop s whose every
// tensor it adds into (s.Par.Tensors) can be written in place (above),
// and whether there is one: each such tensor's levels are dense and full
// (no presence, no level that grows) with real values, the loop
// inserts at its level 0 only at keys v + d (v the loop's variable, d a
// constant, directly or through a let of the body), at a deeper level
// only below a position the loop inserted at the level above, stores
// only at a position it inserted at the last level, and reads it
// nowhere.
func inPlaceSpan(s *lower.For) (int, bool) {
	par := s.Par
	if par == nil || par.Merge != lower.Sum || len(par.Tensors) == 0 {
		return 0, false
	}
	written := map[*lower.Tensor]bool{}
	for _, t := range par.Tensors {
		if t.Leaf != lower.Real {
			return 0, false
		}
		for _, l := range t.Levels {
			if l.Storage != lower.Dense || !l.Full {
				return 0, false
			}
		}
		written[t] = true
	}
	lets := map[*lower.Var]lower.Expr{}
	assigned := map[*lower.Var]bool{}
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		switch x := x.(type) {
		case *lower.Let:
			if _, twice := lets[x.V]; twice {
				assigned[x.V] = true
			}
			lets[x.V] = x.X
		case *lower.Assign:
			assigned[x.V] = true
		}
	})
	offset := func(e lower.Expr) (int, bool) {
		for range 4 { // a let of a let
			if d, ok := lower.Offset(e, s.V); ok {
				return d, true
			}
			r, ok := e.(*lower.Ref)
			if !ok || assigned[r.V] || lets[r.V] == nil {
				return 0, false
			}
			e = lets[r.V]
		}
		return 0, false
	}
	// the positions the loop inserted: tensor and level of each
	type at struct {
		t     *lower.Tensor
		level int
	}
	inserted := map[*lower.Var]at{}
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		if in, ok := x.(*lower.Insert); ok && written[in.T] {
			inserted[in.Pos] = at{in.T, in.Level}
		}
	})
	below := func(e lower.Expr, t *lower.Tensor, level int) bool {
		r, ok := e.(*lower.Ref)
		return ok && inserted[r.V] == at{t, level}
	}
	ok := true
	dmin, dmax, any := 0, 0, false
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		switch x := x.(type) {
		case *lower.Insert:
			if !written[x.T] {
				return
			}
			if x.At != nil {
				ok = false
				return
			}
			if x.Level > 0 {
				ok = ok && below(x.Parent, x.T, x.Level-1)
				return
			}
			d, isOff := offset(x.Key)
			if !isOff {
				ok = false
				return
			}
			if !any {
				dmin, dmax, any = d, d, true
			}
			dmin, dmax = min(dmin, d), max(dmax, d)
		case *lower.Store:
			if written[x.T] {
				ok = ok && below(x.Pos, x.T, len(x.T.Levels)-1)
			}
		case *lower.Locate:
			ok = ok && !written[x.T]
		case *lower.ForLevel:
			ok = ok && !written[x.T]
		case *lower.Init:
			ok = ok && !written[x.T]
		}
	})
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		lower.WalkStmtExprs(x, func(e lower.Expr) {
			if v, isVal := e.(*lower.ValAt); isVal && written[v.T] {
				ok = false
			}
		})
	})
	if !ok || !any {
		return 0, false
	}
	return dmax - dmin, true
}

// inPlace runs a parallel loop's iterations l..h-1 on the workers, in
// place (inPlaceSpan gave span): worker i runs its chunk but, for i > 0,
// its first span iterations, into the run's own tensors; then those run
// on the run's frame, chunk after chunk. The loop's variables are added
// into the run's in worker order.
func (fr *frame) inPlace(workers []*frame, par *lower.Par, chunk stmt, clo, chi, l, h, span int, pos []int) {
	w := len(workers)
	for i, wf := range workers {
		wf.copyFrom(fr, par, true)
		a, b := split(l, h, i, w, pos), split(l, h, i+1, w, pos)
		if i > 0 {
			a = min(a+span, b)
		}
		wf.i[clo], wf.i[chi] = a, b
	}
	runWorkers(workers, chunk)
	for _, wf := range workers {
		fr.merge(wf, par, true, nil)
	}
	for i := 1; i < w; i++ {
		a, b := split(l, h, i, w, pos), split(l, h, i+1, w, pos)
		fr.i[clo], fr.i[chi] = a, min(a+span, b)
		chunk(fr)
	}
	fr.used = max(fr.used, w)
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
