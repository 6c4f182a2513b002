package lower

// ChooseDiagonal stores the second level of a two-level tensor Diagonal
// (its values, one per row) instead of hashed, where every insert into it
// is at its parent's own key:
//
//	q := insert(T.level0[0], k)   // U: level 0 dense, so q is k
//	... q1 := insert(T.level1[q], k)  // S: the same key k
//
// Each row then has at most one child, its key the row's: a diagonal
// matrix, as the Jacobian of every elementwise map is (∂(x + y)/∂x,
// ∂tanh(x)/∂x). The key must be the same variable in U and S, one no
// statement assigns, so that it has the same value at both; S's parent is
// U's position, so S runs where U has run. The level is Full (no presence
// of its own) when level 0 is not full and every U is followed, in its
// block, by an S under it: a row is then present exactly when its child
// is.
func ChooseDiagonal(p *Program) {
	assigned := assignedVars(p.Body)
	for _, t := range p.Tensors {
		if t.Input || len(t.Levels) != 2 || t.Levels[0].Storage != Dense || t.Levels[1].Storage != Hash {
			continue
		}
		if diagonalOf(p, t, assigned) {
			t.Levels[1].Storage = Diagonal
			t.Levels[1].Full = !t.Levels[0].Full && childFollows(p.Body, t)
		}
	}
}

// diagonalOf reports whether every insert into level 1 of t is keyed by
// its parent's key.
func diagonalOf(p *Program, t *Tensor, assigned map[*Var]bool) bool {
	top := map[*Var]*Insert{} // level-0 inserts of t by their position
	var ss []*Insert
	WalkStmts(p.Body, func(s Stmt) {
		if x, ok := s.(*Insert); ok && x.T == t {
			if x.Level == 0 {
				top[x.Pos] = x
			} else {
				ss = append(ss, x)
			}
		}
	})
	if len(ss) == 0 {
		return false
	}
	for _, s := range ss {
		q, ok := s.Parent.(*Ref)
		if !ok {
			return false
		}
		u := top[q.V]
		if u == nil || !isConst(u.Parent, 0) {
			return false
		}
		k, ok := u.Key.(*Ref)
		if !ok || assigned[k.V] || !isRefTo(s.Key, k.V) {
			return false
		}
	}
	return true
}

// childFollows reports whether every insert into level 0 of t is followed
// in its block (or a block nested in it, not under a condition or loop) by
// an insert into level 1 under the position it binds.
func childFollows(body Stmt, t *Tensor) bool {
	all, followed := 0, 0
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
			if !ok || u.T != t || u.Level != 0 {
				continue
			}
			for _, y := range b.List[i+1:] {
				if straightHas(y, func(z Stmt) bool {
					c, ok := z.(*Insert)
					return ok && c.T == t && c.Level == 1 && isRefTo(c.Parent, u.Pos)
				}) {
					followed++
					break
				}
			}
		}
	})
	return all == followed
}

// straightHas reports whether a statement satisfying f is s or is reached
// from s through blocks alone.
func straightHas(s Stmt, f func(Stmt) bool) bool {
	if b, ok := s.(*Block); ok {
		for _, x := range b.List {
			if straightHas(x, f) {
				return true
			}
		}
		return false
	}
	return f(s)
}
