package lower

// DropEmptyGuards removes a test that a segment is not empty where what
// it guards does nothing for an empty one:
//
//	for k := 0; k < n; k++ {
//	  ...
//	  if lo < hi {                          // dropped
//	    q := insert(T.level0[0], k)         // T's level 0 dense, full, sized n
//	    c := x                              // lets of plain arithmetic
//	    for p := lo; p < hi; p++ { ... }    // loops over the segment
//	  }
//	}
//
// Lowering inserts a row's parent only once the row has an entry; where
// the level is full (every key present: FullRows, CoverFull) the insert
// only names the row's position, so the test is one branch per row for
// nothing, and in the closure runtime a batch of lanes split in two. The
// insert's key is the loop's, below the level's size, so it cannot fail;
// the lets read no array (an index a test guarded could be out of range)
// but through a select that tests the index's range itself (guardedRead),
// or a load lowering proved in range (a plain Load, x_val[i] with i below
// x_len), which no test lo < hi of a non-parameter hi proved (facts come
// from tests against parameters), and divide no integer.
func DropEmptyGuards(p *Program) {
	params := map[*Var]bool{}
	for _, q := range p.Params {
		if q.Var != nil {
			params[q.Var] = true
		}
	}
	p.Body = spliceBlocks(p.Body, false, func(y Stmt, loops []*For) (keep, rest []Stmt, ok bool) {
		g, isIf := y.(*If)
		if !isIf || !emptyGuard(g, loops, params) {
			return nil, nil, false
		}
		if b, isBlock := g.Then.(*Block); isBlock {
			return nil, b.List, true
		}
		return nil, []Stmt{g.Then}, true
	})
}

// emptyGuard reports whether g tests lo < hi and its branch does nothing
// when lo >= hi, as DropEmptyGuards says; loops are the For loops around
// g, innermost last.
func emptyGuard(g *If, loops []*For, params map[*Var]bool) bool {
	c, ok := g.Cond.(*Binary)
	if g.Else != nil || !ok || c.Op != Lt {
		return false
	}
	hiParam := false
	if r, ok := c.Y.(*Ref); ok && params[r.V] {
		hiParam = true
	}
	lo, hi := CanonString(c.X), CanonString(c.Y)
	list := []Stmt{g.Then}
	if b, ok := g.Then.(*Block); ok {
		list = b.List
	}
	segments := 0
	for _, s := range list {
		switch x := s.(type) {
		case *Let:
			if !plainArith(x.X) && !guardedRead(x.X) && (hiParam || !provedLoad(x.X)) {
				return false
			}
		case *For:
			if CanonString(x.Lo) != lo || CanonString(x.Hi) != hi {
				return false
			}
			segments++
		case *Insert:
			if !namesRow(x, loops) {
				return false
			}
		default:
			return false
		}
	}
	return segments > 0
}

// plainArith reports whether e reads variables and constants only, with
// arithmetic that cannot fail (no integer division).
func plainArith(e Expr) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *Ref, *Const:
		case *Unary:
		case *Binary:
			if x.Op == Div && x.Kind() == Int {
				ok = false
			}
		default:
			ok = false
		}
	})
	return ok
}

// provedLoad reports whether e is a load lowering emitted unchecked
// (proved in range), at an index of plain arithmetic.
func provedLoad(e Expr) bool {
	ld, ok := e.(*Load)
	return ok && plainArith(ld.Index)
}

// guardedRead reports whether e is a lookup lowering guards by its index's
// range, select(... && I < B && ..., A[I], E), with the condition, the
// index and E plain arithmetic: the select's own condition keeps the
// load in range wherever it runs (its lower bound, 0 <= I, dropped only
// where a loop's range implies it), so an empty segment's iteration may
// run it too.
func guardedRead(e Expr) bool {
	s, ok := e.(*Select)
	if !ok {
		return false
	}
	ld, ok := s.Then.(*Load)
	if !ok || !plainArith(s.Cond) || !plainArith(s.Else) || !plainArith(ld.Index) {
		return false
	}
	idx := CanonString(ld.Index)
	for _, c := range conjuncts(s.Cond, nil) {
		if b, ok := c.(*Binary); ok && b.Op == Lt && CanonString(b.X) == idx {
			return true
		}
	}
	return false
}

// namesRow reports whether u inserts, into a full dense level 0 of size
// n, the key of a loop around it that runs from 0 to n: the insert only
// gives the key's position.
func namesRow(u *Insert, loops []*For) bool {
	l := u.T.Levels[u.Level]
	if u.Level != 0 || l.Storage != Dense || !l.Full || l.Size == nil || !isConst(u.Parent, 0) || u.At != nil {
		return false
	}
	k, ok := u.Key.(*Ref)
	if !ok {
		return false
	}
	for _, f := range loops {
		if f.V == k.V && isConst(f.Lo, 0) && CanonString(f.Hi) == CanonString(l.Size) {
			return true
		}
	}
	return false
}
