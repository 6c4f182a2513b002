package lower

// InnerRange returns the first loop over a range in s's body whose bounds
// read no variable the body defines, so that a back end can read them
// before the loop, at its first iteration: a parallel loop's work is its
// iterations times that loop's trips (a stencil's rows of entries), not
// its iterations alone. nil when there is none.
func InnerRange(s *For) *For {
	defined := map[*Var]bool{}
	WalkStmts(s.Body, func(st Stmt) {
		switch x := st.(type) {
		case *Let:
			defined[x.V] = true
		case *Assign:
			defined[x.V] = true
		case *For:
			defined[x.V] = true
		case *ForLevel:
			defined[x.Key], defined[x.Pos] = true, true
		case *Search:
			defined[x.Pos] = true
		case *Locate:
			defined[x.Pos] = true
		case *Insert:
			defined[x.Pos] = true
		}
	})
	var inner *For
	WalkStmts(s.Body, func(st Stmt) {
		f, ok := st.(*For)
		if !ok || inner != nil {
			return
		}
		free := true
		for _, e := range []Expr{f.Lo, f.Hi} {
			WalkExpr(e, func(x Expr) {
				if r, ok := x.(*Ref); ok && defined[r.V] {
					free = false
				}
			})
		}
		if free {
			inner = f
		}
	})
	return inner
}
