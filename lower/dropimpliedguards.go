package lower

// DropImpliedGuards removes the tests that hold wherever they run. Lowering
// guards every lookup by its key's range, and a lookup inside a loop over
// that range, or under an if that tested the same range, tests it again:
//
//	for i2 := 0; i2 < U_cols; i2++ {
//	  if 0 <= i && i < U_rows {      // tested by an enclosing if
//	    if 0 <= i2 && i2 < U_cols {  // the loop's own range
//
// A fact is a conjunct (an operand of &&) of an enclosing if's condition,
// a loop's Lo <= V, V < Hi and Lo < Hi, or 0 <= K for the key K of a loop
// over a level stored by key (dense, sparse, diagonal); a condition's conjuncts that
// are facts are dropped (an if all of whose conjuncts are facts becomes
// its then branch), in if statements and in the conditions of selects.
// Conjuncts are compared by their canonical form (CanonString). Only
// conjuncts that read no variable the program assigns (accumulators) and
// no array or tensor are facts, so a fact stays true wherever it is known.
func DropImpliedGuards(p *Program) {
	d := &implied{mutable: map[*Var]bool{}}
	WalkStmts(p.Body, func(s Stmt) {
		if a, ok := s.(*Assign); ok {
			d.mutable[a.V] = true
		}
	})
	p.Body = d.stmt(p.Body, truths{})
}

// truths are the conjuncts known to hold, by canonical form.
type truths map[string]bool

func (f truths) with(atoms ...Expr) truths {
	g := make(truths, len(f)+len(atoms))
	for k := range f {
		g[k] = true
	}
	for _, a := range atoms {
		g[CanonString(a)] = true
	}
	return g
}

type implied struct {
	mutable map[*Var]bool
}

// stable reports whether a conjunct's truth cannot change where it is
// known: it reads no assigned variable and no memory.
func (d *implied) stable(e Expr) bool { return !readsAny(e, d.mutable) && !ReadsMemory(e) }

// Conjuncts splits a condition at its &&s, in order.
func Conjuncts(e Expr) []Expr { return conjuncts(e, nil) }

// conjuncts appends the conjuncts of e to out.
func conjuncts(e Expr, out []Expr) []Expr {
	if b, ok := e.(*Binary); ok && b.Op == And {
		return conjuncts(b.Y, conjuncts(b.X, out))
	}
	return append(out, e)
}

// simplify drops the conjuncts of cond that are facts: it returns the rest
// (nil when none is left) and the stable ones among them.
func (d *implied) simplify(cond Expr, known truths) (rest Expr, learnt []Expr) {
	for _, c := range conjuncts(cond, nil) {
		if known[CanonString(c)] {
			continue
		}
		if rest == nil {
			rest = c
		} else {
			rest = &Binary{Op: And, X: rest, Y: c}
		}
		if d.stable(c) {
			learnt = append(learnt, c)
		}
	}
	return rest, learnt
}

func (d *implied) stmt(s Stmt, known truths) Stmt {
	switch s := s.(type) {
	case *Block:
		var list []Stmt
		for _, x := range s.List {
			x = d.stmt(x, known)
			if b, ok := x.(*Block); ok {
				list = append(list, b.List...)
			} else if x != nil {
				list = append(list, x)
			}
		}
		s.List = list
	case *If:
		rest, learnt := d.simplify(s.Cond, known)
		if rest == nil {
			return d.stmt(s.Then, known)
		}
		s.Cond = rest
		s.Then = d.stmt(s.Then, known.with(learnt...))
		if s.Else != nil {
			s.Else = d.stmt(s.Else, known)
		}
	case *For:
		inner := known
		v := &Ref{V: s.V}
		if d.stable(s.Lo) && d.stable(s.Hi) {
			inner = known.with(&Binary{Op: Le, X: s.Lo, Y: v}, &Binary{Op: Lt, X: v, Y: s.Hi},
				&Binary{Op: Lt, X: s.Lo, Y: s.Hi})
		}
		s.Body = d.stmt(s.Body, inner)
	case *ForLevel:
		inner := known
		switch s.T.Levels[s.Level].Storage {
		case Dense, Sparse, Diagonal:
			// keys of a level stored by key are not negative
			if s.Key != nil {
				inner = known.with(&Binary{Op: Le, X: intConst(0), Y: &Ref{V: s.Key}})
			}
		}
		s.Body = d.stmt(s.Body, inner)
	case *Search:
		s.Body = d.stmt(s.Body, known)
	case *Locate:
		s.Body = d.stmt(s.Body, known)
	case *Let:
		s.X = d.expr(s.X, known)
	case *Assign:
		s.X = d.expr(s.X, known)
	case *Store:
		s.X = d.expr(s.X, known)
	}
	return s
}

// expr simplifies the conditions of the selects in e.
func (d *implied) expr(e Expr, known truths) Expr {
	switch x := e.(type) {
	case *Select:
		rest, learnt := d.simplify(x.Cond, known)
		if rest == nil {
			return d.expr(x.Then, known)
		}
		return &Select{Cond: rest, Then: d.expr(x.Then, known.with(learnt...)), Else: d.expr(x.Else, known)}
	case *Binary:
		return &Binary{Op: x.Op, X: d.expr(x.X, known), Y: d.expr(x.Y, known)}
	case *Unary:
		return &Unary{Op: x.Op, X: d.expr(x.X, known)}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = d.expr(a, known)
		}
		return &Call{Fn: x.Fn, Args: args}
	}
	return e
}
