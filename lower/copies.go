package lower

// PropagateCopies removes the lets that only copy another variable:
// v := w, with neither v nor w ever assigned, is dropped and v's reads
// read w (chains resolved). Hoisting leaves such copies behind (a let in
// a loop whose expression moved before it, as c, becomes v := c), and a
// columnar back end pays a pass over a batch for each. w is in scope
// wherever v is: v's let saw it, and v's scope ends inside w's.
func PropagateCopies(p *Program) {
	assigned := map[*Var]bool{}
	WalkStmts(p.Body, func(s Stmt) {
		if a, ok := s.(*Assign); ok {
			assigned[a.V] = true
		}
	})
	copyOf := map[*Var]Expr{}
	WalkStmts(p.Body, func(s Stmt) {
		l, ok := s.(*Let)
		if !ok || l.V == p.ResultVar || assigned[l.V] {
			return
		}
		if r, ok := l.X.(*Ref); ok && !assigned[r.V] && r.V.Kind == l.V.Kind {
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
