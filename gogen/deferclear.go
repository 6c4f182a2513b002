package gogen

import "github.com/nablasd/nablasd/lower"

// Clears deferred to a parallel loop's first worker. A parallel loop that
// adds into a dense destination runs its first worker on the destination
// itself and the others on copies, each of which a worker empties at its
// start (emptyLike). The destination was emptied before the loop, by its
// Init, on one goroutine: for a CSR matrix's column sums on two
// goroutines (1M entries into 200K columns) 5% of the time, which a hand-written split
// that clears in its goroutines does not spend (measured: the JIT's two
// goroutines ran at the hand-written split's time with its clear moved
// before the goroutines, 0.99). So where an Init of such a destination is
// followed by the loop (nothing between them touches it; the loop may be
// the first statement of an if without an else, the form of a loop over
// a level's positions guarded by its extent), the Init sizes the
// destination without emptying it (its init's keep), the loop's first
// worker empties it, and so do the loop's serial form and the if's else:
// on every path the destination is emptied before anything reads it.

// deferredClears is what findDeferredClears found: the Inits that keep
// their values, and the loops and ifs that empty the destination instead.
type deferredClears struct {
	init map[*lower.Init]bool
	loop map[*lower.For]*lower.Tensor
	els  map[*lower.If]*lower.Tensor
}

// findDeferredClears finds the Inits whose clear the next parallel loop's
// first worker does (the file's comment above), once planParallel has
// planned the loops.
func (g *gen) findDeferredClears() {
	g.deferred = deferredClears{init: map[*lower.Init]bool{}, loop: map[*lower.For]*lower.Tensor{}, els: map[*lower.If]*lower.Tensor{}}
	if !g.opts.Parallel {
		return
	}
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		b, ok := s.(*lower.Block)
		if !ok {
			return
		}
		for i, x := range b.List {
			in, ok := x.(*lower.Init)
			if !ok || !g.clearDeferrable(in) {
				continue
			}
			// the next statement but other tensors' Inits
			j := i + 1
			for j < len(b.List) {
				if o, ok := b.List[j].(*lower.Init); !ok || o.T == in.T {
					break
				}
				j++
			}
			if j == len(b.List) {
				continue
			}
			var wrap *lower.If
			next := b.List[j]
			if f, ok := next.(*lower.If); ok && f.Else == nil {
				wrap, next = f, firstStmt(f.Then)
			}
			f, ok := next.(*lower.For)
			if !ok || !g.clearsInWorker(f, in.T) {
				continue
			}
			g.deferred.init[in] = true
			g.deferred.loop[f] = in.T
			if wrap != nil {
				g.deferred.els[wrap] = in.T
			}
			g.covered(in.T)            // fills g.coveredInit
			g.coveredInit[in.T] = true // its init takes keep
		}
	})
}

// clearDeferrable reports whether an Init's clear may move: its tensor's
// levels are dense and full (no presence to clear, no level that grows),
// its values real and zeroed by the Init.
func (g *gen) clearDeferrable(in *lower.Init) bool {
	t := in.T
	if in.Covered != nil || in.SetFirst || g.setFirst(t) || t.Leaf != lower.Real {
		return false
	}
	for _, l := range t.Levels {
		if l.Storage != lower.Dense || !l.Full || l.Marked() {
			return false
		}
	}
	return true
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
	return "clear(" + g.ts[t].ptr + ".Vals) // the Init's clear, " + where + " (deferclear.go)"
}

// firstStmt is the first statement of s: itself, or a block's first.
func firstStmt(s lower.Stmt) lower.Stmt {
	for {
		b, ok := s.(*lower.Block)
		if !ok || len(b.List) == 0 {
			return s
		}
		s = b.List[0]
	}
}
