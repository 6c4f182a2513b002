package lower

// FullRows makes the dense level 0 of a result on an input's positions
// (a Positions level 1 that FullPositions made full) full, in a program
// whose result is completed to that input's stored positions and holds
// nothing else, where one loop at the top of the program inserts every
// row that has positions:
//
//	for k := 0; k < n; k++ {                   // n: level 0's size
//	  ...
//	  if Pos[k] < Pos[k+1] {                   // only: the row is not empty
//	    q := insert(T.level0[0], k)            // the only insert into level 0
//	    ...                                    // fills the row (FullPositions)
//
// A row it skips has no positions, so the level keeps no presence: the
// back ends stop clearing and setting one flag per row, and the result
// holds every stored position of the input, as its completion does.
//
// An intermediate (a reverse sweep's tape on an input's positions) gets
// the same where only locates read its level 0 (no loop over its keys
// sees a row it skipped) and nothing reads it before that loop has
// filled it: its one Init at the top of the program, then the loop.
func FullRows(p *Program, opts Options) {
	for _, t := range p.Tensors {
		if !t.Input && t != p.ResultTensor && t.Order() == 2 && onlyLocated(p, t) {
			fullRowsOf(p, t)
		}
	}
	t := p.ResultTensor
	if completedLevels(p, opts) == nil || t.Order() != 2 {
		return
	}
	fullRowsOf(p, t)
}

// onlyLocated reports whether t is initialized once at the top of the
// program, nothing reads it before the loop at the top that inserts into
// it (its one such loop), that loop reads it nowhere, and nothing loops
// over its level 0.
func onlyLocated(p *Program, t *Tensor) bool {
	top, ok := p.Body.(*Block)
	if !ok {
		return false
	}
	inits, looped := 0, false
	WalkStmts(p.Body, func(s Stmt) {
		switch x := s.(type) {
		case *Init:
			if x.T == t {
				inits++
			}
		case *ForLevel:
			looped = looped || x.T == t && x.Level == 0
		}
	})
	if inits != 1 || looped {
		return false
	}
	initSeen := false
	for _, s := range top.List {
		if x, ok := s.(*Init); ok && x.T == t {
			initSeen = true
			continue
		}
		if readsTensor(s, t) {
			return false
		}
		if writesTensor(s, t) {
			return initSeen
		}
	}
	return false
}

// fullRowsOf makes t's level 0 full where FullRows says.
func fullRowsOf(p *Program, t *Tensor) {
	l0, l1 := t.Levels[0], t.Levels[1]
	if l0.Storage != Dense || !l0.Marked() || l0.Size == nil || l1.Storage != Positions || !l1.Full || l1.Of.Pos == nil {
		return
	}
	var i0 *Insert
	n := 0
	WalkStmts(p.Body, func(s Stmt) {
		if x, ok := s.(*Insert); ok && x.T == t && x.Level == 0 {
			i0 = x
			n++
		}
	})
	top, ok := p.Body.(*Block)
	if n != 1 || !ok {
		return
	}
	lets := letsOf(p.Body)
	for _, s := range top.List {
		if f, ok := s.(*For); ok && coversRows(f, i0, t, lets) {
			l0.Full = true
			return
		}
	}
}

// coversRows reports whether the loop f runs over every key of t's dense
// level 0 (from 0 to its size) and inserts each key whose row in t's
// Positions level is not empty: the insert u is reached from f's body
// through blocks and tests that the row is not empty alone.
func coversRows(f *For, u *Insert, t *Tensor, lets map[*Var]Expr) bool {
	l0, pos := t.Levels[0], t.Levels[1].Of.Pos
	if !isConst(f.Lo, 0) || l0.Size == nil || CanonString(f.Hi) != CanonString(l0.Size) ||
		!isConst(u.Parent, 0) || !isRefTo(u.Key, f.V) {
		return false
	}
	deref := func(e Expr) Expr {
		if r, ok := e.(*Ref); ok && lets[r.V] != nil {
			return lets[r.V]
		}
		return e
	}
	rowTest := func(c Expr) bool {
		b, ok := c.(*Binary)
		if !ok || b.Op != Lt {
			return false
		}
		lo, ok1 := deref(b.X).(*Load)
		hi, ok2 := deref(b.Y).(*Load)
		return ok1 && ok2 && lo.A == pos && hi.A == pos && isRefTo(lo.Index, f.V) && IsNext(hi.Index, f.V)
	}
	var reach func(s Stmt) bool
	reach = func(s Stmt) bool {
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				if reach(y) {
					return true
				}
			}
		case *If:
			return x.Else == nil && rowTest(x.Cond) && reach(x.Then)
		}
		return s == u
	}
	return reach(f.Body)
}

// letsOf maps each variable a Let binds in s, and that no Assign changes,
// to its expression.
func letsOf(s Stmt) map[*Var]Expr {
	lets, assigned := map[*Var]Expr{}, map[*Var]bool{}
	WalkStmts(s, func(s Stmt) {
		switch x := s.(type) {
		case *Let:
			lets[x.V] = x.X
		case *Assign:
			assigned[x.V] = true
		}
	})
	for v := range assigned {
		delete(lets, v)
	}
	return lets
}
