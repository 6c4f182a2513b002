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
// their additions (the parallel analysis: markparallel.go), so the result is
// the same up to floating-point reassociation. Every insert into T is in
// the loop and T has two levels: each row of T is then inserted during
// one iteration of j', so T's second level can be stored Appended
// (ChooseAppended).
func Interchange(p *Program) {
	p.Body = flattenBlocks(interchangeStmt(p, p.Body))
}

func interchangeStmt(p *Program, s Stmt) Stmt {
	if f, ok := s.(*For); ok {
		if out := interchange(p, f); out != nil {
			return out
		}
	}
	mapBodies(s, func(x Stmt) Stmt { return interchangeStmt(p, x) })
	return s
}

// interchange rewrites the outer loop f as the doc says, or returns nil.
// The loop over the row's segment that gives T's row key (g) may be
// anywhere inside f's body, under other loops (the other factor of a
// product of two rows) or inside them, so long as nothing in f's body
// outside g does more than bind lets: then g is replaced by its body, its
// variable bound from the transposition, and the rest of f's body runs
// once per (i, p) as it ran once per p inside i.
func interchange(prog *Program, f *For) Stmt {
	// the tensor: two levels, the second hashed, one insert into its
	// first level in f, every insert into it in f, not read
	var ins *Insert
	for _, t := range prog.Tensors {
		if t.Input || len(t.Levels) != 2 || t.Levels[1].Storage != Hash {
			continue
		}
		var l0 []*Insert
		inF, total, read := 0, 0, false
		WalkStmts(f.Body, func(s Stmt) {
			if x, ok := s.(*Insert); ok && x.T == t {
				inF++
				if x.Level == 0 {
					l0 = append(l0, x)
				}
			}
		})
		WalkStmts(prog.Body, func(s Stmt) {
			switch x := s.(type) {
			case *Insert:
				if x.T == t {
					total++
				}
			case *ForLevel:
				read = read || x.T == t
			case *Locate:
				read = read || x.T == t
			}
		})
		WalkStmtExprs(prog.Body, func(e Expr) {
			if v, ok := e.(*ValAt); ok && v.T == t {
				read = true
			}
		})
		if len(l0) == 1 && inF == total && !read && isConst(l0[0].Parent, 0) && l0[0].At == nil {
			ins = l0[0]
			break
		}
	}
	if ins == nil {
		return nil
	}
	jv, ok := ins.Key.(*Ref)
	if !ok {
		return nil
	}
	lets := map[*Var]Expr{}
	WalkStmts(f.Body, func(s Stmt) {
		if l, ok := s.(*Let); ok {
			lets[l.V] = l.X
		}
	})
	ld, ok := lets[jv.V].(*Load)
	if !ok {
		return nil
	}
	gv, ok := ld.Index.(*Ref)
	if !ok {
		return nil
	}
	idx := ld.A
	// g: the loop of gv in f's body, over f's parent's segment of idx
	var g *For
	WalkStmts(f.Body, func(s Stmt) {
		if x, ok := s.(*For); ok && x.V == gv.V {
			g = x
		}
	})
	if g == nil || !contains(g.Body, ins) {
		return nil
	}
	deref := func(e Expr) Expr {
		if r, ok := e.(*Ref); ok {
			if x, ok := lets[r.V]; ok {
				return x
			}
		}
		return e
	}
	lo, ok1 := deref(g.Lo).(*Load)
	hi, ok2 := deref(g.Hi).(*Load)
	if !ok1 || !ok2 || lo.A != hi.A || !isRefTo(lo.Index, f.V) ||
		CanonString(hi.Index) != CanonString(&Binary{Op: Add, X: &Ref{V: f.V}, Y: intConst(1)}) {
		return nil
	}
	pos := lo.A
	if idx.Level == nil || idx.Level.Pos != pos.Name || idx.Level.Idx != idx.Name {
		return nil
	}
	// outside g, f's body only binds lets (and may fail a check)
	if !onlyLetsOutside(f.Body, g) || parallel(f) == nil {
		return nil
	}
	// the rewrite
	tpos, tpar, tat := prog.NewTemp("tpos"), prog.NewTemp("tpar"), prog.NewTemp("tat")
	n := prog.NewVar("n", Int)
	jj := prog.NewVar("j", Int)
	tv := prog.NewVar("t", Int)
	lo2, hi2 := prog.NewVar("lo", Int), prog.NewVar("hi", Int)
	body := replaceLoop(f.Body, g, func() Stmt {
		gb := &Block{}
		if b, ok := g.Body.(*Block); ok {
			for _, s := range b.List {
				if l, ok := s.(*Let); ok && l.V == jv.V {
					s = &Let{V: jv.V, X: &Ref{V: jj}}
				}
				gb.List = append(gb.List, s)
			}
		} else {
			gb.List = append(gb.List, g.Body)
		}
		return gb
	})
	visit := []Stmt{
		&Let{V: f.V, X: &Load{A: tpar, Index: &Ref{V: tv}}},
		&Let{V: g.V, X: &Load{A: tat, Index: &Ref{V: tv}}},
		body,
	}
	// the parents transposed: f's range, within the rows a guard around g
	// lets through (a lookup's range test; the transposition reads pos at
	// every parent of its range, where f read it only under the guard)
	tlo, thi := f.Lo, f.Hi
	if bound := guardedBound(f.Body, g, f.V, lets); bound != nil && unchangedBy(bound, f) {
		if !isConst(tlo, 0) {
			tlo = &Select{Cond: &Binary{Op: Lt, X: tlo, Y: intConst(0)}, Then: intConst(0), Else: tlo}
		}
		thi = &Select{Cond: &Binary{Op: Lt, X: bound, Y: thi}, Then: bound, Else: thi}
	}
	return &Block{List: []Stmt{
		&Transpose{Pos: pos, Idx: idx, Lo: tlo, Hi: thi, N: n, TPos: tpos, Parent: tpar, At: tat},
		&For{V: jj, Lo: intConst(0), Hi: &Ref{V: n}, Body: &Block{List: []Stmt{
			&Let{V: lo2, X: &Load{A: tpos, Index: &Ref{V: jj}}},
			&Let{V: hi2, X: &Load{A: tpos, Index: &Binary{Op: Add, X: &Ref{V: jj}, Y: intConst(1)}}},
			&For{V: tv, Lo: &Ref{V: lo2}, Hi: &Ref{V: hi2}, Body: &Block{List: visit}},
		}}},
	}}
}

// guardedBound returns n when loop g runs in s only under an if whose
// condition has the conjuncts 0 <= v and v < n (a let-bound condition
// read through lets), else nil.
func guardedBound(s Stmt, g *For, v *Var, lets map[*Var]Expr) Expr {
	switch x := s.(type) {
	case *Block:
		for _, y := range x.List {
			if contains(y, g) {
				return guardedBound(y, g, v, lets)
			}
		}
	case *If:
		if !contains(x.Then, g) {
			return guardedBound(x.Else, g, v, lets)
		}
		cond := x.Cond
		if r, ok := cond.(*Ref); ok && lets[r.V] != nil {
			cond = lets[r.V]
		}
		low := false
		var n Expr
		for _, c := range Conjuncts(cond) {
			b, ok := c.(*Binary)
			if !ok {
				continue
			}
			switch {
			case b.Op == Le && isConst(b.X, 0) && isRefTo(b.Y, v):
				low = true
			case b.Op == Lt && isRefTo(b.X, v):
				n = b.Y
			}
		}
		if low && n != nil {
			return n
		}
		return guardedBound(x.Then, g, v, lets)
	case *For:
		if x != g {
			return guardedBound(x.Body, g, v, lets)
		}
	}
	return nil
}

// contains reports whether s is or holds x.
func contains(s Stmt, x Stmt) bool {
	found := false
	WalkStmts(s, func(y Stmt) {
		if y == x {
			found = true
		}
	})
	return found
}

// onlyLetsOutside reports whether every statement of s outside the loop
// g only binds a let, checks (Fail) or holds such statements and g.
func onlyLetsOutside(s Stmt, g *For) bool {
	switch x := s.(type) {
	case nil, *Let, *Fail:
		return true
	case *Block:
		for _, y := range x.List {
			if !onlyLetsOutside(y, g) {
				return false
			}
		}
		return true
	case *If:
		return onlyLetsOutside(x.Then, g) && onlyLetsOutside(x.Else, g)
	case *For:
		return x == g || onlyLetsOutside(x.Body, g)
	}
	return false
}

// replaceLoop returns a copy of s's statement structure with the loop g
// replaced by repl() (the statements themselves are shared).
func replaceLoop(s Stmt, g *For, repl func() Stmt) Stmt {
	switch x := s.(type) {
	case *Block:
		out := &Block{List: make([]Stmt, len(x.List))}
		for i, y := range x.List {
			out.List[i] = replaceLoop(y, g, repl)
		}
		return out
	case *If:
		var els Stmt
		if x.Else != nil {
			els = replaceLoop(x.Else, g, repl)
		}
		return &If{Cond: x.Cond, Then: replaceLoop(x.Then, g, repl), Else: els}
	case *For:
		if x == g {
			return repl()
		}
		return &For{V: x.V, Lo: x.Lo, Hi: x.Hi, Body: replaceLoop(x.Body, g, repl), Par: x.Par, Prim: x.Prim, Steady: x.Steady}
	}
	return s
}

// flattenBlocks splices every block directly inside a block into it.
func flattenBlocks(s Stmt) Stmt {
	switch x := s.(type) {
	case *Block:
		var out []Stmt
		for _, y := range x.List {
			y = flattenBlocks(y)
			if b, ok := y.(*Block); ok {
				out = append(out, b.List...)
			} else {
				out = append(out, y)
			}
		}
		x.List = out
	default:
		mapBodies(s, flattenBlocks)
	}
	return s
}
