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
// F may stand behind a test that it is not empty (if lo < n { ... F }),
// which skips only what F would not do. It may also be two such loops,
// one after the other, the second starting
// where the first ends (for i := lo; i < h; ... then for i := h; i < n;
// ...: a range split at a guard's bound by SplitGuards, V2's extent in
// VVD's V1 ∘ V2): their keys are below h and from h on, so no position is
// stored twice, and their union holds lo..n whatever h is, so the bound
// that covers is the second loop's. Three loops that meet, [lo, h1),
// [h1, h2), [h2, n), do the same where h2 is at least h1 (h2 let to
// max(h1, ·): the prologue, steady state and epilogue of a loop
// AffineGuards partitioned). CoverFull takes one loop only.
//
// It runs after MarkParallel (which keeps adds) and before
// MarkPrimitives (whose rules take either).
func WriteOnce(p *Program) { onceEach(p, false) }

// CoverFull makes level 0 of a tensor full where the loop WriteOnce
// describes runs over exactly its size (for i := 0; i < n with the level
// sized n): every key is present when anything reads it, so the level
// needs no presence, its lookups no test, and a parallel loop writes it in
// place. It runs before MarkParallel.
//
// It lives with WriteOnce, whose analysis (onceEach) it shares.
func CoverFull(p *Program) { onceEach(p, true) }

func onceEach(p *Program, full bool) {
	top, ok := p.Body.(*Block)
	if !ok {
		return
	}
	lets, bound := map[*Var]Expr{}, map[*Var]int{}
	WalkStmts(p.Body, func(s Stmt) {
		switch x := s.(type) {
		case *Let:
			lets[x.V] = x.X
			bound[x.V]++
		case *Assign:
			bound[x.V] += 2
		}
	})
	for v, n := range bound {
		if n != 1 {
			delete(lets, v)
		}
	}
	params := map[*Var]bool{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			params[pa.Var] = true
		}
	}
	for _, t := range p.Tensors {
		if !t.Input {
			writeOnce(top.List, t, params, lets, full)
		}
	}
}

// atLeastBy reports whether b >= a by its definition: b is a, or b is a
// variable let (once, never assigned) to max(a, ·).
func atLeastBy(a, b Expr, lets map[*Var]Expr) bool {
	ka := CanonString(a)
	if ka == CanonString(b) {
		return true
	}
	r, ok := b.(*Ref)
	if !ok {
		return false
	}
	s, ok := lets[r.V].(*Select)
	if !ok {
		return false
	}
	c, ok := s.Cond.(*Binary)
	if !ok || c.Op != Lt && c.Op != Le {
		return false
	}
	x, y := CanonString(c.X), CanonString(c.Y)
	t, e := CanonString(s.Then), CanonString(s.Else)
	// select(x < y, y, x) is max(x, y)
	return t == y && e == x && (x == ka || y == ka)
}

func writeOnce(list []Stmt, t *Tensor, params map[*Var]bool, lets map[*Var]Expr, full bool) {
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
	if len(stores) == 0 || len(stores) > 3 || inits != 1 || len(inserts) != len(stores)*len(t.Levels) || t.Levels[0].Storage != Dense {
		return
	}
	if len(stores) == 1 && len(t.Levels) == 2 && t.Levels[1].Storage == Positions {
		if !full {
			positionsOnce(list, t, stores[0], inserts)
		}
		return
	}
	if len(stores) == 1 && len(t.Levels) >= 2 && allDense(t) {
		if !full {
			rowsOnce(list, t, stores[0], inserts, params)
		}
		return
	}
	for _, l := range t.Levels[1:] {
		if l.Storage != Diagonal {
			return
		}
	}
	if full && len(stores) > 1 {
		// a level 0 written by several loops keeps its presence: made
		// full, the generated Go slices each loop's rows of it, and in
		// the convolution's gradient the gather's loop after them then
		// ran 1.5× slower, its counters spilled by Go's register
		// allocator
		return
	}
	var init *Init
	var loops []*For // loops[k] stores stores[k]
	for _, s := range list {
		if x, ok := s.(*Init); ok && x.T == t {
			init = x
			continue
		}
		if len(loops) == len(stores) {
			break // reads after the last loop see every store
		}
		st := stores[len(loops)]
		f := guardedLoopTo(s, st)
		if f == nil {
			if readsTensor(s, t) {
				return // read before the loop that writes it
			}
			continue
		}
		if init == nil || readsTensor(s, t) || !chainOf(f, st, insertsIn(f, inserts, len(t.Levels))) {
			return
		}
		if f.Par != nil && !sharedIn(f.Par, t) && !full {
			return
		}
		loops = append(loops, f)
	}
	if len(loops) != len(stores) {
		return
	}
	for k := 1; k < len(loops); k++ {
		if CanonString(loops[k].Lo) != CanonString(loops[k-1].Hi) {
			return
		}
	}
	if len(loops) == 3 && !atLeastBy(loops[1].Lo, loops[1].Hi, lets) {
		return // the third loop could store again what the first did
	}
	lo, zero := loops[0].Lo.(*Const)
	zero = zero && lo.I == 0
	hi := loops[len(loops)-1].Hi // the union of the loops' ranges holds lo..hi
	if full {
		if l := t.Levels[0]; zero && !l.Full && l.Size != nil && CanonString(l.Size) == CanonString(hi) {
			for _, l := range t.Levels {
				l.Full = true
			}
		}
		return
	}
	for _, st := range stores {
		st.Op = Set
	}
	switch size := t.Levels[0].Size; {
	case zero && size != nil && CanonString(size) == CanonString(hi):
		init.Covered = boolConst(true)
	case zero && size != nil && onlyParams(hi, params):
		init.Covered = &Binary{Op: Le, X: size, Y: hi}
	}
}

// guardedLoopTo returns the loop s is, or s runs behind its non-emptiness
// test alone (if lo < hi { lets; for i := lo; i < hi ... }, as
// HoistInvariants guards a loop it hoists out of), whose body reaches st
// straight; nil if there is none.
func guardedLoopTo(s Stmt, st *Store) *For {
	var f *For
	WalkStmts(s, func(x Stmt) {
		if g, ok := x.(*For); ok && f == nil && straightTo(g.Body, st) && guardedTo(s, g, g) {
			f = g
		}
	})
	return f
}

// insertsIn returns the inserts reached straight from f's body, or nil
// unless they are n (one per level of the tensor).
func insertsIn(f *For, inserts []*Insert, n int) []*Insert {
	var in []*Insert
	for _, x := range inserts {
		if straightTo(f.Body, x) {
			in = append(in, x)
		}
	}
	if len(in) != n {
		return nil
	}
	return in
}

// positionsOnce makes the store into a dense level 0 over a Positions
// level (a result on an input's positions) an assignment where each
// position is stored once:
//
//	for k ... {                              // F, distinct keys, at the top
//	  ... q := insert(T.level0[0], k)        // no loop between F and here
//	  ... for p := lo; p < hi; p++ {         // G, no loop between F and G
//	    ... q1 := insert(T.level1[q], j) at p
//	    T.val[q1] (+)= v                     // straight in G
//	  }
//	}
//
// The position p determines the parent and the key (the Positions level's
// proof), the parent is F's key, distinct per iteration, and G's p are
// distinct: no position is stored twice. The values of positions not
// stored are not read (their presence is cleared), and every position
// inserted is stored straight after: the Init need not zero the values
// (SetFirst).
func positionsOnce(list []Stmt, t *Tensor, st *Store, inserts []*Insert) {
	var i0, i1 *Insert
	for _, in := range inserts {
		if in.Level == 0 {
			i0 = in
		} else {
			i1 = in
		}
	}
	if i0 == nil || i1 == nil || i1.At == nil || !isConst(i0.Parent, 0) || !isRefTo(i1.Parent, i0.Pos) || !isRefTo(st.Pos, i1.Pos) {
		return
	}
	var init *Init
	for _, s := range list {
		if x, ok := s.(*Init); ok && x.T == t {
			init = x
			continue
		}
		contains := false
		WalkStmts(s, func(x Stmt) { contains = contains || x == st })
		if !contains {
			if readsTensor(s, t) {
				return
			}
			continue
		}
		var key *Var
		var body Stmt
		switch f := s.(type) {
		case *For:
			if f.Par != nil && !sharedIn(f.Par, t) {
				return
			}
			key, body = f.V, f.Body
		case *ForLevel:
			key, body = f.Key, f.Body
		default:
			return
		}
		if init == nil || readsTensor(body, t) || !isRefTo(i0.Key, key) || !noLoopTo(body, i0) {
			return
		}
		var g *For
		WalkStmts(body, func(x Stmt) {
			if f, ok := x.(*For); ok && isRefTo(i1.At, f.V) && straightTo(f.Body, i1) && straightTo(f.Body, st) {
				g = f
			}
		})
		if f, isFor := s.(*For); t.Levels[0].Full && (!isFor || !coversRows(f, i0, t, letsOf(body))) {
			return // a full level 0 whose rows are not all inserted reads ones not set
		}
		if g != nil && noLoopTo(body, g) {
			// every position inserted is stored straight after (the one
			// insert into level 1 and the one store, straight in G):
			// each value read is one set since the init
			st.Op = Set
			init.SetFirst = true
		}
		return
	}
}

// rowsOnce makes the store into a tensor of dense levels (a matrix
// result, a gradient on a dense input) an assignment where each position
// is stored at most once, and marks the Init Covered where, in addition,
// every position is stored:
//
//	for k0 := 0; k0 < n0; k0++ {              // F0, at the top
//	  ... q0 := insert(T.level0[0], k0)      // no loop between F0 and here
//	  ... for k1 := 0; k1 < n1; k1++ {       // F1, no loop between F0 and F1
//	    q1 := insert(T.level1[q0], k1)       // straight in the last loop
//	    T.val[q1] (+)= v                       // straight in the last loop
//	  }
//	}
//
// Each loop runs at most once per iteration of the one around it and its
// iterations have distinct keys, each level's insert keyed by its loop's
// variable under the position the level above inserted: no position is
// stored twice. Covered, when every level is full (no presence to set),
// every loop starts at 0 with a bound of parameters, and nothing but a
// test that the next loop is not empty (if 0 < n1, which skips only what
// that loop would not do) stands between a loop and the next: then
// n0 >= size0 && n1 >= size1 && ... (one conjunct per level, in order)
// says every position is stored, and the Init need not clear.
func rowsOnce(list []Stmt, t *Tensor, st *Store, inserts []*Insert, params map[*Var]bool) {
	byLevel := make([]*Insert, len(t.Levels))
	for _, in := range inserts {
		if in.At != nil || byLevel[in.Level] != nil {
			return
		}
		byLevel[in.Level] = in
	}
	for lv, in := range byLevel {
		if in == nil || lv == 0 && !isConst(in.Parent, 0) || lv > 0 && !isRefTo(in.Parent, byLevel[lv-1].Pos) {
			return
		}
	}
	last := byLevel[len(byLevel)-1]
	if !isRefTo(st.Pos, last.Pos) {
		return
	}
	var init *Init
	for _, s := range list {
		if x, ok := s.(*Init); ok && x.T == t {
			init = x
			continue
		}
		contains := false
		WalkStmts(s, func(x Stmt) { contains = contains || x == st })
		if !contains {
			if readsTensor(s, t) {
				return
			}
			continue
		}
		f, ok := s.(*For)
		if !ok || init == nil || f.Par != nil && !sharedIn(f.Par, t) || readsTensor(f.Body, t) {
			return
		}
		loops := []*For{f}
		guardsOnly := true // only emptiness tests of the next loop on the way
		for lv, in := range byLevel {
			cur := loops[lv]
			if !isRefTo(in.Key, cur.V) {
				return
			}
			if lv == len(byLevel)-1 {
				if !straightTo(cur.Body, in) || !straightTo(cur.Body, st) {
					return
				}
				break
			}
			var next *For
			WalkStmts(cur.Body, func(x Stmt) {
				if g, ok := x.(*For); ok && g != cur && isRefTo(byLevel[lv+1].Key, g.V) && noLoopTo(cur.Body, g) {
					next = g
				}
			})
			if next == nil || !noLoopTo(cur.Body, in) {
				return
			}
			guardsOnly = guardsOnly && guardedTo(cur.Body, in, next) && guardedTo(cur.Body, next, next)
			loops = append(loops, next)
		}
		st.Op = Set
		if !guardsOnly {
			return
		}
		var covered Expr
		for lv, g := range loops {
			l := t.Levels[lv]
			if !isConst(g.Lo, 0) || !l.Full || l.Size == nil || !onlyParams(g.Hi, params) {
				return
			}
			c := &Binary{Op: Le, X: l.Size, Y: g.Hi}
			if covered == nil {
				covered = c
			} else {
				covered = &Binary{Op: And, X: covered, Y: c}
			}
		}
		init.Covered = covered
		return
	}
}

// allDense reports whether every level of t is Dense.
func allDense(t *Tensor) bool {
	for _, l := range t.Levels {
		if l.Storage != Dense {
			return false
		}
	}
	return true
}

// guardedTo reports whether s is reached from body through blocks and
// ifs without an else whose condition is g's non-emptiness test (g.Lo <
// g.Hi): whatever such an if skips, g would not have done.
func guardedTo(body Stmt, s Stmt, g *For) bool {
	if body == s {
		return true
	}
	switch b := body.(type) {
	case *Block:
		for _, x := range b.List {
			if guardedTo(x, s, g) {
				return true
			}
		}
	case *If:
		return b.Else == nil && CanonString(b.Cond) == CanonString(&Binary{Op: Lt, X: g.Lo, Y: g.Hi}) && guardedTo(b.Then, s, g)
	}
	return false
}

// noLoopTo reports whether s is reached from body through no loop (blocks,
// conditions, searches and lookups).
func noLoopTo(body Stmt, s Stmt) bool {
	if body == s {
		return true
	}
	switch b := body.(type) {
	case *Block:
		for _, x := range b.List {
			if noLoopTo(x, s) {
				return true
			}
		}
	case *If:
		return noLoopTo(b.Then, s) || b.Else != nil && noLoopTo(b.Else, s)
	case *Search:
		return noLoopTo(b.Body, s)
	case *Locate:
		return noLoopTo(b.Body, s)
	}
	return false
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
