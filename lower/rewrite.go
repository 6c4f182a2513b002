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
	case *For:
		s.Body = rewriteLoops(s.Body, f)
		return f(s)
	default:
		mapBodies(s, func(x Stmt) Stmt { return rewriteLoops(x, f) })
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

// spliceBlocks rewrites the blocks inside s, outermost first: a statement
// for which edit reports ok is replaced by keep, as it is, then by rest,
// each of which is rewritten inside (not edited itself); any other
// statement is rewritten inside. With bodies, a statement that is a
// whole body (a loop's, a branch's, s itself) is offered to edit too, and
// replaced by a block of keep and rest. loops are the For loops around
// the statement edit is given, innermost last.
func spliceBlocks(s Stmt, bodies bool, edit func(y Stmt, loops []*For) (keep, rest []Stmt, ok bool)) Stmt {
	var loops []*For
	var walk, body func(s Stmt) Stmt
	// splice is what replaces y in its block: y rewritten inside, or
	// edit's keep and rest
	splice := func(y Stmt) []Stmt {
		keep, rest, ok := edit(y, loops)
		if !ok {
			return []Stmt{walk(y)}
		}
		out := append([]Stmt(nil), keep...)
		for _, z := range rest {
			out = append(out, walk(z))
		}
		return out
	}
	body = func(s Stmt) Stmt {
		if _, isBlock := s.(*Block); isBlock || s == nil || !bodies {
			return walk(s)
		}
		return stmtsOf(splice(s))
	}
	walk = func(s Stmt) Stmt {
		switch x := s.(type) {
		case *Block:
			var out []Stmt
			for _, y := range x.List {
				out = append(out, splice(y)...)
			}
			x.List = out
		case *For:
			loops = append(loops, x)
			x.Body = body(x.Body)
			loops = loops[:len(loops)-1]
		default:
			mapBodies(s, body)
		}
		return s
	}
	return body(s)
}

// replaceExpr returns e with every sub-expression for which f returns
// non-nil replaced by that (not looked into further); the nodes above a
// replacement are new, e itself is not changed.
func replaceExpr(e Expr, f func(Expr) Expr) Expr {
	if e == nil {
		return nil
	}
	if r := f(e); r != nil {
		return r
	}
	return rebuild(e, func(x Expr) Expr { return replaceExpr(x, f) })
}

// rebuild returns a new node like e with each of its operands x replaced
// by f(x), every operand, conditional ones too (unlike mapChildren); a
// leaf (constant, variable, length) is e itself.
func rebuild(e Expr, f func(Expr) Expr) Expr {
	switch x := e.(type) {
	case *Load:
		return &Load{A: x.A, Index: f(x.Index)}
	case *Unary:
		return &Unary{Op: x.Op, X: f(x.X)}
	case *Binary:
		return &Binary{Op: x.Op, X: f(x.X), Y: f(x.Y)}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = f(a)
		}
		return &Call{Fn: x.Fn, Args: args}
	case *Select:
		return &Select{Cond: f(x.Cond), Then: f(x.Then), Else: f(x.Else)}
	case *ValAt:
		return &ValAt{T: x.T, Pos: f(x.Pos)}
	}
	return e
}

// mapStmtExprs replaces every expression of s and of the statements
// inside it by f of it (mapOwnExprs).
func mapStmtExprs(s Stmt, f func(Expr) Expr) {
	WalkStmts(s, func(x Stmt) { mapOwnExprs(x, f) })
}

// mapOwnExprs replaces the expressions statement s itself reads by f of
// them (ownExprs).
func mapOwnExprs(s Stmt, f func(Expr) Expr) {
	ownExprs(s, func(p *Expr) { *p = f(*p) })
}

// ownExprs calls f with each expression statement s itself reads (its
// operands, bounds, positions and primitive's operands; not those of the
// statements inside it), as the field that holds it, nil ones left out:
// the one list of them, for the walks (WalkStmtExprs) and the rewrites
// (mapOwnExprs).
func ownExprs(s Stmt, f func(*Expr)) {
	g := func(p *Expr) {
		if *p != nil {
			f(p)
		}
	}
	switch s := s.(type) {
	case *Let:
		g(&s.X)
	case *Assign:
		g(&s.X)
	case *If:
		g(&s.Cond)
	case *For:
		g(&s.Lo)
		g(&s.Hi)
		if s.Prim != nil {
			g(&s.Prim.Bound)
			g(&s.Prim.Parent)
			g(&s.Prim.Off)
			g(&s.Prim.KeyOff)
			g(&s.Prim.Off2)
			for i := range s.Prim.Factors {
				g(&s.Prim.Factors[i])
			}
		}
	case *ForLevel:
		g(&s.Parent)
	case *Search:
		g(&s.Lo)
		g(&s.Hi)
		g(&s.Key)
	case *Insert:
		g(&s.Parent)
		g(&s.Key)
		g(&s.At)
	case *Locate:
		g(&s.Parent)
		g(&s.Key)
	case *Store:
		g(&s.Pos)
		g(&s.X)
	case *Fail:
		for i := range s.Args {
			g(&s.Args[i])
		}
	case *Transpose:
		g(&s.Lo)
		g(&s.Hi)
	case *Init:
		g(&s.Covered)
	}
}
