package lower

// FingerSearches lets a search whose keys ascend over the iterations of
// its loop start where the last one found its key (a finger), and gallop
// from there rather than bisect the whole segment:
//
//	lo1 := B_pos[i]; hi1 := B_pos[i + 1]      f := lo1
//	for p := lo; p < hi; p++ {                for p := lo; p < hi; p++ {
//	  j := A_idx[p]                             j := A_idx[p]
//	  if q := search(B_idx[lo1:hi1], j) {  ⇒    if q := gallop(B_idx[f:hi1], j) {
//	    ...                                       f = q + 1
//	  }                                           ...
//	}                                           }
//	                                          }
//
// (an intersection of two sorted rows, A(i)(j) * B(i)(j): TACO co-iterates
// them; a search from the finger costs the distance to the key, so the
// row pair costs about the longer row, where bisecting cost the shorter
// row times the log of the longer). The keys ascend strictly when they are
// the loop's own variable, or the coordinates a loop over one segment of a
// unique level reads at its positions; then every coordinate before the
// finger is below the key, and the search's range may start there. The
// search must run at most once an iteration (not inside a loop in the
// body) over a segment the loop does not change. The finger advances on
// hits only; gallop (Search.Gallop) makes the distance from it cheap either
// way. A parallel loop keeps its searches: its iterations do not run in
// order.
func FingerSearches(p *Program) {
	lets := map[*Var]Expr{}
	WalkStmts(p.Body, func(s Stmt) {
		if l, ok := s.(*Let); ok {
			lets[l.V] = l.X
		}
	})
	defs := definitions(p.Body)
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt {
		if f.Par != nil {
			return f
		}
		inner := definitions(f)
		var fingers []Stmt
		var visit func(s Stmt)
		visit = func(s Stmt) {
			switch s := s.(type) {
			case *Block:
				for _, x := range s.List {
					visit(x)
				}
			case *If:
				visit(s.Then)
				visit(s.Else)
			case *Locate:
				visit(s.Body)
			case *Search:
				if !s.Gallop && invariantIn(s.Lo, inner, lets, defs) && invariantIn(s.Hi, inner, lets, defs) && ascendsIn(s.Key, f, lets, defs) {
					fv := p.NewVar("f", Int)
					if simpleInvariant(s.Lo, inner) {
						fingers = append(fingers, &Let{V: fv, X: s.Lo})
						s.Lo = &Ref{V: fv}
					} else {
						// lo is set in the loop, or reads an array (under
						// a test, it may not be read before the loop):
						// the finger starts at 0, and the search at the
						// later of the two
						fingers = append(fingers, &Let{V: fv, X: intConst(0)})
						s.Lo = &Select{Cond: &Binary{Op: Lt, X: &Ref{V: fv}, Y: s.Lo}, Then: s.Lo, Else: &Ref{V: fv}}
					}
					s.Gallop = true
					next := &Assign{V: fv, Op: Set, X: &Binary{Op: Add, X: &Ref{V: s.Pos}, Y: intConst(1)}}
					s.Body = &Block{List: append([]Stmt{next}, blockList(s.Body)...)}
				}
				visit(s.Body)
			}
			// a loop's body runs many times an iteration: its searches'
			// keys need not ascend
		}
		visit(f.Body)
		if len(fingers) == 0 {
			return f
		}
		return &Block{List: append(fingers, f)}
	})
}

// invariantIn reports whether e has the same value in every iteration
// of a loop: it reads no temporary array, no tensor, and no variable the
// loop sets (inner: the loop's definitions), but, with lets, variables
// set once in it to such an expression (lo1 := B_pos[i] under a test).
func invariantIn(e Expr, inner map[*Var]int, lets map[*Var]Expr, defs map[*Var]int) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *Ref:
			if inner[x.V] > 0 {
				let, isLet := lets[x.V]
				ok = ok && isLet && defs[x.V] == 1 && invariantIn(let, inner, lets, defs)
			}
		case *Load:
			if x.A.Temp {
				ok = false
			}
		case *ValAt:
			ok = false
		}
	})
	return ok
}

// simpleInvariant reports whether e is a constant or a variable the loop
// does not set: a value that may be read before the loop.
func simpleInvariant(e Expr, inner map[*Var]int) bool {
	switch e := e.(type) {
	case *Const:
		return true
	case *Ref:
		return inner[e.V] == 0
	}
	return false
}

// ascendsIn reports whether the key e strictly ascends over the
// iterations of f: f's own variable, or a variable set once, to the
// coordinate of a unique level at f's variable, where f runs over one
// segment of that level (from pos[x] to pos[x + 1]).
func ascendsIn(e Expr, f *For, lets map[*Var]Expr, defs map[*Var]int) bool {
	r, ok := e.(*Ref)
	if !ok {
		return false
	}
	if r.V == f.V {
		return true
	}
	if defs[r.V] != 1 {
		return false
	}
	ld, ok := lets[r.V].(*Load)
	if !ok {
		return false
	}
	at, ok := ld.Index.(*Ref)
	li := ld.A.Level
	if !ok || at.V != f.V || li == nil || li.Idx != ld.A.Name || !li.Unique || !li.Ordered || !li.PosIter || li.OnePerParent || defs[f.V] != 1 {
		return false
	}
	lo, ok1 := resolveLet(f.Lo, lets, defs).(*Load)
	hi, ok2 := resolveLet(f.Hi, lets, defs).(*Load)
	if !ok1 || !ok2 || lo.A != hi.A || lo.A.Level == nil || lo.A.Name != li.Pos || lo.A.Level.Tensor != li.Tensor {
		return false
	}
	return ExprString(&Binary{Op: Add, X: lo.Index, Y: intConst(1)}) == ExprString(hi.Index) ||
		ExprString(&Binary{Op: Add, X: intConst(1), Y: lo.Index}) == ExprString(hi.Index)
}

// resolveLet is e, or the expression a variable set once was let to.
func resolveLet(e Expr, lets map[*Var]Expr, defs map[*Var]int) Expr {
	if r, ok := e.(*Ref); ok && defs[r.V] == 1 {
		if x, ok := lets[r.V]; ok {
			return x
		}
	}
	return e
}
