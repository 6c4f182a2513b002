package lower

// rewriteLoops rebuilds s with every For loop replaced by what f returns
// for it, innermost loops first (f sees a loop whose body is already
// rewritten). A Block f returns is spliced into the enclosing block. The
// loop passes (HoistInvariants, HoistExprs, LocalAccumulators,
// HoistConjuncts) are each this walk and a rule for one loop.
func rewriteLoops(s Stmt, f func(*For) Stmt) Stmt {
	switch s := s.(type) {
	case *Block:
		out := make([]Stmt, 0, len(s.List))
		for _, x := range s.List {
			x = rewriteLoops(x, f)
			if b, ok := x.(*Block); ok {
				out = append(out, b.List...)
			} else {
				out = append(out, x)
			}
		}
		s.List = out
	case *If:
		s.Then = rewriteLoops(s.Then, f)
		if s.Else != nil {
			s.Else = rewriteLoops(s.Else, f)
		}
	case *ForLevel:
		s.Body = rewriteLoops(s.Body, f)
	case *Search:
		s.Body = rewriteLoops(s.Body, f)
	case *Locate:
		s.Body = rewriteLoops(s.Body, f)
	case *For:
		s.Body = rewriteLoops(s.Body, f)
		return f(s)
	}
	return s
}

// stmtsOf is a loop rule's statements as one statement: the loop alone,
// or a block of them.
func stmtsOf(list []Stmt) Stmt {
	if len(list) == 1 {
		return list[0]
	}
	return &Block{List: list}
}
