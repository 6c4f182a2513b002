package lower

// HoistConjuncts computes before a loop the part of a select's condition
// in the loop that does not change in it:
//
//	for i1 := 0; i1 < U_cols; i1++ {
//	  s += U_val[c + i1] * select(i1 < W_cols && 0 <= j && j < W_rows, W_val[W_cols * j + i1], 0.0)
//
// becomes
//
//	b := 0 <= j && j < W_rows
//	for i1 := 0; i1 < U_cols; i1++ {
//	  s += U_val[c + i1] * select(b && i1 < W_cols, W_val[W_cols * j + i1], 0.0)
//
// (a lookup W(j)(k) of a dense matrix inside a loop over k). Only
// conjuncts that read no variable the loop defines or changes and no
// array or tensor move, so evaluating them before the loop, even where the
// loop runs no iteration, is harmless; a select's condition is lazy, so
// the order of its conjuncts does not change its value.
func HoistConjuncts(p *Program) {
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt { return stmtsOf(conjLoop(p, f)) })
}

// conjLoop hoists the invariant conjuncts of the selects of f's body: the
// lets that compute them, then f.
func conjLoop(p *Program, f *For) []Stmt {
	inner, _ := loopEffects(f)
	var lets []Stmt
	hoisted := map[string]*Var{}
	invariant := func(e Expr) bool { return !readsAny(e, inner) && !ReadsMemory(e) }
	var rewrite func(e Expr) Expr
	rewrite = func(e Expr) Expr {
		switch x := e.(type) {
		case *Select:
			cond := x.Cond
			cs := conjuncts(cond, nil)
			var inv, rest []Expr
			for _, c := range cs {
				if invariant(c) {
					inv = append(inv, c)
				} else {
					rest = append(rest, c)
				}
			}
			if len(inv) > 0 && len(rest) > 0 {
				all := andOf(inv)
				key := CanonString(all)
				v := hoisted[key]
				if v == nil {
					v = p.NewVar("b", Bool)
					hoisted[key] = v
					lets = append(lets, &Let{V: v, X: all})
				}
				cond = &Binary{Op: And, X: &Ref{V: v}, Y: andOf(rest)}
			}
			return &Select{Cond: cond, Then: rewrite(x.Then), Else: rewrite(x.Else)}
		case *Binary:
			return &Binary{Op: x.Op, X: rewrite(x.X), Y: rewrite(x.Y)}
		case *Unary:
			return &Unary{Op: x.Op, X: rewrite(x.X)}
		case *Call:
			args := make([]Expr, len(x.Args))
			for i, a := range x.Args {
				args[i] = rewrite(a)
			}
			return &Call{Fn: x.Fn, Args: args}
		}
		return e
	}
	// only the statements of f's own body, not of loops inside it (they
	// had their turn, and their conjuncts may read their variables)
	var walk func(s Stmt)
	walk = func(s Stmt) {
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				walk(y)
			}
		case *If:
			walk(x.Then)
			if x.Else != nil {
				walk(x.Else)
			}
		case *Let:
			x.X = rewrite(x.X)
		case *Assign:
			x.X = rewrite(x.X)
		case *Store:
			x.X = rewrite(x.X)
		}
	}
	walk(f.Body)
	return append(lets, f)
}

// andOf joins conditions with &&.
func andOf(cs []Expr) Expr {
	e := cs[0]
	for _, c := range cs[1:] {
		e = &Binary{Op: And, X: e, Y: c}
	}
	return e
}
