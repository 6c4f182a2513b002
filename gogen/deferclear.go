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
