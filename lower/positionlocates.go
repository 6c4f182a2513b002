package lower

// PositionLocates turns a locate in a full Positions level, at the key a
// loop over the same input level reads at its position, into that
// position:
//
//	for p := Pos[r]; p < Pos[r+1]; p++ {       // L: row r of the input level (Pos, Idx)
//	  j := Idx[p]
//	  ...
//	  if c := locate(T.level1[q], j); found {   // T's level 1: positions of (Pos, Idx), full
//	    body                                    // q the position of row r in T's level 0
//	  }
//
// becomes `c := p; body`. A Positions level's children of parent
// position q are the input level's positions Pos[q]..Pos[q+1]-1, keyed
// Idx[c], unique and ascending (the level's proof: LevelInfo.Search), so
// the search for the key Idx[p] of row r's position p finds p when q is
// r; a full level keeps no presence to test there (its positions are
// present with their row, and the locate of the row, if any, stays). The
// position q of a dense level 0's key (under the root) is the key, so q
// is r when the key is.
//
// This is a value-and-gradients kernel's tape: the intermediate values a
// reverse sweep keeps per entry of a sparse input (the residuals of a
// factorization, R(i)(j) - U(i)·W(j)), stored on R's positions and read
// back by the sweeps over R's rows, which have the position in hand: a
// binary search per entry becomes a read.
//
// It runs after AffineLocates, which turns a full level 0's locate into
// its key, and after FullPositions and FullRows, which make the levels
// full.
func PositionLocates(p *Program) {
	lets := letsOf(p.Body)
	assigned := assignedVars(p.Body)
	// rowOf maps the position variable of a locate or insert in a dense
	// level 0 under the root to its key: the position is the key
	rowOf := map[*Var]Expr{}
	WalkStmts(p.Body, func(s Stmt) {
		var t *Tensor
		var level int
		var parent, key Expr
		var pos *Var
		switch x := s.(type) {
		case *Locate:
			t, level, parent, key, pos = x.T, x.Level, x.Parent, x.Key, x.Pos
		case *Insert:
			t, level, parent, key, pos = x.T, x.Level, x.Parent, x.Key, x.Pos
		default:
			return
		}
		if level == 0 && !t.Input && t.Levels[0].Storage == Dense && isConst(parent, 0) {
			rowOf[pos] = key
		}
	})
	// resolve follows lets (of variables no Assign changes) and the
	// positions of dense levels 0 to the expression a variable stands for
	var resolve func(e Expr) Expr
	resolve = func(e Expr) Expr {
		for range 64 { // bound the chain: each variable is bound once
			r, ok := e.(*Ref)
			if !ok || assigned[r.V] {
				break
			}
			if x, ok := lets[r.V]; ok {
				e = x
			} else if x, ok := rowOf[r.V]; ok {
				e = x
			} else {
				break
			}
		}
		return e
	}
	stable := func(e Expr) bool { return !readsAny(e, assigned) }
	p.Body = spliceBlocks(p.Body, true, func(y Stmt, loops []*For) (keep, rest []Stmt, ok bool) {
		x, isLocate := y.(*Locate)
		if !isLocate || x.T.Input || x.Level != 1 || x.T.Order() < 2 {
			return nil, nil, false
		}
		l1 := x.T.Levels[1]
		if l1.Storage != Positions || !l1.Full || l1.Of == nil || l1.Of.Pos == nil {
			return nil, nil, false
		}
		key, isLoad := resolve(x.Key).(*Load)
		if !isLoad || key.A != l1.Of.Idx {
			return nil, nil, false
		}
		at, isRef := key.Index.(*Ref)
		if !isRef {
			return nil, nil, false
		}
		var loop *For
		for _, f := range loops {
			if f.V == at.V {
				loop = f
			}
		}
		if loop == nil {
			return nil, nil, false
		}
		lo, okLo := resolve(loop.Lo).(*Load)
		hi, okHi := resolve(loop.Hi).(*Load)
		if !okLo || !okHi || lo.A != l1.Of.Pos || hi.A != l1.Of.Pos {
			return nil, nil, false
		}
		row, parent := resolve(lo.Index), resolve(x.Parent)
		if !stable(row) || !stable(parent) || CanonString(row) != CanonString(parent) ||
			CanonString(&Binary{Op: Add, X: row, Y: &Const{K: Int, I: 1}}) != CanonString(resolve(hi.Index)) {
			return nil, nil, false
		}
		return []Stmt{&Let{V: x.Pos, X: &Ref{V: at.V}}}, blockList(x.Body), true
	})
}
