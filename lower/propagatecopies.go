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
//
// It first drops the default a lookup's variable no longer needs
// (overwritten): once a locate is certain (AffineLocates) or its test
// proved, x := 0; x = t.val[q] is x := t.val[q], a let a primitive rule
// folds into its product.
func PropagateCopies(p *Program) {
	assigned := map[*Var]int{}
	WalkStmts(p.Body, func(s Stmt) {
		if a, ok := s.(*Assign); ok {
			assigned[a.V]++
		}
	})
	dropOverwritten(p, assigned)
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

// dropOverwritten turns a let of a constant whose variable is set, before
// anything reads it, by the one assignment of the variable, in the let's
// block, into a let of the assigned value at the assignment: v := 0; ...;
// v = e is ...; v := e. The constant is evaluated for nothing (and cannot
// fail); v is in scope from its new let on, since nothing before read it.
// assigned counts each variable's assignments and is kept up to date.
func dropOverwritten(p *Program, assigned map[*Var]int) {
	WalkStmts(p.Body, func(s Stmt) {
		b, ok := s.(*Block)
		if !ok {
			return
		}
		var dropped map[int]bool
		for j, x := range b.List {
			l, ok := x.(*Let)
			if !ok || l.V == p.ResultVar || assigned[l.V] != 1 {
				continue
			}
			if _, isConst := l.X.(*Const); !isConst {
				continue
			}
			for k := j + 1; k < len(b.List); k++ {
				if a, ok := b.List[k].(*Assign); ok && a.V == l.V {
					if a.Op == Set && !reads(a.X, l.V) {
						if dropped == nil {
							dropped = map[int]bool{}
						}
						dropped[j] = true
						b.List[k] = &Let{V: l.V, X: a.X}
						assigned[l.V] = 0
					}
					break
				}
				if stmtReads(b.List[k], l.V) || assignsIn(b.List[k:k+1], l.V) > 0 {
					break
				}
			}
		}
		if dropped == nil {
			return
		}
		kept := b.List[:0]
		for j, y := range b.List {
			if !dropped[j] {
				kept = append(kept, y)
			}
		}
		b.List = kept
	})
}

// stmtReads reports whether s or a statement inside it reads v.
func stmtReads(s Stmt, v *Var) bool {
	found := false
	WalkStmtExprs(s, func(e Expr) {
		if r, ok := e.(*Ref); ok && r.V == v {
			found = true
		}
	})
	return found
}
