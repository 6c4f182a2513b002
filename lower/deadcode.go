package lower

// eliminateDead removes what computes nothing the program needs: lets and
// assignments of variables nothing reads (every expression is pure), and
// loops, searches, locates and ifs left with empty bodies. Lowering leaves
// such code behind (the value of a dictionary only its keys are read, a
// bound hoisted for a loop that turned out empty); both back ends would
// otherwise compute it, and Go refuses a local nothing reads.
func eliminateDead(p *Program) {
	for {
		read := map[*Var]bool{}
		if p.ResultVar != nil {
			read[p.ResultVar] = true
		}
		WalkStmtExprs(p.Body, func(e Expr) {
			if r, ok := e.(*Ref); ok {
				read[r.V] = true
			}
		})
		changed := false
		p.Body = dropDead(p.Body, read, &changed)
		if !changed {
			return
		}
	}
}

func dropDead(s Stmt, read map[*Var]bool, changed *bool) Stmt {
	switch s := s.(type) {
	case *Block:
		out := s.List[:0]
		for _, x := range s.List {
			if y := dropDead(x, read, changed); y != nil {
				out = append(out, y)
			}
		}
		s.List = out
		if len(out) == 0 {
			return nil
		}
		return s
	case *Let:
		if !read[s.V] {
			*changed = true
			return nil
		}
	case *Assign:
		if !read[s.V] {
			*changed = true
			return nil
		}
	case *If:
		s.Then = dropDead(s.Then, read, changed)
		if s.Else != nil {
			s.Else = dropDead(s.Else, read, changed)
		}
		if s.Then == nil && s.Else == nil {
			*changed = true
			return nil
		}
		if s.Then == nil {
			s.Cond, s.Then, s.Else = &Unary{Op: Not, X: s.Cond}, s.Else, nil
		}
	case *For, *ForLevel, *Search, *Locate:
		mapBodies(s, func(x Stmt) Stmt { return dropDead(x, read, changed) })
		if bodyOf(s) == nil { // a loop, search or locate with nothing left to do
			*changed = true
			return nil
		}
	}
	return s
}

// WalkStmtExprs calls f for every expression of s and its sub-expressions
// (and the positions and bounds statements read), statements in order,
// each's own expressions (ownExprs) before those inside it.
func WalkStmtExprs(s Stmt, f func(Expr)) {
	WalkStmts(s, func(x Stmt) {
		ownExprs(x, func(p *Expr) { WalkExpr(*p, f) })
	})
}

// WalkExpr calls f for e and each of its sub-expressions, parents first.
func WalkExpr(e Expr, f func(Expr)) {
	if e == nil {
		return
	}
	f(e)
	switch x := e.(type) {
	case *Load:
		WalkExpr(x.Index, f)
	case *Unary:
		WalkExpr(x.X, f)
	case *Binary:
		WalkExpr(x.X, f)
		WalkExpr(x.Y, f)
	case *Call:
		for _, a := range x.Args {
			WalkExpr(a, f)
		}
	case *Select:
		WalkExpr(x.Cond, f)
		WalkExpr(x.Then, f)
		WalkExpr(x.Else, f)
	case *ValAt:
		WalkExpr(x.Pos, f)
	}
}

// Holds reports whether s is or holds a statement of type S
// (Holds[*Fail](s): whether s may stop the run with an error).
func Holds[S Stmt](s Stmt) bool {
	found := false
	WalkStmts(s, func(x Stmt) {
		if _, ok := x.(S); ok {
			found = true
		}
	})
	return found
}

// WalkStmts calls f for s and every statement inside it, parents first.
func WalkStmts(s Stmt, f func(Stmt)) {
	if s == nil {
		return
	}
	f(s)
	switch x := s.(type) {
	case *Block:
		for _, y := range x.List {
			WalkStmts(y, f)
		}
	case *If:
		WalkStmts(x.Then, f)
		WalkStmts(x.Else, f)
	case *For:
		WalkStmts(x.Body, f)
	case *ForLevel:
		WalkStmts(x.Body, f)
	case *Search:
		WalkStmts(x.Body, f)
	case *Locate:
		WalkStmts(x.Body, f)
	}
}
