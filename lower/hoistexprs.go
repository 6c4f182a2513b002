package lower

// Expression-level clean-ups that the columnar runtime pays for by the
// operation (each operation is a pass over a batch of lanes): a
// subexpression a loop computes the same in every iteration is computed
// once before it (HoistExprs), and a subexpression a statement computes
// twice is computed once (CommonSubexprs). The Go generator gets the
// same program; Go's compiler would have done some of it.
//
// What is evaluated only on a condition (the branches of a select, the
// operands of && and || after the first, the statements of a loop body's
// if statements) CommonSubexprs leaves alone, and HoistExprs moves from
// it only what is speculable: arithmetic and calls on variables, no load
// and nothing that can fail, such as the bounds a guarded branch computes
// from the inputs' extents in every iteration. A guarded load,
// select(0 <= j && j < n, x[j], 0), moves or is shared whole, never its
// load alone.

// HoistExprs moves the maximal loop-invariant subexpressions of the
// statements run in every iteration of a counted loop (its body's
// top-level lets, assignments, stores and if conditions; within its if
// statements, the speculable ones) into lets before the loop: those
// that read memory under the condition that the loop runs at all, as
// HoistInvariants does for whole statements. Inner loops first.
func HoistExprs(p *Program) {
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt { return hoistExprsFrom(p, f) })
}

func hoistExprsFrom(p *Program, f *For) Stmt {
	body, ok := f.Body.(*Block)
	if !ok {
		return f
	}
	changed, writes := loopEffects(f)
	invariant := func(e Expr) bool { return unchangedIn(e, changed, writes) }
	var hoisted []Stmt
	seen := map[string]*Var{}
	// rewrite hoists e's maximal invariant subexpressions; under a
	// condition (spec) only speculable ones, which cannot fail and read
	// no memory, so that computing them where the program would not
	// changes nothing but the time of one evaluation
	var rewrite func(e Expr, spec bool) Expr
	rewrite = func(e Expr, spec bool) Expr {
		switch e.(type) {
		case *Const, *Ref, *Len:
			return e
		}
		if invariant(e) && (!spec || speculable(e)) {
			key := CanonString(e)
			v, ok := seen[key]
			if !ok {
				v = p.NewVar("c", e.Kind())
				seen[key] = v
				hoisted = append(hoisted, &Let{V: v, X: e})
			}
			return &Ref{V: v}
		}
		// what e evaluates only on a condition (a select's branches, the
		// right operand of && and ||) is rewritten as speculative
		switch x := e.(type) {
		case *Select:
			return &Select{Cond: rewrite(x.Cond, spec), Then: rewrite(x.Then, true), Else: rewrite(x.Else, true)}
		case *Binary:
			if x.Op == And || x.Op == Or {
				return &Binary{Op: x.Op, X: rewrite(x.X, spec), Y: rewrite(x.Y, true)}
			}
		}
		return mapChildren(e, func(x Expr) Expr { return rewrite(x, spec) })
	}
	var walk func(s Stmt, spec bool)
	walk = func(s Stmt, spec bool) {
		switch s := s.(type) {
		case *Block:
			for _, x := range s.List {
				walk(x, spec)
			}
		case *Let:
			s.X = rewrite(s.X, spec)
		case *Assign:
			s.X = rewrite(s.X, spec)
		case *Store:
			s.X = rewrite(s.X, spec)
		case *If:
			s.Cond = rewrite(s.Cond, spec)
			walk(s.Then, true)
			walk(s.Else, true)
		}
	}
	walk(body, false)
	if len(hoisted) == 0 {
		return f
	}
	// what cannot fail runs before the loop whether it runs or not; a
	// load, only where it runs (lo < hi). A hoisted expression reads no
	// other: each is a maximal subexpression of the body.
	var always, guarded []Stmt
	for _, h := range hoisted {
		if speculable(h.(*Let).X) {
			always = append(always, h)
		} else {
			guarded = append(guarded, h)
		}
	}
	var loop Stmt = f
	if len(guarded) > 0 {
		loop = &If{Cond: &Binary{Op: Lt, X: f.Lo, Y: f.Hi}, Then: &Block{List: append(guarded, f)}}
	}
	if len(always) == 0 {
		return loop
	}
	return &Block{List: append(always, loop)}
}

// speculable reports whether e can be evaluated where the program would
// not evaluate it: it reads no array or tensor (a load may be out of
// range where a guard keeps it from running) and no operation on
// variables can fail (Div is real division).
func speculable(e Expr) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		switch x.(type) {
		case *Load, *ValAt:
			ok = false
		}
	})
	return ok
}

// unchangedIn reports whether e reads no variable of changed and no
// tensor of writes (what a loop changes, loopEffects).
func unchangedIn(e Expr, changed map[*Var]bool, writes map[*Tensor]bool) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		switch x := x.(type) {
		case *Ref:
			ok = ok && !changed[x.V]
		case *ValAt:
			ok = ok && !writes[x.T]
		}
	})
	return ok
}

// loopEffects returns what a loop changes: the variables it binds or
// assigns (its own included) and the tensors it writes.
func loopEffects(f *For) (changed map[*Var]bool, writes map[*Tensor]bool) {
	changed = map[*Var]bool{f.V: true}
	writes = map[*Tensor]bool{}
	WalkStmts(f.Body, func(s Stmt) {
		defines(s, func(v *Var) { changed[v] = true })
		switch s := s.(type) {
		case *Insert:
			writes[s.T] = true
		case *Store:
			writes[s.T] = true
		case *Init:
			writes[s.T] = true
		}
	})
	return changed, writes
}

// mapChildren rebuilds e with f applied to the operands evaluated
// whenever e is (not a select's branches, not the right operand of && or
// ||).
func mapChildren(e Expr, f func(Expr) Expr) Expr {
	switch x := e.(type) {
	case *Binary:
		if x.Op == And || x.Op == Or {
			return &Binary{Op: x.Op, X: f(x.X), Y: x.Y}
		}
	case *Select:
		return &Select{Cond: f(x.Cond), Then: x.Then, Else: x.Else}
	}
	return rebuild(e, f)
}
