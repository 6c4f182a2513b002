package lower

// MergeGuards folds an if nested last in another if with the same
// condition into it (HoistInvariants and HoistExprs each guard a loop by
// its bounds): if c { s; if c { t } } is if c { s; t } when s changes
// nothing c reads.
func MergeGuards(p *Program) {
	WalkStmts(p.Body, func(s Stmt) {
		x, ok := s.(*If)
		if !ok || x.Else != nil {
			return
		}
		for {
			b, ok := x.Then.(*Block)
			if !ok || len(b.List) == 0 {
				return
			}
			y, ok := b.List[len(b.List)-1].(*If)
			if !ok || y.Else != nil || CanonString(y.Cond) != CanonString(x.Cond) {
				return
			}
			assigned := false
			WalkStmts(&Block{List: b.List[:len(b.List)-1]}, func(s Stmt) {
				if a, ok := s.(*Assign); ok && reads(x.Cond, a.V) {
					assigned = true
				}
			})
			if assigned {
				return
			}
			inner := []Stmt{y.Then}
			if yb, ok := y.Then.(*Block); ok {
				inner = yb.List
			}
			b.List = append(b.List[:len(b.List)-1], inner...)
		}
	})
}
