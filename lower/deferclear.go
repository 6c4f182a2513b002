package lower

// Clears deferred to a parallel loop's first worker. A parallel loop that
// adds into a dense destination runs its first worker on the destination
// itself and the others on copies, each of which a worker empties at its
// start. The destination was emptied before the loop, by its Init, on
// one goroutine: for a CSR matrix's column sums on two goroutines (1M
// entries into 200K columns) 5% of the time, which a hand-written split
// that clears in its goroutines does not spend. So where an Init of such
// a destination is followed by the loop (nothing between them touches
// it; the loop may be the first statement of an if without an else, the
// form of a loop over a level's positions guarded by its extent), a back
// end may size the destination without emptying it at the Init, and
// empty it on the loop's first worker, in the loop's serial form and in
// the if's else: on every path it is emptied before anything reads it.
// Both back ends do (gogen/deferclear.go, exec/parallel.go).

// DeferredClears are the clears FindDeferredClears moved: the Inits that
// keep their values, the loops whose first worker (or serial form)
// empties the tensor instead, and the ifs around such a loop whose else
// empties it.
type DeferredClears struct {
	Init map[*Init]bool
	Loop map[*For]*Tensor
	Else map[*If]*Tensor
}

// FindDeferredClears finds the Inits whose clear the next loop's first
// worker may do: an Init of a tensor whose levels are dense and full
// (no presence to clear, no level that grows), whose values are real and
// zeroed by the Init (not Covered, not SetFirst), followed, other
// tensors' Inits between, by a loop (or an if without an else whose
// first statement is the loop) of which inWorkers says that it runs on
// several workers adding into copies of t, its first worker into t
// itself.
func FindDeferredClears(p *Program, inWorkers func(f *For, t *Tensor) bool) DeferredClears {
	d := DeferredClears{Init: map[*Init]bool{}, Loop: map[*For]*Tensor{}, Else: map[*If]*Tensor{}}
	WalkStmts(p.Body, func(s Stmt) {
		b, ok := s.(*Block)
		if !ok {
			return
		}
		for i, x := range b.List {
			in, ok := x.(*Init)
			if !ok || !clearDeferrable(in) {
				continue
			}
			// the next statement but other tensors' Inits
			j := i + 1
			for j < len(b.List) {
				if o, ok := b.List[j].(*Init); !ok || o.T == in.T {
					break
				}
				j++
			}
			if j == len(b.List) {
				continue
			}
			var wrap *If
			next := b.List[j]
			if f, ok := next.(*If); ok && f.Else == nil {
				wrap, next = f, firstStmt(f.Then)
			}
			f, ok := next.(*For)
			if !ok || f.Par == nil || !inWorkers(f, in.T) {
				continue
			}
			d.Init[in] = true
			d.Loop[f] = in.T
			if wrap != nil {
				d.Else[wrap] = in.T
			}
		}
	})
	return d
}

// clearDeferrable reports whether an Init's clear may move: its tensor's
// levels are dense and full, its values real and zeroed by the Init.
func clearDeferrable(in *Init) bool {
	t := in.T
	if in.Covered != nil || in.SetFirst || t.Leaf != Real {
		return false
	}
	for _, l := range t.Levels {
		if l.Storage != Dense || !l.Full || l.Marked() {
			return false
		}
	}
	return true
}

// firstStmt is the first statement of s: itself, or a block's first.
func firstStmt(s Stmt) Stmt {
	for {
		b, ok := s.(*Block)
		if !ok || len(b.List) == 0 {
			return s
		}
		s = b.List[0]
	}
}
