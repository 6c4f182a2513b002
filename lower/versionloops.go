package lower

// VersionLoops writes a loop once for each combination of the conditions
// its body tests that the loop does not change (loop unswitching, on
// several conditions at once):
//
//	for p := lo; p < hi; p++ {             if c4 && 0 < c7 && !(c7 < n) {
//	  j := R_idx[p]                          for p := lo; p < hi; p++ {
//	  if c4 {                                  j := R_idx[p]
//	    for k := 0; k < c7; k++ { ... }        for k := 0; k < c7; k++ { ... }
//	    for k := c7; k < n; k++ { ... }      }
//	  }                              ⇒     } else if ... {
//	}                                        (the other combinations)
//
// The conditions are those of the loop's own body, not its inner loops':
// an if's condition, and an inner loop's range (lo < hi), that read no
// variable the loop sets and no memory, call nothing and divide nothing
// (they are evaluated once, before the loop, where the loop evaluated
// them per iteration: a pure and unfailing expression has the same value
// there). In each copy an if on a known condition is the side that runs,
// and an inner loop known empty is gone; one known to run is under the
// copy's test, whose conjuncts gogen reads as facts, and so drops the
// loop's own range test; lets and loads a copy no longer reads are
// dropped after (eliminateDead). Measured on a loop over a sparse
// matrix's entries whose body tests whether the row is inside a dense
// factor and both parts of a dot product split at the shorter factor's
// width (SplitGuards) on every entry: copied with the tests resolved,
// the generated code ran 0.89x the loop that tested them (chunked A/B,
// 554K entries, factors 16 wide).
//
// At most maxVersions conditions a loop (2^maxVersions copies), and only
// a loop whose body cloneStmt copies (lets, assignments, ifs, inserts,
// stores, failures and loops that are neither parallel nor primitives).
// Loops are versioned innermost first, so a copy's inner loops are
// already versioned and copied whole.
func VersionLoops(p *Program) {
	p.Body = rewriteLoops(p.Body, func(f *For) Stmt { return versionLoop(p, f) })
}

// maxVersions bounds the conditions a loop is versioned on.
const maxVersions = 3

func versionLoop(p *Program, f *For) Stmt {
	if f.Par != nil || f.Prim != nil || !cloneable(f.Body) {
		return f
	}
	conds := versionConds(f)
	if len(conds) == 0 {
		return f
	}
	var chain Stmt
	n := 1 << len(conds)
	for m := n - 1; m >= 0; m-- {
		known := map[string]bool{}
		var test []Expr
		for i, c := range conds {
			holds := m&(1<<i) == 0
			known[CanonString(c)] = holds
			if holds {
				test = append(test, c)
			} else {
				test = append(test, &Unary{Op: Not, X: c})
			}
		}
		body := f.Body
		v := f.V
		if m > 0 {
			v = p.NewVar(f.V.Name, Int)
			body = cloneStmt(p, f.Body, map[*Var]Expr{f.V: &Ref{V: v}})
		}
		cp := &For{V: v, Lo: f.Lo, Hi: f.Hi, Body: resolveKnown(body, known), Steady: f.Steady}
		if chain == nil {
			chain = cp // the last combination: no test
			continue
		}
		chain = &If{Cond: andOf(test), Then: cp, Else: chain}
	}
	return chain
}

// versionConds lists the conditions loop f is versioned on (above), in
// the order found, each once.
func versionConds(f *For) []Expr {
	inner, _ := loopEffects(f)
	seen := map[string]bool{}
	var out []Expr
	add := func(c Expr) {
		if len(out) == maxVersions || !versionable(c, inner) {
			return
		}
		if k := CanonString(c); !seen[k] {
			seen[k] = true
			out = append(out, c)
		}
	}
	var walk func(Stmt)
	walk = func(s Stmt) {
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				walk(y)
			}
		case *If:
			add(x.Cond)
			walk(x.Then)
			walk(x.Else)
		case *For:
			add(RangeCond(x))
		}
	}
	walk(f.Body)
	return out
}

// RangeCond is the condition under which loop f runs its body: Lo < Hi.
func RangeCond(f *For) Expr { return &Binary{Op: Lt, X: f.Lo, Y: f.Hi} }

// versionable reports whether c may be evaluated before the loop instead
// of in it: it reads none of the loop's variables (inner) and no memory
// (speculable), and takes no length, calls nothing and divides nothing.
func versionable(c Expr, inner map[*Var]bool) bool {
	ok := !readsAny(c, inner) && speculable(c)
	WalkExpr(c, func(x Expr) {
		switch x := x.(type) {
		case *Len, *Call:
			ok = false
		case *Binary:
			ok = ok && x.Op != Div
		}
	})
	return ok
}

// cloneable reports whether cloneStmt copies s.
func cloneable(s Stmt) bool {
	ok := true
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *Block, *Let, *Assign, *If, *Insert, *Store, *Fail, *Locate:
		case *For:
			ok = ok && x.Par == nil && x.Prim == nil
		default:
			ok = false
		}
	})
	return ok
}

// resolveKnown rewrites s knowing the conditions known (canonical form:
// value): an if on one is the side that runs, and an inner loop whose
// range is known empty is dropped. One known to run stays: the copy's
// test, an if whose condition has the range as a conjunct, is the fact
// a back end may read (gogen drops the loop's own range test).
func resolveKnown(s Stmt, known map[string]bool) Stmt {
	switch x := s.(type) {
	case *Block:
		out := &Block{}
		for _, y := range x.List {
			if r := resolveKnown(y, known); r != nil {
				out.List = append(out.List, r)
			}
		}
		return out
	case *If:
		if holds, ok := known[CanonString(x.Cond)]; ok {
			side := x.Else
			if holds {
				side = x.Then
			}
			if side == nil {
				return nil
			}
			return resolveKnown(side, known)
		}
		x.Then = resolveKnown(x.Then, known)
		if x.Else != nil {
			x.Else = resolveKnown(x.Else, known)
		}
		return x
	case *For:
		r := RangeCond(x)
		if runs, ok := known[CanonString(r)]; ok && !runs {
			return nil
		}
		return x
	}
	return s
}
