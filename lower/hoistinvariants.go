package lower

// HoistInvariants moves loop-invariant code out of counted loops (For):
// the statements at the top of a loop's body (past lets, assignments,
// stores and quiet lookups), run unconditionally in every iteration, that
// compute the same thing in each: a Let whose
// expression reads nothing the loop changes, and an Insert whose parent
// and key (and position) are such, into a tensor the loop neither reads
// nor iterates. They move before the loop, under the condition that the
// loop runs at all (lo < hi): an insert still creates its key only where
// the program would, and a load that could fail still fails only where it
// would. Lowering emits such code wherever a view is read (the bounds of
// a row's segment inside a loop over another row, the insert of an outer
// key inside the inner loop that stores under it), and both back ends run
// a statement inside a loop once per iteration. Inner loops are hoisted
// first, so code climbs as far as it is invariant.
func HoistInvariants(p *Program) {
	p.Body = rewriteLoops(p.Body, hoistFrom)
}

// hoistFrom hoists the invariant statements leading f's body, returning
// f or `if lo < hi { hoisted; f }`.
func hoistFrom(f *For) Stmt {
	body, ok := f.Body.(*Block)
	if !ok {
		return f
	}
	changed := map[*Var]bool{f.V: true}
	assigned := map[*Var]bool{} // reset by a Let, then updated: not hoistable
	writes := map[*Tensor]bool{}
	reads := map[*Tensor]bool{}
	WalkStmts(body, func(s Stmt) {
		switch s := s.(type) {
		case *Let:
			changed[s.V] = true
		case *Assign:
			changed[s.V] = true
			assigned[s.V] = true
		case *For:
			changed[s.V] = true
		case *ForLevel:
			changed[s.Key] = true
			if s.Pos != nil {
				changed[s.Pos] = true
			}
			reads[s.T] = true
		case *Search:
			changed[s.Pos] = true
		case *Locate:
			changed[s.Pos] = true
			reads[s.T] = true
		case *Insert:
			changed[s.Pos] = true
			writes[s.T] = true
		case *Store:
			writes[s.T] = true
		case *Init:
			writes[s.T] = true
		}
	})
	WalkStmtExprs(body, func(e Expr) {
		if v, ok := e.(*ValAt); ok {
			reads[v.T] = true
		}
	})
	invariant := func(e Expr) bool {
		ok := true
		WalkExpr(e, func(x Expr) {
			switch x := x.(type) {
			case *Ref:
				if changed[x.V] {
					ok = false
				}
			case *ValAt:
				if writes[x.T] {
					ok = false
				}
			}
		})
		return ok
	}
	// scan the straight-line statements leading the body: pure lets and
	// stores may be passed over; control flow ends the scan (an If may
	// hold a check that must fail first)
	var hoisted, kept []Stmt
	i := 0
scan:
	for ; i < len(body.List); i++ {
		switch s := body.List[i].(type) {
		case *Let:
			if !assigned[s.V] && invariant(s.X) {
				delete(changed, s.V)
				hoisted = append(hoisted, s)
				continue
			}
		case *Insert:
			if !reads[s.T] && invariant(s.Parent) && invariant(s.Key) && (s.At == nil || invariant(s.At)) &&
				insertedOnce(body, s) && (orderFree(s.T.Levels[s.Level]) || !insertsBefore(kept, s.T)) {
				delete(changed, s.Pos)
				hoisted = append(hoisted, s)
				continue
			}
		case *Assign, *Store:
		case *Locate:
			if !quiet(s) {
				break scan
			}
		default:
			break scan
		}
		kept = append(kept, body.List[i])
	}
	kept = append(kept, body.List[i:]...)
	if len(hoisted) == 0 {
		return f
	}
	body.List = kept
	return &If{Cond: &Binary{Op: Lt, X: f.Lo, Y: f.Hi}, Then: &Block{List: append(hoisted, f)}}
}

// quiet reports whether s only computes values: lets, assignments and
// lookups (locates, searches, conditions), no loop, write or check that
// can fail. An insert may be hoisted past it: a tape's row inserted under
// the lookups that compute its values (a reverse sweep reading the
// forward sweep's tape).
func quiet(s Stmt) bool {
	ok := true
	WalkStmts(s, func(x Stmt) {
		switch x.(type) {
		case *Block, *Let, *Assign, *Locate, *Search, *If:
		default:
			ok = false
		}
	})
	return ok
}

// insertedOnce reports whether ins is the only statement of body that
// binds its position variable (it always is: lowering binds each once);
// kept as a check so that a later change to lowering cannot make the
// hoist wrong silently.
func insertedOnce(body *Block, ins *Insert) bool {
	n := 0
	WalkStmts(body, func(s Stmt) {
		if x, ok := s.(*Insert); ok && x.Pos == ins.Pos {
			n++
		}
	})
	return n == 1
}

// orderFree reports whether a level's order of iteration is independent
// of the order of its inserts (ascending keys, an input's positions), so
// that an insert may move past others into the same tensor.
func orderFree(l *Level) bool { return l.Storage == Dense || l.Storage == Positions }

// insertsBefore reports whether one of the statements passed over inserts
// into t: an insert hoisted past it would change t's insertion order.
func insertsBefore(passed []Stmt, t *Tensor) bool {
	for _, s := range passed {
		if x, ok := s.(*Insert); ok && x.T == t {
			return true
		}
	}
	return false
}
