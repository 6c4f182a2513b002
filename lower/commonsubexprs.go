package lower

// CommonSubexprs gives a subexpression that a statement (a let, an
// assignment or a store) computes more than once a let of its own before
// the statement.
func CommonSubexprs(p *Program) {
	p.Body = cseStmt(p, p.Body)
}

func cseStmt(p *Program, s Stmt) Stmt {
	switch s := s.(type) {
	case *Block:
		var out []Stmt
		for _, x := range s.List {
			var lets []Stmt
			switch y := x.(type) {
			case *Let:
				y.X, lets = cseExpr(p, y.X)
			case *Assign:
				y.X, lets = cseExpr(p, y.X)
			case *Store:
				y.X, lets = cseExpr(p, y.X)
			default:
				x = cseStmt(p, x)
			}
			out = append(out, lets...)
			out = append(out, x)
		}
		s.List = out
	default:
		mapBodies(s, func(x Stmt) Stmt { return cseStmt(p, x) })
	}
	return s
}

// cseExpr returns e with its repeated non-trivial subexpressions (among
// those always evaluated) read from lets, and the lets.
func cseExpr(p *Program, e Expr) (Expr, []Stmt) {
	count := map[string]int{}
	var countAll func(x Expr)
	countAll = func(x Expr) {
		switch x.(type) {
		case *Const, *Ref, *Len:
			return
		}
		count[CanonString(x)]++
		mapChildren(x, func(c Expr) Expr { countAll(c); return c })
	}
	countAll(e)
	var lets []Stmt
	bound := map[string]*Var{}
	var rewrite func(x Expr) Expr
	rewrite = func(x Expr) Expr {
		switch x.(type) {
		case *Const, *Ref, *Len:
			return x
		}
		key := CanonString(x)
		if v, ok := bound[key]; ok {
			return &Ref{V: v}
		}
		if count[key] > 1 {
			// the operands first, so that the let reads earlier lets;
			// only those repeated beyond x's own repeats get lets of their
			// own (a guarded load shared whole keeps its form)
			n := count[key]
			var under func(c Expr) Expr
			under = func(c Expr) Expr {
				switch c.(type) {
				case *Const, *Ref, *Len:
					return c
				}
				if count[CanonString(c)] > n {
					return rewrite(c)
				}
				return mapChildren(c, under)
			}
			y := mapChildren(x, under)
			v := p.NewVar("e", x.Kind())
			bound[key] = v
			lets = append(lets, &Let{V: v, X: y})
			return &Ref{V: v}
		}
		return mapChildren(x, rewrite)
	}
	return rewrite(e), lets
}
