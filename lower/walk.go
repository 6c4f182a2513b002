package lower

// mapBodies replaces each statement directly inside s with f of it: a
// block's statements, an if's branches (a nil Else left nil), and the
// body of a For, ForLevel, Search or Locate; any other statement is left
// as it is. It is the recursion of a pass that rewrites statements in
// place; WalkStmts is the one of a pass that only reads them.
func mapBodies(s Stmt, f func(Stmt) Stmt) {
	switch s := s.(type) {
	case *Block:
		for i, x := range s.List {
			s.List[i] = f(x)
		}
	case *If:
		s.Then = f(s.Then)
		if s.Else != nil {
			s.Else = f(s.Else)
		}
	case *For:
		s.Body = f(s.Body)
	case *ForLevel:
		s.Body = f(s.Body)
	case *Search:
		s.Body = f(s.Body)
	case *Locate:
		s.Body = f(s.Body)
	}
}

// bodyOf is the body of a For, ForLevel, Search or Locate, and nil for
// any other statement.
func bodyOf(s Stmt) Stmt {
	switch s := s.(type) {
	case *For:
		return s.Body
	case *ForLevel:
		return s.Body
	case *Search:
		return s.Body
	case *Locate:
		return s.Body
	}
	return nil
}

// assignedVars are the variables an Assign in s sets (a Let's are set
// once: the passes that need a value unchanged test these).
func assignedVars(s Stmt) map[*Var]bool {
	assigned := map[*Var]bool{}
	WalkStmts(s, func(x Stmt) {
		if a, ok := x.(*Assign); ok {
			assigned[a.V] = true
		}
	})
	return assigned
}

// BindsOf are the variables a statement binds itself (not those of the
// statements inside it; an Assign sets a variable bound elsewhere).
func BindsOf(s Stmt) []*Var {
	switch s := s.(type) {
	case *Let:
		return []*Var{s.V}
	case *For:
		return []*Var{s.V}
	case *ForLevel:
		if s.Pos == nil {
			return []*Var{s.Key}
		}
		return []*Var{s.Key, s.Pos}
	case *Search:
		return []*Var{s.Pos}
	case *Insert:
		return []*Var{s.Pos}
	case *Locate:
		return []*Var{s.Pos}
	case *Transpose:
		return []*Var{s.N}
	}
	return nil
}
