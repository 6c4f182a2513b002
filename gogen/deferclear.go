package gogen

import "github.com/nablasd/nablasd/lower"

// Clears deferred to a parallel loop's first worker (lower/deferclear.go
// says why and where). The generated kernel's Init of such a destination
// takes keep (it sizes without emptying), and the destination is emptied
// on the loop's first worker (its else of the worker prologue), in the
// loop's serial form and in the if's else. Measured: the JIT's two
// goroutines ran at a hand-written split's time with its clear moved
// before the goroutines (0.99); after, 0.93 of the split that clears in
// its goroutines.

// findDeferredClears finds the Inits whose clear the next parallel loop's
// first worker does, once planParallel has planned the loops.
func (g *gen) findDeferredClears() {
	g.deferred = lower.DeferredClears{}
	if !g.opts.Parallel {
		return
	}
	g.deferred = lower.FindDeferredClears(g.p, g.clearsInWorker)
	g.findInPlaceClears()
	for in := range g.deferred.Init {
		g.covered(in.T)            // fills g.coveredInit
		g.coveredInit[in.T] = true // its init takes keep
	}
}

// clearsInWorker reports whether f runs in parallel with t among the
// tensors its workers add into copies of (its first worker into t).
func (g *gen) clearsInWorker(f *lower.For, t *lower.Tensor) bool {
	pl := g.pars[f]
	if pl == nil || pl.why != "" || f.Par == nil {
		return false
	}
	for _, x := range f.Par.Tensors {
		if x == t {
			return !appendedRows(t) && !growable(t)
		}
	}
	return false
}

// deferredClear is the Go statement that does t's Init clear where it
// moved to (where: said in its comment).
func (g *gen) deferredClear(t *lower.Tensor, where string) string {
	return "clear(" + g.ts[t].ptr + ".Vals) // the Init's clear, " + where + " (lower/deferclear.go)"
}

// findInPlaceClears adds to g.deferred the Inits whose clear a parallel
// loop that may write in place does (inplace.go): an Init zeroing a
// tensor of dense levels without presence (full or not) with real
// values, followed in its block, other tensors' Inits and lets not
// reading the tensor between, by a loop on several workers adding into
// it whose rows lower.InPlaceRowsOf finds. Written in place, each worker
// empties the rows only it writes; else as lower.FindDeferredClears's
// (the first worker, or the serial loop, empties the whole tensor).
func (g *gen) findInPlaceClears() {
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		b, ok := s.(*lower.Block)
		if !ok {
			return
		}
		for i, x := range b.List {
			in, ok := x.(*lower.Init)
			if !ok || g.deferred.Init[in] || !inPlaceClearable(in) {
				continue
			}
			j := i + 1
			for ; j < len(b.List); j++ {
				if o, ok := b.List[j].(*lower.Init); ok && o.T != in.T {
					continue
				}
				if l, ok := b.List[j].(*lower.Let); ok && !readsTensor(l.X, in.T) {
					continue
				}
				break
			}
			if j == len(b.List) {
				continue
			}
			f, ok := b.List[j].(*lower.For)
			if !ok || g.deferred.Loop[f] != nil || !g.clearsInWorker(f, in.T) && !g.inPlaceOnly(f, in.T) || lower.InPlaceRowsOf(f) == nil {
				continue
			}
			g.deferred.Init[in] = true
			g.deferred.Loop[f] = in.T
		}
	})
}

// inPlaceOnly reports whether f runs in parallel adding into t, a tensor
// whose level 0 may grow (not full): its first worker may add into t.
func (g *gen) inPlaceOnly(f *lower.For, t *lower.Tensor) bool {
	pl := g.pars[f]
	if pl == nil || pl.why != "" || f.Par == nil || appendedRows(t) {
		return false
	}
	for _, x := range f.Par.Tensors {
		if x == t {
			return true
		}
	}
	return false
}

// inPlaceClearable reports whether an Init's clear may move to a loop
// writing in place: its tensor's levels are dense without presence, its
// values real and zeroed by the Init.
func inPlaceClearable(in *lower.Init) bool {
	t := in.T
	if in.Covered != nil || in.SetFirst || t.Leaf != lower.Real {
		return false
	}
	for _, l := range t.Levels {
		if l.Storage != lower.Dense || l.Marked() {
			return false
		}
	}
	return true
}

// readsTensor reports whether e reads a value of t.
func readsTensor(e lower.Expr, t *lower.Tensor) bool {
	found := false
	lower.WalkExpr(e, func(x lower.Expr) {
		if v, ok := x.(*lower.ValAt); ok && v.T == t {
			found = true
		}
	})
	return found
}
