package lower

import "fmt"

// FuseLoops merges a loop of a block with the next loop of the block
// over the same range, when only lets stand between them that the first
// loop neither reads nor changes (they move before it) and neither loop
// reads or changes what the other changes: one loop then runs the first
// body and the second in each iteration. Every variable, accumulator and
// tensor sees its operations in the same order as before (each is
// touched by one of the bodies only), so the result is the same to the
// bit; the row is read once, not twice.
//
// Reverse mode gives such pairs where a program binds a row's value once
// (let xi = x(i) in sum(<j, a> in row) ...): the adjoint of xi is summed
// over the row in a loop of its own, beside the loop that scatters the
// row's entries' adjoints; the same program written with x(i) in the
// entry loop gets one loop. Lets the merged bodies compute alike (the
// coordinate j := A_idx[p] each body loads) are computed once
// (mergeEqualLets), and what several of their statements compute is
// shared (shareAcross).
//
// A loop a primitive runs whole (MarkPrimitives; the closure runtime runs
// those natively), a loop marked parallel, a loop that transposes and a
// second loop that can fail are left as they are.
func FuseLoops(p *Program) {
	fused := false
	sets := definitions(p.Body)
	lets := map[*Var]*Let{}
	WalkStmts(p.Body, func(s Stmt) {
		if l, ok := s.(*Let); ok && sets[l.V] == 1 {
			lets[l.V] = l
		}
	})
	WalkStmts(p.Body, func(s Stmt) {
		if b, ok := s.(*Block); ok {
			fused = fuseBlock(p, b, sets, lets) || fused
		}
	})
	if fused {
		PropagateCopies(p) // a body's let of what the other's computes too
		eliminateDead(p)   // the second loop's bounds
	}
}

// fuseBlock fuses the loops of one block (FuseLoops), each loop with as
// many of the loops after it as qualify, and reports whether it did.
func fuseBlock(p *Program, b *Block, sets map[*Var]int, lets map[*Var]*Let) bool {
	if !hasLoops(b) {
		return false
	}
	fused := false
	b.List = flatten(b.List)
	for i := 0; i < len(b.List); i++ {
		f1, ok := b.List[i].(*For)
		if !ok || !fusable(f1) {
			continue
		}
		for {
			changed1, writes1 := loopEffects(f1)
			read1, _ := loopReads(f1)
			j := i + 1
			for ; j < len(b.List); j++ {
				l, ok := b.List[j].(*Let)
				if !ok || changed1[l.V] || read1[l.V] || !unchangedIn(l.X, changed1, writes1) {
					break
				}
			}
			if j == len(b.List) {
				break
			}
			f2, ok := b.List[j].(*For)
			if !ok || !fusable(f2) || fails(f2) || !sameBound(f1.Lo, f2.Lo, lets, changed1) ||
				!sameBound(f1.Hi, f2.Hi, lets, changed1) || !independent(f1, f2) {
				break
			}
			body2 := f2.Body // f2 goes: its body moves, reading f1's variable
			mapStmtExprs(body2, func(e Expr) Expr { return substLets(e, map[*Var]Expr{f2.V: &Ref{V: f1.V}}) })
			f1.Body = &Block{List: append(append([]Stmt(nil), bodyList(f1)...), stmtList(body2)...)}
			mergeEqualLets(f1.Body.(*Block), sets)
			shareAcross(p, f1.Body.(*Block))
			fused = true
			mid := append([]Stmt(nil), b.List[i+1:j]...)
			rest := append([]Stmt(nil), b.List[j+1:]...)
			b.List = append(append(append(b.List[:i], mid...), f1), rest...)
			i += len(mid)
		}
	}
	return fused
}

// hasLoops reports whether a block has two For loops among its
// statements and the blocks directly in it.
func hasLoops(b *Block) bool {
	n := 0
	for _, s := range flatten(b.List) {
		if _, ok := s.(*For); ok {
			n++
		}
	}
	return n >= 2
}

// flatten splices the blocks of a statement list into it (variables are
// distinct, so a block's statements mean the same in the enclosing one).
func flatten(list []Stmt) []Stmt {
	var out []Stmt
	for _, s := range list {
		if b, ok := s.(*Block); ok {
			out = append(out, flatten(b.List)...)
		} else {
			out = append(out, s)
		}
	}
	return out
}

// stmtList is a statement as a list: a block's statements, or itself.
func stmtList(s Stmt) []Stmt {
	if b, ok := s.(*Block); ok {
		return b.List
	}
	return []Stmt{s}
}

// fusable reports whether FuseLoops may merge loop f: a plain loop, not
// parallel, that no primitive runs whole and that transposes nothing
// (the arrays a transposition writes are read by loads, which the
// effects of loopEffects do not follow).
func fusable(f *For) bool {
	return f.Par == nil && f.Prim == nil && !Holds[*Transpose](f.Body) && primitive(f) == nil
}

// fails reports whether a loop may stop the run with an error of its own
// (a Fail): run inside the first loop's iterations, its error could come
// before one the first loop gives later.
func fails(f *For) bool { return Holds[*Fail](f.Body) }

// unchangedBy reports whether e reads nothing loop f changes (no variable
// it binds or assigns, no tensor it writes).
func unchangedBy(e Expr, f *For) bool {
	changed, writes := loopEffects(f)
	return unchangedIn(e, changed, writes)
}

// sameBound reports whether two loop bounds are the same value where the
// second loop starts: equal once the variables set once by a let are
// replaced by their expressions, reading no tensor and no variable the
// first loop changes (changed).
func sameBound(a, b Expr, lets map[*Var]*Let, changed map[*Var]bool) bool {
	ra, oka := resolveBound(a, lets, changed, 8)
	rb, okb := resolveBound(b, lets, changed, 8)
	return oka && okb && CanonString(ra) == CanonString(rb)
}

// resolveBound replaces in e the variables set once by a let by their
// expressions, depth levels deep; ok is false when e reads a tensor or a
// variable of changed.
func resolveBound(e Expr, lets map[*Var]*Let, changed map[*Var]bool, depth int) (Expr, bool) {
	ok := true
	out := replaceExpr(e, func(x Expr) Expr {
		switch x := x.(type) {
		case *ValAt:
			ok = false
		case *Ref:
			if changed[x.V] {
				ok = false
				return nil
			}
			if l := lets[x.V]; l != nil && depth > 0 {
				r, rok := resolveBound(l.X, lets, changed, depth-1)
				ok = ok && rok
				return r
			}
		}
		return nil
	})
	return out, ok
}

// independent reports whether neither loop reads or changes a variable
// or tensor the other changes (their own loop variables aside, which
// fusion makes one).
func independent(f1, f2 *For) bool {
	c1, w1 := loopEffects(f1)
	c2, w2 := loopEffects(f2)
	delete(c1, f1.V)
	delete(c2, f2.V)
	r1, t1 := loopReads(f1)
	r2, t2 := loopReads(f2)
	return !meets(c1, c2, r2) && !meets(c2, r1) && !meets(w1, w2, t2) && !meets(w2, t1)
}

// meets reports whether a set shares a member with any of others.
func meets[K comparable](set map[K]bool, others ...map[K]bool) bool {
	for k := range set {
		for _, o := range others {
			if o[k] {
				return true
			}
		}
	}
	return false
}

// loopReads returns the variables loop f's statements read and the
// tensors they read or insert into, look up or iterate.
func loopReads(f *For) (vars map[*Var]bool, tensors map[*Tensor]bool) {
	vars, tensors = map[*Var]bool{}, map[*Tensor]bool{}
	WalkStmtExprs(f, func(e Expr) {
		switch x := e.(type) {
		case *Ref:
			vars[x.V] = true
		case *ValAt:
			tensors[x.T] = true
		}
	})
	WalkStmts(f, func(s Stmt) {
		switch s := s.(type) {
		case *Insert:
			tensors[s.T] = true
		case *Locate:
			tensors[s.T] = true
		case *ForLevel:
			tensors[s.T] = true
		case *Store:
			tensors[s.T] = true
		case *Init:
			tensors[s.T] = true
		}
	})
	return vars, tensors
}

// mergeEqualLets drops from block b each let of a variable set once whose
// expression an earlier let of the block, also of a variable set once,
// computes alike, its reads then reading the earlier variable: the
// expression reads no tensor, and no variable is set between the two
// lets that it reads, so both compute the same value.
func mergeEqualLets(b *Block, sets map[*Var]int) {
	type avail struct {
		v *Var
		x Expr
	}
	seen := map[string]avail{}
	subst := map[*Var]Expr{}
	var kept []Stmt
	for _, s := range b.List {
		mapOwnExprs(s, func(e Expr) Expr { return substLets(e, subst) })
		if l, ok := s.(*Let); ok && sets[l.V] == 1 && readsNoTensor(l.X) {
			key := CanonString(l.X)
			if a, ok := seen[key]; ok && a.v.Kind == l.V.Kind {
				subst[l.V] = &Ref{V: a.v}
				continue
			}
		}
		kept = append(kept, s)
		// what s sets invalidates the expressions that read it; a
		// transposition writes arrays loads read
		if Holds[*Transpose](s) {
			clear(seen)
		}
		for v := range definitions(s) {
			for key, a := range seen {
				if a.v == v || reads(a.x, v) {
					delete(seen, key)
				}
			}
		}
		if l, ok := s.(*Let); ok && sets[l.V] == 1 && readsNoTensor(l.X) && !reads(l.X, l.V) {
			seen[CanonString(l.X)] = avail{l.V, l.X}
		}
	}
	b.List = kept
	if len(subst) > 0 {
		for _, s := range b.List {
			mapStmtExprs(s, func(e Expr) Expr { return substLets(e, subst) })
		}
	}
}

// readsNoTensor reports whether e reads no tensor (ValAt): what it reads
// (input arrays, variables) a block changes only by setting variables.
func readsNoTensor(e Expr) bool {
	ok := true
	WalkExpr(e, func(x Expr) {
		if _, isVal := x.(*ValAt); isVal {
			ok = false
		}
	})
	return ok
}

// definitions counts, for each variable, the statements in s that set
// it (defines).
func definitions(s Stmt) map[*Var]int {
	n := map[*Var]int{}
	WalkStmts(s, func(x Stmt) { defines(x, func(v *Var) { n[v]++ }) })
	return n
}

// defines calls f with each variable statement s itself sets: a let's or
// an assignment's, a loop's variables, the positions a search, locate or
// insert binds, a transposition's count.
func defines(s Stmt, f func(*Var)) {
	switch s := s.(type) {
	case *Let:
		f(s.V)
	case *Assign:
		f(s.V)
	case *For:
		f(s.V)
	case *ForLevel:
		f(s.Key)
		if s.Pos != nil {
			f(s.Pos)
		}
	case *Search:
		f(s.Pos)
	case *Locate:
		f(s.Pos)
	case *Insert:
		f(s.Pos)
	case *Transpose:
		f(s.N)
	}
}

// shareAcross gives a subexpression that several statements of block b
// compute alike (lets, assignments, stores; among the operands always
// evaluated, as CommonSubexprs counts them) a let of its own before the
// first of them, the others reading it: the merged bodies of FuseLoops
// each computed it (v := -(a * d) and s += a * d). Alike means the same
// expression reading no tensor, with no variable it reads set between
// the statements.
func shareAcross(p *Program, b *Block) {
	gen := map[*Var]int{}
	key := func(e Expr) (string, bool) {
		if !readsNoTensor(e) {
			return "", false
		}
		k := CanonString(e)
		WalkExpr(e, func(x Expr) {
			if r, ok := x.(*Ref); ok {
				k += fmt.Sprintf("|%d:%d", r.V.ID, gen[r.V])
			}
		})
		return k, true
	}
	own := func(s Stmt) *Expr {
		switch s := s.(type) {
		case *Let:
			return &s.X
		case *Assign:
			return &s.X
		case *Store:
			return &s.X
		}
		return nil
	}
	// count the statements computing each expression
	in := map[string]int{}
	for _, s := range b.List {
		if x := own(s); x != nil {
			seen := map[string]bool{}
			var count func(e Expr)
			count = func(e Expr) {
				switch e.(type) {
				case *Const, *Ref, *Len:
					return
				}
				if k, ok := key(e); ok && !seen[k] {
					seen[k] = true
					in[k]++
				}
				mapChildren(e, func(c Expr) Expr { count(c); return c })
			}
			count(*x)
		}
		for v, n := range definitions(s) {
			gen[v] += n
		}
	}
	// bind the shared ones, largest first, before their first statement
	clear(gen)
	bound := map[string]*Var{}
	var out []Stmt
	for _, s := range b.List {
		if x := own(s); x != nil {
			var rewrite func(e Expr) Expr
			rewrite = func(e Expr) Expr {
				switch e.(type) {
				case *Const, *Ref, *Len:
					return e
				}
				k, ok := key(e)
				if ok && in[k] > 1 {
					if v := bound[k]; v != nil {
						return &Ref{V: v}
					}
					v := p.NewVar("e", e.Kind())
					bound[k] = v
					out = append(out, &Let{V: v, X: e})
					return &Ref{V: v}
				}
				return mapChildren(e, rewrite)
			}
			*x = rewrite(*x)
		}
		out = append(out, s)
		for v, n := range definitions(s) {
			gen[v] += n
		}
	}
	b.List = out
}
