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
			shallowExprs(s, func(e Expr) { readsInto(e, bad) })
		}
	})
	subst := map[*Var]Expr{}
	var loops []*For
	var walk func(s Stmt) Stmt
	walk = func(s Stmt) Stmt {
		switch x := s.(type) {
		case *Block:
			out := x.List[:0]
			for _, y := range x.List {
				if ins, isIns := y.(*Insert); isIns && !bad[ins.Pos] && namesRow(ins, loops) {
					subst[ins.Pos] = ins.Key
					continue
				}
				out = append(out, walk(y))
			}
			x.List = out
		case *If:
			x.Then = walk(x.Then)
			if x.Else != nil {
				x.Else = walk(x.Else)
			}
		case *For:
			loops = append(loops, x)
			x.Body = walk(x.Body)
			loops = loops[:len(loops)-1]
		case *ForLevel:
			x.Body = walk(x.Body)
		case *Search:
			x.Body = walk(x.Body)
		case *Locate:
			x.Body = walk(x.Body)
		}
		return s
	}
	p.Body = walk(p.Body)
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

// shallowExprs calls f for the expressions statement s itself reads (not
// those of the statements inside it).
func shallowExprs(s Stmt, f func(Expr)) {
	switch x := s.(type) {
	case *Let:
		f(x.X)
	case *Assign:
		f(x.X)
	case *If:
		f(x.Cond)
	case *For:
		f(x.Lo)
		f(x.Hi)
	case *ForLevel:
		f(x.Parent)
	case *Search:
		f(x.Lo)
		f(x.Hi)
		f(x.Key)
	case *Locate:
		f(x.Parent)
		f(x.Key)
	case *Fail:
		for _, a := range x.Args {
			f(a)
		}
	case *Transpose:
		f(x.Lo)
		f(x.Hi)
	case *Init:
		f(x.Covered)
	}
}
