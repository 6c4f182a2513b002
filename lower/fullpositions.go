package lower

// FullPositions makes a Positions level 1 under a dense level 0 Full
// (no presence of its own) where every row the program inserts is then
// filled whole: each insert U of a row is followed, in its block, by a
// loop G over all the row's positions in the input level, which inserts
// each of them under U's position:
//
//	q := insert(T.level0[0], k)              // U: a dense level 0 with presence
//	...                                      // nothing here reads T
//	for p := Pos[k]; p < Pos[k+1]; p++ {     // G: row k of the level's Pos
//	  ...                                    // nothing here reads T
//	  q1 := insert(T.level1[q], j) at p      // S, straight in G's body
//	  ...
//	}
//
// Every position of a present row is then present once G has run, and
// nothing reads the row in between, so a position is present exactly
// when its row is: the result of a gradient on a sparse input's stored
// positions filled row by row (SMMM's), the level TACO calls full. The
// back ends keep no presence array for it, which spares clearing one
// flag per stored position and setting it again. Inserts into level 1
// elsewhere (under rows U inserted) change nothing.
func FullPositions(p *Program) {
	lets, assigned := map[*Var]Expr{}, map[*Var]bool{}
	WalkStmts(p.Body, func(s Stmt) {
		switch x := s.(type) {
		case *Let:
			lets[x.V] = x.X
		case *Assign:
			assigned[x.V] = true
		}
	})
	for _, t := range p.Tensors {
		if t.Input || t.Order() != 2 {
			continue
		}
		l0, l1 := t.Levels[0], t.Levels[1]
		if l0.Storage != Dense || !l0.Marked() || l1.Storage != Positions || l1.Of.Pos == nil {
			continue
		}
		if rowsFilled(p.Body, t, lets, assigned) {
			l1.Full = true
		}
	}
}

// rowsFilled reports whether every insert into level 0 of t is followed
// in its block by a loop filling its row, as FullPositions says.
// lets are the program's let-bound expressions (each variable is bound
// once), assigned the variables an Assign changes.
func rowsFilled(body Stmt, t *Tensor, lets map[*Var]Expr, assigned map[*Var]bool) bool {
	all, filled := 0, 0
	WalkStmts(body, func(s Stmt) {
		if u, ok := s.(*Insert); ok && u.T == t && u.Level == 0 {
			all++
		}
		b, ok := s.(*Block)
		if !ok {
			return
		}
		for i, x := range b.List {
			u, ok := x.(*Insert)
			if !ok || u.T != t || u.Level != 0 || !isConst(u.Parent, 0) {
				continue
			}
			for _, y := range b.List[i+1:] {
				if g, ok := y.(*For); ok && fillsRow(g, u, t, lets, assigned) {
					filled++
					break
				}
				if readsTensor(y, t) || writesTensor(y, t) {
					break
				}
			}
		}
	})
	return all > 0 && all == filled
}

// fillsRow reports whether g loops over the positions of u's row in t's
// Positions level and inserts each, straight in its body, under u's
// position, reading t nowhere.
func fillsRow(g *For, u *Insert, t *Tensor, lets map[*Var]Expr, assigned map[*Var]bool) bool {
	pos := t.Levels[1].Of.Pos
	row := func(e Expr, next bool) bool {
		if r, ok := e.(*Ref); ok && lets[r.V] != nil && !assigned[r.V] {
			e = lets[r.V]
		}
		ld, ok := e.(*Load)
		if !ok || ld.A != pos {
			return false
		}
		// the row is u's position, which a dense level 0 under parent 0
		// numbers by its key
		at := func(v *Var) bool {
			if next {
				return IsNext(ld.Index, v)
			}
			return isRefTo(ld.Index, v)
		}
		if at(u.Pos) {
			return true
		}
		k, ok := u.Key.(*Ref)
		return ok && !assigned[k.V] && at(k.V)
	}
	if !row(g.Lo, false) || !row(g.Hi, true) || readsTensor(g.Body, t) {
		return false
	}
	return straightHas(g.Body, func(s Stmt) bool {
		x, ok := s.(*Insert)
		return ok && x.T == t && x.Level == 1 && isRefTo(x.Parent, u.Pos) && x.At != nil && isRefTo(x.At, g.V)
	})
}

// writesTensor reports whether s inserts into or stores into t.
func writesTensor(s Stmt, t *Tensor) bool {
	found := false
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *Insert:
			found = found || x.T == t
		case *Store:
			found = found || x.T == t
		case *Init:
			found = found || x.T == t
		}
	})
	return found
}
