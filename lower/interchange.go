package lower

// Interchange makes a matrix result's rows come one at a time, so that
// each row is built in a workspace and appended (Gustavson's algorithm)
// instead of scattered into a hash table. It looks for
//
//	for i := lo0; i < hi0; i++ {
//	  lets
//	  for p := pos[i]; p < pos[i+1]; p++ {   // row i of a format level
//	    j := idx[p]
//	    lets
//	    q := insert(T.level0[0], j)        // T's row j
//	    rest                               // adds under q only
//	  }
//	}
//
// where the rows of T are keyed by the inner loop's coordinates, so that
// every iteration of i adds to many rows of T, and rewrites it as a loop
// over those coordinates, each visiting the (i, p) where it occurs, from
// a transposed copy of the level's structure made at run time:
//
//	tpos, tpar, tat, n := transpose(pos, idx, lo0..hi0)
//	for j' := 0; j' < n; j'++ {
//	  for t := tpos[j']; t < tpos[j'+1]; t++ {
//	    i := tpar[t]; p := tat[t]
//	    lets
//	    j := j'
//	    lets; q := insert(T.level0[0], j); rest
//	  }
//	}
//
// The body runs once per (i, p) as before, in another order: it is done
// only where the loop's iterations are independent up to the order of
// their additions (the parallel analysis: parallel.go), so the result is
// the same up to floating-point reassociation. Every insert into T is in
// the loop and T has two levels: each row of T is then inserted during
// one iteration of j', so T's second level can be stored Appended
// (ChooseAppended).
func Interchange(p *Program) {
	p.Body = interchangeStmt(p, p.Body)
}

func interchangeStmt(p *Program, s Stmt) Stmt {
	switch s := s.(type) {
	case *Block:
		for i, x := range s.List {
			s.List[i] = interchangeStmt(p, x)
		}
	case *If:
		s.Then = interchangeStmt(p, s.Then)
		if s.Else != nil {
			s.Else = interchangeStmt(p, s.Else)
		}
	case *For:
		if out := interchange(p, s); out != nil {
			return out
		}
		s.Body = interchangeStmt(p, s.Body)
	case *ForLevel:
		s.Body = interchangeStmt(p, s.Body)
	case *Search:
		s.Body = interchangeStmt(p, s.Body)
	case *Locate:
		s.Body = interchangeStmt(p, s.Body)
	}
	return s
}

// interchange rewrites the outer loop f as the doc says, or returns nil.
func interchange(prog *Program, f *For) Stmt {
	body, ok := f.Body.(*Block)
	if !ok || len(body.List) == 0 {
		return nil
	}
	inner, ok := body.List[len(body.List)-1].(*For)
	if !ok {
		return nil
	}
	prefix := body.List[:len(body.List)-1]
	lets := map[*Var]Expr{}
	for _, s := range prefix {
		let, ok := s.(*Let)
		if !ok {
			return nil
		}
		lets[let.V] = let.X
	}
	deref := func(e Expr) Expr {
		if r, ok := e.(*Ref); ok {
			if x, ok := lets[r.V]; ok {
				return x
			}
		}
		return e
	}
	// the inner loop: one parent's segment of a compressed level, the
	// parent the outer loop's variable
	lo, ok1 := deref(inner.Lo).(*Load)
	hi, ok2 := deref(inner.Hi).(*Load)
	if !ok1 || !ok2 || lo.A != hi.A || !isRefTo(lo.Index, f.V) ||
		CanonString(hi.Index) != CanonString(&Binary{Op: Add, X: &Ref{V: f.V}, Y: intConst(1)}) {
		return nil
	}
	pos := lo.A
	ib, ok := inner.Body.(*Block)
	if !ok || len(ib.List) < 2 {
		return nil
	}
	jl, ok := ib.List[0].(*Let)
	if !ok {
		return nil
	}
	ld, ok := jl.X.(*Load)
	if !ok || !isRefTo(ld.Index, inner.V) || ld.A.Level == nil || ld.A.Level.Pos != pos.Name || ld.A.Level.Idx != ld.A.Name {
		return nil
	}
	idx := ld.A
	// the insert of T's row j, after lets
	var ins *Insert
	for _, s := range ib.List[1:] {
		if x, ok := s.(*Insert); ok {
			ins = x
			break
		}
		if _, ok := s.(*Let); !ok {
			return nil
		}
	}
	if ins == nil || ins.Level != 0 || !isConst(ins.Parent, 0) || !isRefTo(ins.Key, jl.V) || ins.At != nil {
		return nil
	}
	t := ins.T
	if len(t.Levels) != 2 || t.Levels[1].Storage != Hash || t.Input {
		return nil
	}
	// every insert into T is here, under q at level 1; T is not read
	ok = true
	inLoop := 0
	WalkStmts(f, func(s Stmt) {
		if x, isIns := s.(*Insert); isIns && x.T == t {
			inLoop++
			if x != ins && (x.Level != 1 || !isRefTo(x.Parent, ins.Pos)) {
				ok = false
			}
		}
	})
	total := 0
	WalkStmts(prog.Body, func(s Stmt) {
		switch x := s.(type) {
		case *Insert:
			if x.T == t {
				total++
			}
		case *ForLevel:
			if x.T == t {
				ok = false
			}
		case *Locate:
			if x.T == t {
				ok = false
			}
		}
	})
	WalkStmtExprs(f, func(e Expr) {
		if v, isVal := e.(*ValAt); isVal && v.T == t {
			ok = false
		}
	})
	if !ok || total != inLoop || parallel(f) == nil {
		return nil
	}
	// the rewrite
	tpos, tpar, tat := prog.NewTemp("tpos"), prog.NewTemp("tpar"), prog.NewTemp("tat")
	n := prog.NewVar("n", Int)
	jj := prog.NewVar("j", Int)
	tv := prog.NewVar("t", Int)
	lo2, hi2 := prog.NewVar("lo", Int), prog.NewVar("hi", Int)
	var visit []Stmt
	visit = append(visit,
		&Let{V: f.V, X: &Load{A: tpar, Index: &Ref{V: tv}}},
		&Let{V: inner.V, X: &Load{A: tat, Index: &Ref{V: tv}}})
	visit = append(visit, prefix...)
	visit = append(visit, &Let{V: jl.V, X: &Ref{V: jj}})
	visit = append(visit, ib.List[1:]...)
	return &Block{List: []Stmt{
		&Transpose{Pos: pos, Idx: idx, Lo: f.Lo, Hi: f.Hi, N: n, TPos: tpos, Parent: tpar, At: tat},
		&For{V: jj, Lo: intConst(0), Hi: &Ref{V: n}, Body: &Block{List: []Stmt{
			&Let{V: lo2, X: &Load{A: tpos, Index: &Ref{V: jj}}},
			&Let{V: hi2, X: &Load{A: tpos, Index: &Binary{Op: Add, X: &Ref{V: jj}, Y: intConst(1)}}},
			&For{V: tv, Lo: &Ref{V: lo2}, Hi: &Ref{V: hi2}, Body: &Block{List: visit}},
		}}},
	}}
}
