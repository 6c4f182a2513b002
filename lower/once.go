package lower

// WriteOnce makes the adds of a tensor's store assignments where every
// position of the tensor is written at most once after its Init, and
// marks the Init Covered where, in addition, the writes reach every
// position, so that nothing needs clearing first:
//
//	init T                                 // at the top of the program
//	...                                    // nothing reads T
//	for i := 0; i < n; i++ {               // F, at the top of the program
//	  q := insert(T.level0[0], i)          // level 0 dense, keyed by i
//	  [q1 := insert(T.level1[q], i)]       // a Diagonal level 1
//	  T.val[q1] = v                        // the only store into T
//	}
//
// F runs once and its iterations have distinct keys; the inserts and the
// store run once per iteration (no loop or condition between F and them),
// so each position is stored at most once: an add into the zero Init
// leaves is an assignment. When F starts at 0 and level 0's size is at
// most F's bound (Covered: n >= size, evaluated at the Init, so n may
// read only parameters), every position is stored: an elementwise map,
// whose result the hand-written loop assigns without clearing. T must not
// be read before F ends (a read would see what the previous run left).
// A parallel F must write T in place (Par.Shared): a merge by sums adds
// the workers' copies into T.
//
// It runs after MarkParallel (which keeps adds) and before
// MarkPrimitives (whose rules take either).
func WriteOnce(p *Program) {
	top, ok := p.Body.(*Block)
	if !ok {
		return
	}
	params := map[*Var]bool{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			params[pa.Var] = true
		}
	}
	for _, t := range p.Tensors {
		if !t.Input {
			writeOnce(top.List, t, params)
		}
	}
}

func writeOnce(list []Stmt, t *Tensor, params map[*Var]bool) {
	var stores []*Store
	var inserts []*Insert
	inits := 0
	for _, s := range list {
		WalkStmts(s, func(x Stmt) {
			switch x := x.(type) {
			case *Store:
				if x.T == t {
					stores = append(stores, x)
				}
			case *Insert:
				if x.T == t {
					inserts = append(inserts, x)
				}
			case *Init:
				if x.T == t {
					inits++
				}
			}
		})
	}
	if len(stores) != 1 || inits != 1 || len(inserts) != len(t.Levels) || t.Levels[0].Storage != Dense {
		return
	}
	for _, l := range t.Levels[1:] {
		if l.Storage != Diagonal {
			return
		}
	}
	st := stores[0]
	var init *Init
	for _, s := range list {
		if x, ok := s.(*Init); ok && x.T == t {
			init = x
			continue
		}
		f, ok := s.(*For)
		if !ok || !straightTo(f.Body, st) {
			if readsTensor(s, t) {
				return // read before the loop that writes it
			}
			continue
		}
		if init == nil || readsTensor(f.Body, t) || !chainOf(f, st, inserts) {
			return
		}
		if f.Par != nil && !sharedIn(f.Par, t) {
			return
		}
		st.Op = Set
		if lo, ok := f.Lo.(*Const); ok && lo.I == 0 && t.Levels[0].Size != nil && onlyParams(f.Hi, params) {
			init.Covered = &Binary{Op: Le, X: t.Levels[0].Size, Y: f.Hi}
		}
		return
	}
}

// straightTo reports whether s is reached from body through blocks alone
// (no loop or condition on the way).
func straightTo(body Stmt, s Stmt) bool {
	switch b := body.(type) {
	case *Block:
		for _, x := range b.List {
			if straightTo(x, s) {
				return true
			}
		}
		return false
	}
	return body == s
}

// chainOf reports whether the store's position comes from the tensor's
// inserts, each reached straight from the loop's body, level 0 at the
// loop's variable.
func chainOf(f *For, st *Store, inserts []*Insert) bool {
	byPos := map[*Var]*Insert{}
	for _, in := range inserts {
		if !straightTo(f.Body, in) {
			return false
		}
		byPos[in.Pos] = in
	}
	r, ok := st.Pos.(*Ref)
	if !ok {
		return false
	}
	in := byPos[r.V]
	for lv := len(inserts) - 1; lv > 0; lv-- {
		if in == nil || in.Level != lv {
			return false
		}
		q, ok := in.Parent.(*Ref)
		if !ok {
			return false
		}
		in = byPos[q.V]
	}
	return in != nil && in.Level == 0 && isConst(in.Parent, 0) && isRefTo(in.Key, f.V)
}

// readsTensor reports whether s reads t's values or iterates or looks up
// its levels.
func readsTensor(s Stmt, t *Tensor) bool {
	found := false
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *ForLevel:
			found = found || x.T == t
		case *Locate:
			found = found || x.T == t
		}
	})
	WalkStmtExprs(s, func(e Expr) {
		if v, ok := e.(*ValAt); ok && v.T == t {
			found = true
		}
	})
	return found
}

func sharedIn(par *Par, t *Tensor) bool {
	for _, x := range par.Shared {
		if x == t {
			return true
		}
	}
	return false
}

// onlyParams reports whether e reads no variable but parameters.
func onlyParams(e Expr, params map[*Var]bool) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *Ref:
			ok = ok && params[x.V]
		case *ValAt, *Load:
			ok = false
		}
	})
	return ok
}
