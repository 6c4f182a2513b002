package lower

// LocalAccumulators adds into a local what a loop adds into one fixed
// position of a tensor, and adds the local into the tensor once, after the
// loop:
//
//	for p := lo; p < hi; p++ {        s := 0.0
//	  out.val[q] += c          ⇒      for p := lo; p < hi; p++ {
//	  out.val[q1] += -c                 s += c
//	}                                   out.val[q1] += -c
//	                                  }
//	                                  out.val[q] += s
//
// (per entry (i, j) of a matrix, one addition at row i, fixed in the inner
// loop, and one at column j, which varies). It holds
// when q does not change in the loop and the loop only adds into the
// tensor's values, never reads or sets them: additions commute, so the
// other additions (even at q) are unaffected. A back end need not prove
// that the other stores do not alias q, which Go's compiler cannot: the
// store and reload on every iteration were most of such a loop's time.
// Only real values are accumulated so (+ over booleans is "or").
func LocalAccumulators(p *Program) {
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt { return stmtsOf(accumLoop(p, f)) })
}

// accumLoop rewrites the fixed-position additions of loop f: the
// statements that replace it (f alone when there are none).
func accumLoop(p *Program, f *For) []Stmt {
	// what the loop defines or changes, and the tensors it reads or sets
	// otherwise than by adding
	inner, _ := loopEffects(f)
	unsafe := map[*Tensor]bool{}
	transposes := false
	var stores []*Store
	WalkStmts(f.Body, func(s Stmt) {
		switch x := s.(type) {
		case *ForLevel:
			unsafe[x.T] = true
		case *Locate:
			unsafe[x.T] = true
		case *Init:
			unsafe[x.T] = true
		case *Transpose:
			transposes = true // leave loops that transpose alone
		case *Store:
			if x.Op != AddTo || x.T.Leaf != Real {
				unsafe[x.T] = true
			} else {
				stores = append(stores, x)
			}
		}
	})
	if transposes || len(stores) == 0 {
		return []Stmt{f}
	}
	WalkStmtExprs(f.Body, func(e Expr) {
		if v, ok := e.(*ValAt); ok {
			unsafe[v.T] = true
		}
	})
	type slot struct {
		t   *Tensor
		pos string
	}
	accs := map[slot]*Var{}
	var order []slot
	var positions []Expr
	local := map[*Store]*Var{} // the stores that add into a local
	for _, st := range stores {
		if unsafe[st.T] || readsAny(st.Pos, inner) {
			continue
		}
		k := slot{st.T, CanonString(st.Pos)}
		if accs[k] == nil {
			accs[k] = p.NewVar("acc", Real)
			order = append(order, k)
			positions = append(positions, st.Pos)
		}
		local[st] = accs[k]
	}
	if len(order) == 0 {
		return []Stmt{f}
	}
	f.Body = replaceStores(f.Body, func(st *Store) Stmt {
		if v := local[st]; v != nil {
			return &Assign{V: v, Op: AddTo, X: st.X}
		}
		return st
	})
	var list []Stmt
	for _, k := range order {
		list = append(list, &Let{V: accs[k], X: realConst(0)})
	}
	list = append(list, f)
	for i, k := range order {
		list = append(list, &Store{T: k.t, Pos: positions[i], Op: AddTo, X: &Ref{V: accs[k]}})
	}
	return list
}

// readsAny reports whether e reads one of the variables.
func readsAny(e Expr, vs map[*Var]bool) bool {
	found := false
	WalkExpr(e, func(x Expr) {
		if r, ok := x.(*Ref); ok && vs[r.V] {
			found = true
		}
	})
	return found
}

// replaceStores rebuilds s with every Store replaced by f's statement.
func replaceStores(s Stmt, f func(*Store) Stmt) Stmt {
	if x, ok := s.(*Store); ok {
		return f(x)
	}
	mapBodies(s, func(y Stmt) Stmt { return replaceStores(y, f) })
	return s
}
