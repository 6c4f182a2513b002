package lower

// PropagateCopies removes the lets that only copy another variable:
// v := w, with v never assigned and w never assigned after the copy, is
// dropped and v's reads read w (chains resolved). Hoisting leaves such
// copies behind (a let in a loop whose expression moved before it, as c,
// becomes v := c), a lookup defaulted to zero is copied into the
// variable a row uses (x := 0; if found { x = t.val[q] }; c := x), and a
// columnar back end pays a pass over a batch for each. w is in scope
// wherever v is: v's let saw it, and v's scope ends inside w's. w is
// unchanged after the copy when it is never assigned, or when its let is
// in the copy's block, before it, and every assignment of w is in the
// statements between the two: the block's next run declares both anew.
func PropagateCopies(p *Program) {
	assigned := map[*Var]int{}
	WalkStmts(p.Body, func(s Stmt) {
		if a, ok := s.(*Assign); ok {
			assigned[a.V]++
		}
	})
	copyOf := map[*Var]Expr{}
	WalkStmts(p.Body, func(s Stmt) {
		b, ok := s.(*Block)
		if !ok {
			return
		}
		declared := map[*Var]int{} // a let of the block: its index
		for j, x := range b.List {
			l, ok := x.(*Let)
			if !ok {
				continue
			}
			declared[l.V] = j
			r, ok := l.X.(*Ref)
			if !ok || l.V == p.ResultVar || assigned[l.V] > 0 || r.V.Kind != l.V.Kind {
				continue
			}
			if n := assigned[r.V]; n > 0 {
				i, in := declared[r.V]
				if !in || assignsIn(b.List[i+1:j], r.V) != n {
					continue
				}
			}
			copyOf[l.V] = r
		}
	})
	if len(copyOf) == 0 {
		return
	}
	for v := range copyOf {
		r := copyOf[v]
		for {
			next, ok := copyOf[r.(*Ref).V]
			if !ok {
				break
			}
			r = next
		}
		copyOf[v] = r
	}
	p.Body = dropCopies(p.Body, copyOf)
	mapStmtExprs(p.Body, func(e Expr) Expr { return substLets(e, copyOf) })
}

// dropCopies removes the lets of the copies from the blocks of s.
func dropCopies(s Stmt, copyOf map[*Var]Expr) Stmt {
	WalkStmts(s, func(x Stmt) {
		b, ok := x.(*Block)
		if !ok {
			return
		}
		kept := b.List[:0]
		for _, y := range b.List {
			if l, ok := y.(*Let); ok && copyOf[l.V] != nil {
				continue
			}
			kept = append(kept, y)
		}
		b.List = kept
	})
	return s
}

// assignsIn counts the assignments of v in the statements ss.
func assignsIn(ss []Stmt, v *Var) int {
	n := 0
	for _, s := range ss {
		WalkStmts(s, func(x Stmt) {
			if a, ok := x.(*Assign); ok && a.V == v {
				n++
			}
		})
	}
	return n
}
