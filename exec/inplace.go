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
// the rows of the first dmax - dmin iterations of the later one; with a
// stride and inner loops (a strided filter's gradient adds into 2i + k,
// k < K_len), rows 2l .. 2(h - 1) + K_len - 1, shared by the first
// (K_len - 1) / 2 iterations (rows.skip). Every worker then writes the
// tensor itself, the later chunks leaving those iterations out, and they
// run after the workers, one chunk after the other: no copy to clear, no
// merge, as a hand-written split writes in place (the two goroutines of
// the stencil's hand-written gradient ran 1.85× its one against 1.34×
// privatized, on this project's VM). The result is the serial one up to
// the order of additions into the rows two chunks write, the same for a
// given number of threads.

// rows is what inPlaceRows finds of a parallel loop over v: every key
// it inserts at level 0 of a tensor it adds into is stride·v + d + u₁ +
// ... with d a constant and each uᵢ the variable of a loop inside (its
// range evaluated before the loop: lo and hi).
type rows struct {
	stride int
	keys   []keyRows
}

// keyRows is a key's d and the ranges of its inner loops' variables.
type keyRows struct {
	d  int
	us []innerRange
}

// innerRange is the range of an inner loop's variable.
type innerRange struct{ lo, hi iexpr }

// inPlaceRows returns the rows of a parallel loop s whose every tensor
// it adds into (s.Par.Tensors) can be written in place (above), or nil:
// each such tensor's levels are dense with no presence (full or
// unmarked) with real values, the loop inserts at its level 0 only at
// keys stride·v + d + u₁ + ... (v the loop's variable, directly or
// through lets of the body; the uᵢ variables of loops inside whose
// ranges read nothing the body defines), at a deeper level only below a
// position the loop inserted at the level above, stores only at a
// position it inserted at the last level, and reads it nowhere.
func (c *compiler) inPlaceRows(s *lower.For) *rows {
	par := s.Par
	if par == nil || par.Merge != lower.Sum || len(par.Tensors) == 0 {
		return nil
	}
	written := map[*lower.Tensor]bool{}
	for _, t := range par.Tensors {
		if t.Leaf != lower.Real {
			return nil
		}
		for _, l := range t.Levels {
			if l.Storage != lower.Dense || l.Marked() {
				return nil
			}
		}
		written[t] = true
	}
	lets := map[*lower.Var]lower.Expr{}
	assigned := map[*lower.Var]bool{}
	defined := map[*lower.Var]bool{s.V: true}
	inner := map[*lower.Var]*lower.For{}
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		switch x := x.(type) {
		case *lower.Let:
			if _, twice := lets[x.V]; twice {
				assigned[x.V] = true
			}
			lets[x.V] = x.X
			defined[x.V] = true
		case *lower.Assign:
			assigned[x.V] = true
			defined[x.V] = true
		case *lower.For:
			inner[x.V] = x
			defined[x.V] = true
		case *lower.ForLevel:
			defined[x.Key] = true
			if x.Pos != nil {
				defined[x.Pos] = true
			}
		case *lower.Insert:
			defined[x.Pos] = true
		case *lower.Locate:
			defined[x.Pos] = true
		case *lower.Search:
			defined[x.Pos] = true
		}
	})
	readsBody := func(e lower.Expr) bool {
		found := false
		lower.WalkExpr(e, func(x lower.Expr) {
			if r, ok := x.(*lower.Ref); ok && defined[r.V] {
				found = true
			}
		})
		return found
	}
	// resolve writes e with the body's lets replaced by what they are
	var resolve func(e lower.Expr, depth int) (lower.Expr, bool)
	resolve = func(e lower.Expr, depth int) (lower.Expr, bool) {
		switch x := e.(type) {
		case *lower.Const:
			return x, true
		case *lower.Ref:
			if lets[x.V] == nil {
				return x, true
			}
			if assigned[x.V] || depth > 8 {
				return nil, false
			}
			return resolve(lets[x.V], depth+1)
		case *lower.Binary:
			a, ok1 := resolve(x.X, depth)
			b, ok2 := resolve(x.Y, depth)
			if !ok1 || !ok2 {
				return nil, false
			}
			return &lower.Binary{Op: x.Op, X: a, Y: b}, true
		}
		return nil, false
	}
	// terms splits off (d + u₁ + ...) into d and the inner loops' ranges
	var terms func(e lower.Expr, d *int, us *[]innerRange) bool
	terms = func(e lower.Expr, d *int, us *[]innerRange) bool {
		switch x := e.(type) {
		case *lower.Const:
			*d += x.I
			return x.K == lower.Int
		case *lower.Ref:
			f := inner[x.V]
			if f == nil || readsBody(f.Lo) || readsBody(f.Hi) {
				return false
			}
			*us = append(*us, innerRange{c.int(f.Lo), c.int(f.Hi)})
			return true
		case *lower.Binary:
			if x.Op == lower.Add {
				return terms(x.X, d, us) && terms(x.Y, d, us)
			}
			if k, isConst := x.Y.(*lower.Const); isConst && x.Op == lower.Sub && k.K == lower.Int {
				*d -= k.I
				return terms(x.X, d, us)
			}
		}
		return false
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
	r := &rows{}
	first := true
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		switch x := x.(type) {
		case *lower.Insert:
			if !written[x.T] || !ok {
				return
			}
			if x.At != nil {
				ok = false
				return
			}
			if x.Level > 0 {
				ok = below(x.Parent, x.T, x.Level-1)
				return
			}
			key, resolved := resolve(x.Key, 0)
			if !resolved {
				ok = false
				return
			}
			off, stride, isStride := lower.StrideOf(key, s.V)
			d, us := 0, []innerRange(nil)
			if !isStride || stride < 1 || !terms(off, &d, &us) {
				ok = false
				return
			}
			if first {
				r.stride, first = stride, false
			}
			ok = stride == r.stride
			r.keys = append(r.keys, keyRows{d, us})
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
	if !ok || first {
		return nil
	}
	return r
}

// skip returns, for chunks of the loop l..h-1, how many first
// iterations of a chunk write rows of the chunk before (for stride 1,
// dmax - dmin), and whether every row the loop writes lies in level 0
// of size n (so that no level grows while the workers write it).
func (r *rows) skip(fr *frame, l, h, n int) (int, bool) {
	lo, hi := 0, 0
	for i, k := range r.keys {
		klo, khi := k.d, k.d
		for _, u := range k.us {
			a, b := u.lo(fr), u.hi(fr)
			klo, khi = klo+a, khi+max(b-1, a)
		}
		if i == 0 {
			lo, hi = klo, khi
		}
		lo, hi = min(lo, klo), max(hi, khi)
	}
	// a chunk from l' shares rows with the one before for its
	// iterations l' + s with stride·(s + 1) <= hi - lo
	if r.stride*l+lo < 0 || r.stride*(h-1)+hi >= n {
		return 0, false
	}
	return (hi - lo) / r.stride, true
}

// skipAll is skip for every tensor the loop adds into: the most
// iterations a chunk leaves to run after the workers, and whether every
// row lies in its tensor's level 0.
func (r *rows) skipAll(fr *frame, par *lower.Par, l, h int) (int, bool) {
	most := 0
	for _, t := range par.Tensors {
		k, ok := r.skip(fr, l, h, fr.t[t.ID].levels[0].size)
		if !ok {
			return 0, false
		}
		most = max(most, k)
	}
	return most, true
}

// inPlace runs a parallel loop's iterations l..h-1 on the workers, in
// place (rows.skipAll gave span): worker i runs its chunk but, for i > 0,
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
