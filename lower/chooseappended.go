package lower

// ChooseAppended stores the last level of a two-level tensor Appended
// (Gustavson's workspace row appended to a compressed result) instead of
// hashed, where each of its parents gets all its children in one burst:
//
//	for k ... {                          // F, at the top of the program
//	  ... q := insert(T.level0[0], k)    // U: k is F's key, distinct per iteration
//	  ... q1 := insert(T.level1[q], j)   // S: the only insert into level 1
//	}
//
// F's iterations insert distinct parents, each under its own key, and S
// runs only inside the iteration that inserted its parent. S must be the
// only insert statement into the level: the columnar runtime runs one
// statement for a whole batch of iterations before the next, so two
// statements inserting under the same parents would interleave parents.
// Lowering runs it after HoistInvariants, so that U sits where it runs.
func ChooseAppended(p *Program) {
	for _, t := range p.Tensors {
		if t.Input || len(t.Levels) != 2 || t.Levels[1].Storage != Hash {
			continue
		}
		if burstsOf(p, t) {
			t.Levels[1].Storage = Appended
		}
	}
}

// burstsOf reports whether the conditions of ChooseAppended hold for t.
func burstsOf(p *Program, t *Tensor) bool {
	var us, ss []*Insert
	WalkStmts(p.Body, func(s Stmt) {
		if x, ok := s.(*Insert); ok && x.T == t {
			if x.Level == 0 {
				us = append(us, x)
			} else {
				ss = append(ss, x)
			}
		}
	})
	if len(ss) != 1 {
		return false
	}
	si := ss[0]
	q, ok := si.Parent.(*Ref)
	if !ok {
		return false
	}
	var u *Insert
	for _, x := range us {
		if x.Pos == q.V {
			u = x
		}
	}
	if u == nil || !isConst(u.Parent, 0) {
		return false
	}
	// the top-level loop F around U: U runs once per iteration (no loop
	// between F and U), its key F's, and S is inside F
	lets := map[*Var]Expr{}
	WalkStmts(p.Body, func(s Stmt) {
		if l, ok := s.(*Let); ok {
			lets[l.V] = l.X
		}
	})
	found := false
	var visit func(s Stmt, depth int)
	visit = func(s Stmt, depth int) {
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				visit(y, depth)
			}
		case *If:
			visit(x.Then, depth)
			visit(x.Else, depth)
		case *For:
			if depth == 0 && loopKeyed(x.Body, u, si, lets, x.V) {
				found = true
			}
			visit(x.Body, depth+1)
		case *ForLevel:
			if depth == 0 && loopKeyed(x.Body, u, si, lets, x.Key) {
				found = true
			}
			visit(x.Body, depth+1)
		case *Search:
			visit(x.Body, depth)
		case *Locate:
			visit(x.Body, depth)
		}
	}
	visit(p.Body, 0)
	return found
}

// loopKeyed reports whether U is in body, keyed by the loop's key k (or
// a let bound to it), and S is in body: U may run several times in an
// iteration (inside an inner loop), always inserting the same parent.
func loopKeyed(body Stmt, u, s *Insert, lets map[*Var]Expr, k *Var) bool {
	key := u.Key
	if r, ok := key.(*Ref); ok {
		if x, ok := lets[r.V]; ok {
			key = x
		}
	}
	if !isRefTo(key, k) {
		return false
	}
	uTop, sIn := false, false
	var visit func(x Stmt, inLoop bool)
	visit = func(x Stmt, inLoop bool) {
		switch y := x.(type) {
		case *Block:
			for _, z := range y.List {
				visit(z, inLoop)
			}
		case *If:
			visit(y.Then, inLoop)
			visit(y.Else, inLoop)
		case *For:
			visit(y.Body, true)
		case *ForLevel:
			visit(y.Body, true)
		case *Search:
			visit(y.Body, inLoop)
		case *Locate:
			visit(y.Body, inLoop)
		case *Insert:
			if y == u {
				uTop = true
			}
			if y == s {
				sIn = true
			}
		}
	}
	visit(body, false)
	return uTop && sIn
}
