package legacyexec

import "github.com/nablasd/nablasd/sdql"

// A dictionary built from a storage definition over a dense array,
//
//	sum(<_, i> in (0:N)) { i -> ARR(i) }     (also { unique(i) -> ARR(i) })
//
// (fuse binds a dense input so: let V2 = ... in), is the array itself: keys
// 0..N-1, every one present, values ARR(0..N-1). It is returned as a view of
// the array (no copy, lookups by position) instead of being built into a
// hashed or dense dictionary. When N exceeds the array's length the general
// path runs (and reports the interpreter's error).

// arrayView compiles e to a view of a physical array, or returns nil.
func (c *compiler) arrayView(e sdql.Expr, env *scope) dexpr {
	s, ok := e.(*sdql.SumExpr)
	if !ok || s.Val.Name == "_" {
		return nil
	}
	rng, ok := s.Src.(*sdql.RangeExpr)
	if !ok {
		return nil
	}
	if lo, ok := rng.Lo.(*sdql.IntLit); !ok || lo.Value != 0 {
		return nil
	}
	d, ok := s.Body.(*sdql.DictExpr)
	if !ok || len(d.Entries) != 1 || identName(d.Entries[0].Key) != s.Val.Name {
		return nil
	}
	l, ok := d.Entries[0].Val.(*sdql.LookupExpr)
	if !ok || identName(l.Key) != s.Val.Name {
		return nil
	}
	if _, u := l.Key.(*sdql.UniqueExpr); u {
		return nil
	}
	arr, ok := c.physRef(l.X, env)
	if !ok || (s.Key.Name != "_" && s.Key.Name == s.Val.Name) {
		return nil
	}
	// the dictionary's value type must be the array's element type
	vt := c.typeOf(d.Entries[0].Val)
	if (arr.cls == vRealArr) != (kindOf(vt) == kReal) || (arr.cls == vIntArr && kindOf(vt) != kInt) {
		return nil
	}
	n := c.int(rng.Hi, env)
	slot := arr.slot
	general := c.generalDict(e, env)
	cache := c.newSlot(vDict).slot // the last view, so that boxing it does not allocate
	if arr.cls == vRealArr {
		return func(fr *frame) dv {
			a, k := fr.ra[slot], n(fr)
			if k > len(a) {
				return general(fr)
			}
			a = a[:max(k, 0)]
			if v, ok := fr.d[cache].(realArr); ok && len(v) == len(a) && (len(a) == 0 || &v[0] == &a[0]) {
				return fr.d[cache]
			}
			fr.d[cache] = realArr(a)
			return fr.d[cache]
		}
	}
	return func(fr *frame) dv {
		a, k := fr.ia[slot], n(fr)
		if k > len(a) {
			return general(fr)
		}
		a = a[:max(k, 0)]
		if v, ok := fr.d[cache].(intArr); ok && len(v) == len(a) && (len(a) == 0 || &v[0] == &a[0]) {
			return fr.d[cache]
		}
		fr.d[cache] = intArr(a)
		return fr.d[cache]
	}
}

// addArr adds s * a into a leaf real destination whose keys 0..len(a)-1 can
// be stored densely, as one loop; it reports false (having done nothing)
// otherwise.
func addArr(dst *hdict, a []float64, s float64) bool {
	if dst.t.leaf != kReal || dst.mode == modeHash {
		return false
	}
	if len(a) == 0 {
		return true
	}
	if !dst.dense(len(a) - 1) {
		return false
	}
	f := dst.f[:len(a)]
	if dst.pres != nil {
		pres := dst.pres[:len(a)]
		for k := range pres {
			if !pres[k] {
				pres[k] = true
				dst.keys = append(dst.keys, k)
			}
		}
	}
	for k, x := range a {
		f[k] += s * x
	}
	return true
}

// rangeGather recognizes sum(<_, i> in (L:H)) { unique(i) -> X(i) }, X a
// dictionary (a let-bound one, not a physical array) that does not depend
// on i: when X is a view of an array and the destination is dense, one
// loop writes X's values by position (a missing key reads 0).
func (c *compiler) rangeGather(e *sdql.SumExpr, env *scope, fresh bool) intoFn {
	rng, ok := e.Src.(*sdql.RangeExpr)
	if !ok || e.Val.Name == "_" || e.Key.Name == e.Val.Name {
		return nil
	}
	d, ok := e.Body.(*sdql.DictExpr)
	if !ok || len(d.Entries) != 1 || kindOf(c.typeOf(d.Entries[0].Val)) != kReal {
		return nil
	}
	u, ok := d.Entries[0].Key.(*sdql.UniqueExpr)
	if !ok || identName(u.X) != e.Val.Name {
		return nil
	}
	l, ok := d.Entries[0].Val.(*sdql.LookupExpr)
	if !ok || identName(l.Key) != e.Val.Name || mentions(l.X, e.Val.Name, e.Key.Name) {
		return nil
	}
	if _, ok := l.Key.(*sdql.UniqueExpr); ok {
		return nil
	}
	if _, ok := l.X.(*sdql.Ident); !ok {
		return nil
	}
	if _, ok := c.physRef(l.X, env); ok {
		return nil // a physical array: the scatter loops (fast.go) have it
	}
	r, found := env.lookup(identName(l.X))
	if !found {
		r, found = c.globals.lookup(identName(l.X))
	}
	if !found || r.cls != vDict {
		return nil
	}
	x := c.dict(l.X, env)
	lo, hi := c.int(rng.Lo, env), c.int(rng.Hi, env)
	general := c.sumIntoGeneral(e, env, fresh)
	set := fresh
	id, store, unit := c.parJob(), addRange, minDenseWork
	if set {
		store, unit = setRange, minCopyWork
	}
	return func(fr *frame, dst *hdict, s float64) {
		a, ok := x(fr).(realArr)
		l, h := lo(fr), hi(fr)
		if !ok || l < 0 || dst.t.leaf != kReal || dst.mode == modeHash || (h > l && !dst.dense(h-1)) {
			general(fr, dst, s)
			return
		}
		if h <= l {
			return
		}
		f := dst.f[l:h]
		if dst.pres != nil {
			pres := dst.pres[l:h]
			for k := range pres {
				if !pres[k] {
					pres[k] = true
					dst.keys = append(dst.keys, l+k)
				}
			}
		}
		m := min(h, len(a)) - l // positions of a in l..h-1
		if m > 0 && c.parScatter(fr, id, store, true, unit, dst, l, l+m, nil, nil, a, nil, s) {
			if set {
				clear(f[m:])
			}
			return
		}
		if set {
			if m > 0 && s == 1 {
				copy(f, a[l:l+m])
			} else if m > 0 {
				for k, v := range a[l : l+m] {
					f[k] = s * v
				}
			}
			clear(f[max(m, 0):])
			return
		}
		if m > 0 {
			for k, v := range a[l : l+m] {
				f[k] += s * v
			}
		}
	}
}

// rangeKey reports whether the key expression k is the value binder of a
// sum over a range (e.g. i in sum(<_, i> in (L:H))): every iteration has a
// key of its own, as if it were marked unique.
func rangeKey(s *sdql.SumExpr, k sdql.Expr) bool {
	_, ok := s.Src.(*sdql.RangeExpr)
	id, isID := k.(*sdql.Ident)
	return ok && isID && s.Val.Name != "_" && id.Name == s.Val.Name && s.Key.Name != s.Val.Name
}

// markRangeKeys marks unique the keys that are the value binder of their
// sum over a range: in sum(<_, i> in (L:H)) { i -> e }, every iteration
// writes a key of its own, as the program would say with unique(i) (and so
// does a single-entry { i -> v } inside it: its destination is the fresh
// entry of i). The keys may be under lets (not rebinding i) and ifs without
// else. This lets the destination-passing and flat-matrix paths store
// instead of accumulate, as for the programs that say unique.
func markRangeKeys(prog sdql.Expr) sdql.Expr {
	return sdql.Transform(prog, func(e sdql.Expr) sdql.Expr {
		s, ok := e.(*sdql.SumExpr)
		if !ok {
			return e
		}
		if _, ok := s.Src.(*sdql.RangeExpr); !ok || s.Val.Name == "_" || s.Key.Name == s.Val.Name {
			return e
		}
		body := markKey(s.Body, s.Val.Name)
		if body == s.Body {
			return e
		}
		return sdql.WithChildren(s, []sdql.Expr{s.Src, body})
	})
}

func markKey(e sdql.Expr, i string) sdql.Expr {
	switch x := e.(type) {
	case *sdql.LetExpr:
		for _, n := range x.Names {
			if n.Name == i {
				return e
			}
		}
		body := markKey(x.Body, i)
		if body == x.Body {
			return e
		}
		return sdql.WithChildren(x, append(append([]sdql.Expr(nil), x.Values...), body))
	case *sdql.IfExpr:
		if x.Else != nil {
			return e
		}
		then := markKey(x.Then, i)
		if then == x.Then {
			return e
		}
		return sdql.WithChildren(x, []sdql.Expr{x.Cond, then})
	case *sdql.DictExpr:
		if len(x.Entries) != 1 {
			return e
		}
		id, ok := x.Entries[0].Key.(*sdql.Ident)
		if !ok || id.Name != i {
			return e
		}
		val := x.Entries[0].Val
		if d, ok := val.(*sdql.DictExpr); ok {
			val = markKey(d, i)
		}
		return sdql.WithChildren(x, []sdql.Expr{&sdql.UniqueExpr{Unique: id.NamePos, X: id}, val})
	}
	return e
}
