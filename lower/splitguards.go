package lower

// SplitGuards splits an innermost loop's range where a select in its body
// is guarded by the loop's variable against a bound the loop does not
// change (index-set splitting):
//
//	for k := lo; k < hi; k++ {             s := max(lo, min(n, hi))
//	  acc += U[c + k] * select(b && k < n,  for k := lo; k < s; k++ {
//	           W[d + k], 0.0)                acc += U[c + k] * select(b, W[d + k], 0.0)
//	}                                ⇒     }
//	                                       for k := s; k < hi; k++ {
//	                                         acc += U[c + k] * 0.0
//	                                       }
//
// (a dense matrix's row read inside a loop over another's: U(i)·W(j), where
// W's rows may be shorter). A condition the loop does not change at all
// is unswitched (unswitch). Below s the guard holds, above it fails, so
// each copy of the body reads the select's one side; the first is the
// loop a hand would write, which Go then runs without a test per element
// and the primitives can match. The second keeps the other side's
// arithmetic (0 times an infinite U is NaN). A loop a primitive rule
// already matches is left alone: the rules take a guarded gather as it is
// (Prim.Bound). The body is copied with fresh variables. A body with
// loops (a row's) is split only on guards of its own statements, an if
// or a select of a let, and only when it has plain loops alone
// (cloneable): a loop over a union of two ranges, 0..max(A_len, b_len),
// testing i < A_len for A's row and i < b_len for b's entry, becomes the
// rows both have, without tests, then the rest (a merge lattice's
// regions, TACO's co-iteration of two dense levels). Measured on least
// squares' value as the JIT builds it: on two goroutines 0.79x the
// tested loop's time, on one 0.98x (the register allocator kept the
// tested loop's counters in memory; chunked A/B).
func SplitGuards(p *Program) {
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt { return splitLoop(p, f, maxSplits) })
}

// maxSplits bounds the copies one loop is split into (2^maxSplits), so
// that a body of many guards does not grow without end.
const maxSplits = 3

func splitLoop(p *Program, f *For, budget int) Stmt {
	if budget == 0 {
		return f
	}
	for _, r := range Rules {
		if r.match(f) != nil {
			return f
		}
	}
	nested := false
	WalkStmts(f.Body, func(s Stmt) {
		switch s.(type) {
		case *For, *ForLevel, *Search, *Locate, *Transpose, *Init:
			nested = true
		}
	})
	if nested && !cloneable(f.Body) {
		return f
	}
	inner, _ := loopEffects(f)
	var bound Expr
	guard := func(cond Expr) {
		for _, c := range conjuncts(cond, nil) {
			if b, ok := c.(*Binary); ok && bound == nil && b.Op == Lt && isRefTo(b.X, f.V) && !readsAny(b.Y, inner) && !ReadsMemory(b.Y) {
				bound = b.Y
			}
		}
	}
	selects := func(s Stmt) {
		WalkStmtExprs(s, func(e Expr) {
			if sel, ok := e.(*Select); ok {
				guard(sel.Cond)
			}
		})
	}
	if nested {
		// a row loop's body: guards of its own statements only (an if,
		// a select of a let or an assignment), each splitting the rows
		for _, st := range blockList(f.Body) {
			switch x := st.(type) {
			case *If:
				guard(x.Cond)
			case *Let, *Assign:
				selects(x)
			}
		}
		if bound == nil {
			return f
		}
	} else {
		selects(f.Body)
	}
	if bound == nil {
		return unswitch(p, f, inner, budget)
	}
	// s := max(lo, min(n, hi)), the lower loop's end and the upper's start
	s := p.NewVar("split", Int)
	minNH := &Select{Cond: &Binary{Op: Lt, X: bound, Y: f.Hi}, Then: bound, Else: f.Hi}
	let := &Let{V: s, X: maxExpr(f.Lo, minNH)}
	key := map[string]bool{CanonString(&Binary{Op: Lt, X: &Ref{V: f.V}, Y: bound}): true}
	below := &For{V: f.V, Lo: f.Lo, Hi: &Ref{V: s}, Body: f.Body, Steady: f.Steady}
	v := p.NewVar(f.V.Name, Int)
	renamed := map[*Var]Expr{f.V: &Ref{V: v}}
	above := &For{V: v, Lo: &Ref{V: s}, Hi: f.Hi, Body: cloneStmt(p, f.Body, renamed), Steady: f.Steady}
	below.Body = guardStmt(below.Body, key, true)
	above.Body = guardStmt(above.Body, map[string]bool{CanonString(&Binary{Op: Lt, X: &Ref{V: v}, Y: bound}): true}, false)
	return &Block{List: []Stmt{let, splitLoop(p, below, budget-1), splitLoop(p, above, budget-1)}}
}

// unswitch makes two copies of an innermost loop whose body selects on a
// condition the loop does not change (a conjunct reading no variable it
// defines and no memory), each reading one side:
//
//	for k ... { acc += U[c + k] * select(b, W[d + k], 0.0) }
//
// becomes if b { for k ... { acc += U[c + k] * W[d + k] } } else { ... }.
// A select that reads nothing the loop changes is left to HoistInvariants.
func unswitch(p *Program, f *For, inner map[*Var]bool, budget int) Stmt {
	var inv []Expr
	WalkStmtExprs(f.Body, func(e Expr) {
		sel, ok := e.(*Select)
		if !ok || inv != nil || !readsAny(sel, inner) {
			return // a select the loop does not change at all is hoisted instead
		}
		for _, c := range conjuncts(sel.Cond, nil) {
			if !readsAny(c, inner) && !ReadsMemory(c) {
				inv = append(inv, c)
			}
		}
	})
	if inv == nil {
		return f
	}
	keys := map[string]bool{}
	for _, c := range inv {
		keys[CanonString(c)] = true
	}
	v := p.NewVar(f.V.Name, Int)
	other := &For{V: v, Lo: f.Lo, Hi: f.Hi, Body: cloneStmt(p, f.Body, map[*Var]Expr{f.V: &Ref{V: v}}), Steady: f.Steady}
	f.Body = guardStmt(f.Body, keys, true)
	other.Body = guardStmt(other.Body, keys, false)
	return &If{Cond: andOf(inv), Then: splitLoop(p, f, budget-1), Else: splitLoop(p, other, budget-1)}
}

// cloneStmt copies a statement without level loops, searches, inits or
// transposes (For loops neither parallel nor primitives are copied; a
// locate is), each variable it defines made anew (renamed maps old
// variables to the expressions replacing them).
func cloneStmt(p *Program, s Stmt, renamed map[*Var]Expr) Stmt {
	fresh := func(v *Var) *Var {
		if v == nil {
			return nil
		}
		w := p.NewVar(v.Name, v.Kind)
		renamed[v] = &Ref{V: w}
		return w
	}
	sub := func(e Expr) Expr {
		if e == nil {
			return nil
		}
		return substLets(e, renamed)
	}
	switch x := s.(type) {
	case nil:
		return nil
	case *Block:
		out := &Block{}
		for _, y := range x.List {
			out.List = append(out.List, cloneStmt(p, y, renamed))
		}
		return out
	case *Let:
		e := sub(x.X)
		return &Let{V: fresh(x.V), X: e}
	case *Assign:
		v := x.V
		if r, ok := renamed[v].(*Ref); ok {
			v = r.V
		}
		return &Assign{V: v, Op: x.Op, X: sub(x.X)}
	case *If:
		return &If{Cond: sub(x.Cond), Then: cloneStmt(p, x.Then, renamed), Else: cloneStmt(p, x.Else, renamed)}
	case *Insert:
		parent, key, at := sub(x.Parent), sub(x.Key), sub(x.At)
		return &Insert{Pos: fresh(x.Pos), T: x.T, Level: x.Level, Parent: parent, Key: key, At: at}
	case *Store:
		return &Store{T: x.T, Pos: sub(x.Pos), Op: x.Op, X: sub(x.X)}
	case *Fail:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = sub(a)
		}
		return &Fail{Pos: x.Pos, Msg: x.Msg, Args: args}
	case *For:
		if x.Par == nil && x.Prim == nil {
			lo, hi := sub(x.Lo), sub(x.Hi)
			return &For{V: fresh(x.V), Lo: lo, Hi: hi, Body: cloneStmt(p, x.Body, renamed), Steady: x.Steady}
		}
	case *Locate:
		parent, key := sub(x.Parent), sub(x.Key)
		return &Locate{Pos: fresh(x.Pos), T: x.T, Level: x.Level, Parent: parent, Key: key, Body: cloneStmt(p, x.Body, renamed)}
	}
	panic("internal error: lower: cloneStmt of a loop other than a plain For")
}

// guardStmt rewrites the selects of s knowing that the conjunction of
// keys (canonical conjuncts) holds, or does not: where it holds, each of
// them is dropped from a condition; where it does not, a select whose
// condition has all of them takes its else side. It switches on every
// statement kind, not with mapBodies, since it rewrites each one's
// expressions as well as its bodies.
func guardStmt(s Stmt, key map[string]bool, holds bool) Stmt {
	g := func(e Expr) Expr { return guardExpr(e, key, holds) }
	switch x := s.(type) {
	case *Block:
		for i, y := range x.List {
			x.List[i] = guardStmt(y, key, holds)
		}
	case *Let:
		x.X = g(x.X)
	case *Assign:
		x.X = g(x.X)
	case *If:
		// an if on the guard is the side that runs
		keep, found := guardConds(x.Cond, key, holds)
		x.Then = guardStmt(x.Then, key, holds)
		if x.Else != nil {
			x.Else = guardStmt(x.Else, key, holds)
		}
		switch {
		case !holds && found == len(key):
			if x.Else == nil {
				return &Block{}
			}
			return x.Else
		case len(keep) == 0:
			return x.Then
		}
		x.Cond = andOf(keep)
	case *Insert:
		x.Parent = g(x.Parent)
		x.Key = g(x.Key)
		if x.At != nil {
			x.At = g(x.At)
		}
	case *Store:
		x.Pos = g(x.Pos)
		x.X = g(x.X)
	case *Fail:
		for i, a := range x.Args {
			x.Args[i] = g(a)
		}
	}
	return s
}

// guardConds splits a condition's conjuncts knowing that those of key
// hold, or do not: found counts the key's among them, and keep is the
// others (and, where they do not hold, the key's too), rewritten.
func guardConds(cond Expr, key map[string]bool, holds bool) (keep []Expr, found int) {
	for _, c := range conjuncts(cond, nil) {
		if key[CanonString(c)] {
			found++
			if holds {
				continue
			}
		}
		keep = append(keep, guardExpr(c, key, holds))
	}
	return keep, found
}

func guardExpr(e Expr, key map[string]bool, holds bool) Expr {
	switch x := e.(type) {
	case *Select:
		keep, found := guardConds(x.Cond, key, holds)
		then, els := guardExpr(x.Then, key, holds), guardExpr(x.Else, key, holds)
		switch {
		case !holds && found == len(key):
			return els
		case len(keep) == 0:
			return then
		}
		return &Select{Cond: andOf(keep), Then: then, Else: els}
	case *Load:
		return &Load{A: x.A, Index: guardExpr(x.Index, key, holds)}
	case *Unary:
		return &Unary{Op: x.Op, X: guardExpr(x.X, key, holds)}
	case *Binary:
		return &Binary{Op: x.Op, X: guardExpr(x.X, key, holds), Y: guardExpr(x.Y, key, holds)}
	case *Call:
		args := make([]Expr, len(x.Args))
		for i, a := range x.Args {
			args[i] = guardExpr(a, key, holds)
		}
		return &Call{Fn: x.Fn, Args: args}
	case *ValAt:
		return &ValAt{T: x.T, Pos: guardExpr(x.Pos, key, holds)}
	}
	return e
}

// blockList is s's statements: a block's list, or s alone.
func blockList(s Stmt) []Stmt {
	if b, ok := s.(*Block); ok {
		return b.List
	}
	return []Stmt{s}
}
