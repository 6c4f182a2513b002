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

// mapStmtExprs replaces every expression of s (those WalkStmtExprs
// visits at the top: a statement's operands, bounds and positions) by f
// of it.
func mapStmtExprs(s Stmt, f func(Expr) Expr) {
	m := func(e Expr) Expr {
		if e == nil {
			return nil
		}
		return f(e)
	}
	WalkStmts(s, func(x Stmt) {
		switch s := x.(type) {
		case *Let:
			s.X = m(s.X)
		case *Assign:
			s.X = m(s.X)
		case *If:
			s.Cond = m(s.Cond)
		case *For:
			s.Lo, s.Hi = m(s.Lo), m(s.Hi)
			if s.Prim != nil {
				s.Prim.Bound, s.Prim.Parent = m(s.Prim.Bound), m(s.Prim.Parent)
				s.Prim.Off, s.Prim.Off2 = m(s.Prim.Off), m(s.Prim.Off2)
				for i, o := range s.Prim.Factors {
					s.Prim.Factors[i] = m(o)
				}
			}
		case *ForLevel:
			s.Parent = m(s.Parent)
		case *Search:
			s.Lo, s.Hi, s.Key = m(s.Lo), m(s.Hi), m(s.Key)
		case *Insert:
			s.Parent, s.Key, s.At = m(s.Parent), m(s.Key), m(s.At)
		case *Locate:
			s.Parent, s.Key = m(s.Parent), m(s.Key)
		case *Store:
			s.Pos, s.X = m(s.Pos), m(s.X)
		case *Fail:
			for i, a := range s.Args {
				s.Args[i] = m(a)
			}
		case *Transpose:
			s.Lo, s.Hi = m(s.Lo), m(s.Hi)
		case *Init:
			s.Covered = m(s.Covered)
		}
	})
}
