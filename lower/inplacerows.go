package lower

// Parallel loops that can write their result in place. A back end runs a
// loop marked parallel (Par) on several workers, each over a chunk of its
// iterations; a tensor the loop adds into (Par.Tensors) is then the
// first worker's, and each other worker adds into a copy of it, added in
// after. When the loop's keys at the tensor's level 0 are its own
// variable v times a stride s plus constants and variables of loops
// inside (a stencil's gradient adds into rows i - 1, i and i + 1 of
// iteration i; a strided filter's gradient into 2i + k, k < K_len), a
// chunk of iterations l..h-1 writes rows s·l + lo .. s·(h - 1) + hi only
// (InPlaceRows.Extent gives lo and hi), so that only its first
// (hi - lo) / s iterations (InPlaceRows.Skip) write rows the chunk before
// writes. Every worker can then write the tensor itself, the chunks after
// the first leaving those iterations out, to run after the workers, one
// chunk after the other: no copy to clear and no merge, as a hand-written
// split writes in place. The back ends (exec, gogen) do so once the rows
// lie inside each tensor's level 0 (InPlaceRows.Skip's check), so that
// nothing grows while the workers write.

// InPlaceRows is what InPlaceRowsOf finds of a parallel loop over v:
// every key it inserts at level 0 of a tensor it adds into is Stride·v +
// D + u₁ + ... (a RowKey), each uᵢ the variable of a loop inside it whose
// range reads nothing the loop's body defines.
type InPlaceRows struct {
	// Stride is the loop variable's coefficient in every key, at least 1.
	Stride int
	// Keys are the keys' constants and inner loops, one per Insert.
	Keys []RowKey
}

// RowKey is one key Stride·v + D + u₁ + ...: D and the loops whose
// variables are the uᵢ (their Lo and Hi can be evaluated before the
// parallel loop).
type RowKey struct {
	D     int
	Inner []*For
}

// InPlaceRowsOf returns the rows of a parallel loop s whose every tensor
// it adds into (s.Par.Tensors) can be written in place (above), or nil:
// the loop merges by Sum; each such tensor's levels are dense with no
// presence (full or unmarked) with real values; the loop inserts at its
// level 0 only at keys Stride·v + D + u₁ + ... (v the loop's variable,
// directly or through lets of the body, assigned once; the uᵢ variables
// of loops inside whose ranges read nothing the body defines; one stride
// for all), at a deeper level only below a position the loop inserted at
// the level above, stores only at a position it inserted at the last
// level, and neither reads, locates, iterates nor initializes it.
func InPlaceRowsOf(s *For) *InPlaceRows {
	par := s.Par
	if par == nil || par.Merge != Sum || len(par.Tensors) == 0 {
		return nil
	}
	written := map[*Tensor]bool{}
	for _, t := range par.Tensors {
		if t.Leaf != Real {
			return nil
		}
		for _, l := range t.Levels {
			if l.Storage != Dense || l.Marked() {
				return nil
			}
		}
		written[t] = true
	}
	lets := map[*Var]Expr{}
	assigned := map[*Var]bool{}
	defined := map[*Var]bool{s.V: true}
	inner := map[*Var]*For{}
	WalkStmts(s.Body, func(x Stmt) {
		for _, v := range BindsOf(x) {
			defined[v] = true
		}
		switch x := x.(type) {
		case *Let:
			if _, twice := lets[x.V]; twice {
				assigned[x.V] = true
			}
			lets[x.V] = x.X
		case *Assign:
			assigned[x.V] = true
			defined[x.V] = true
		case *For:
			inner[x.V] = x
		}
	})
	readsBody := func(e Expr) bool { return readsAny(e, defined) }
	// resolve writes e with the body's lets replaced by what they are
	var resolve func(e Expr, depth int) (Expr, bool)
	resolve = func(e Expr, depth int) (Expr, bool) {
		switch x := e.(type) {
		case *Const:
			return x, true
		case *Ref:
			if lets[x.V] == nil {
				return x, true
			}
			if assigned[x.V] || depth > 8 {
				return nil, false
			}
			return resolve(lets[x.V], depth+1)
		case *Binary:
			a, ok1 := resolve(x.X, depth)
			b, ok2 := resolve(x.Y, depth)
			if !ok1 || !ok2 {
				return nil, false
			}
			return &Binary{Op: x.Op, X: a, Y: b}, true
		}
		return nil, false
	}
	// terms splits off (D + u₁ + ...) into its constant and inner loops
	var terms func(e Expr, k *RowKey) bool
	terms = func(e Expr, k *RowKey) bool {
		switch x := e.(type) {
		case *Const:
			k.D += x.I
			return x.K == Int
		case *Ref:
			f := inner[x.V]
			if f == nil || readsBody(f.Lo) || readsBody(f.Hi) {
				return false
			}
			k.Inner = append(k.Inner, f)
			return true
		case *Binary:
			if x.Op == Add {
				return terms(x.X, k) && terms(x.Y, k)
			}
			if c, isConst := x.Y.(*Const); isConst && x.Op == Sub && c.K == Int {
				k.D -= c.I
				return terms(x.X, k)
			}
		}
		return false
	}
	// the positions the loop inserted: tensor and level of each
	type at struct {
		t     *Tensor
		level int
	}
	inserted := map[*Var]at{}
	WalkStmts(s.Body, func(x Stmt) {
		if in, ok := x.(*Insert); ok && written[in.T] {
			inserted[in.Pos] = at{in.T, in.Level}
		}
	})
	below := func(e Expr, t *Tensor, level int) bool {
		r, ok := e.(*Ref)
		return ok && inserted[r.V] == at{t, level}
	}
	ok := true
	r := &InPlaceRows{}
	first := true
	WalkStmts(s.Body, func(x Stmt) {
		switch x := x.(type) {
		case *Insert:
			if !written[x.T] || !ok {
				return
			}
			if x.At != nil {
				ok = false
				return
			}
			if x.Level > 0 {
				ok = below(x.Parent, x.T, x.Level-1)
				return
			}
			key, resolved := resolve(x.Key, 0)
			if !resolved {
				ok = false
				return
			}
			off, stride, isStride := StrideOf(key, s.V)
			var k RowKey
			if !isStride || stride < 1 || !terms(off, &k) {
				ok = false
				return
			}
			if first {
				r.Stride, first = stride, false
			}
			ok = stride == r.Stride
			r.Keys = append(r.Keys, k)
		case *Store:
			if written[x.T] {
				ok = ok && below(x.Pos, x.T, len(x.T.Levels)-1)
			}
		case *Locate:
			ok = ok && !written[x.T]
		case *ForLevel:
			ok = ok && !written[x.T]
		case *Init:
			ok = ok && !written[x.T]
		}
	})
	WalkStmts(s.Body, func(x Stmt) {
		WalkStmtExprs(x, func(e Expr) {
			if v, isVal := e.(*ValAt); isVal && written[v.T] {
				ok = false
			}
		})
	})
	if !ok || first {
		return nil
	}
	return r
}

// Extent returns the least and the greatest offset lo, hi of a key from
// Stride·v over all keys: D plus each inner loop's first (lo) or last
// (hi) value, given the loops' ranges by bounds (their Lo and Hi
// evaluated before the parallel loop, by the back end; an empty range
// counts as its Lo).
func (r *InPlaceRows) Extent(bounds func(f *For) (lo, hi int)) (lo, hi int) {
	for i, k := range r.Keys {
		klo, khi := k.D, k.D
		for _, f := range k.Inner {
			a, b := bounds(f)
			klo, khi = klo+a, khi+max(b-1, a)
		}
		if i == 0 {
			lo, hi = klo, khi
		}
		lo, hi = min(lo, klo), max(hi, khi)
	}
	return lo, hi
}

// Skip returns, for chunks of the loop's iterations l..h-1 and keys
// offset by lo..hi (Extent), how many first iterations of a chunk write
// rows the chunk before writes (for stride 1, hi - lo: a chunk from l'
// shares rows with the one before for its iterations l' + j with
// Stride·(j + 1) <= hi - lo), and whether every row the loop writes lies
// in a level 0 of size n (so that no level grows while the workers
// write it).
func (r *InPlaceRows) Skip(l, h, lo, hi, n int) (int, bool) {
	if r.Stride*l+lo < 0 || r.Stride*(h-1)+hi >= n {
		return 0, false
	}
	return (hi - lo) / r.Stride, true
}
