package lower

// DropRowInserts removes the insert of a row that only names the row's
// position:
//
//	for k := 0; k < n; k++ {
//	  q := insert(T.level0[0], k)           // T's level 0 dense, full, sized n
//	  ... insert(T.level1[q], j) at p ...   // q only a parent of inserts at a
//	  ... T.val[q] = v ...                  // position, or a vector's position
//	}
//
// On a full dense level (no presence: FullRows, CoverFull) the insert of
// a key the enclosing loop keeps below the level's size (namesRow) does
// nothing but return the key, its position, and cannot fail; its reads
// read the key instead. An insert at a position ignores its parent's, so
// only those and a vector's stores may read it: another level's insert
// or lookup under it keeps it (an appended level begins a row's burst
// there). The columnar back end saves a pass a batch of rows, the
// generated Go a range check a row.
func DropRowInserts(p *Program) {
	// bad: the variables read other than as a parent of an insert at a
	// position or as a vector's store position
	bad := map[*Var]bool{}
	WalkStmts(p.Body, func(s Stmt) {
		switch x := s.(type) {
		case *Insert:
			if _, isRef := x.Parent.(*Ref); !isRef || x.At == nil {
				readsInto(x.Parent, bad) // a parent of an insert at a position may read it
			}
			readsInto(x.Key, bad)
			readsInto(x.At, bad)
		case *Store:
			if _, isRef := x.Pos.(*Ref); !isRef || len(x.T.Levels) != 1 {
				readsInto(x.Pos, bad) // a vector's store may read it
			}
			readsInto(x.X, bad)
		default:
			// every other expression a statement reads
			ownExprs(s, func(e *Expr) { readsInto(*e, bad) })
		}
	})
	subst := map[*Var]Expr{}
	p.Body = spliceBlocks(p.Body, false, func(y Stmt, loops []*For) (keep, rest []Stmt, ok bool) {
		if ins, isIns := y.(*Insert); isIns && !bad[ins.Pos] && namesRow(ins, loops) {
			subst[ins.Pos] = ins.Key
			return nil, nil, true
		}
		return nil, nil, false
	})
	if len(subst) > 0 {
		mapStmtExprs(p.Body, func(e Expr) Expr { return substLets(e, subst) })
	}
}

// readsInto marks the variables e reads.
func readsInto(e Expr, into map[*Var]bool) {
	WalkExpr(e, func(x Expr) {
		if r, ok := x.(*Ref); ok {
			into[r.V] = true
		}
	})
}
