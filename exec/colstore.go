package exec

import (
	"github.com/nablasd/nablasd/internal/vec"
	"github.com/nablasd/nablasd/lower"
)

// This file compiles a columnar region's searches, locates, inserts and
// stores into tensors.

func (rg *region) search(s *lower.Search, l int) vstmt {
	ulo, clo := rg.int(s.Lo, l, false)
	uhi, chi := rg.int(s.Hi, l, false)
	uk, ck := rg.int(s.Key, l, false)
	rg.define(s.Pos, l+1)
	pslot := rg.icol[s.Pos]
	body := rg.stmt(s.Body, l+1)
	ub := rg.newU()
	kb := rg.newI()
	a := s.A.ID
	gallop := s.Gallop
	lob, hib := rg.loBuf(l), rg.hiBuf(l)
	return func(fr *frame, cx *vctx) {
		los, his := bounds(fr, cx, ulo, clo, uhi, chi, rg, lob, hib)
		keys := icolOf(fr, cx, uk, ck, rg, kb)
		rb := fr.regions[rg.id]
		ups, poss := rb.u[ub], rb.i[pslot]
		arr := fr.ia[a]
		m := 0
		// with gallop, the lanes of one segment come in ascending keys:
		// each starts where the one before it stopped (a finger across
		// the batch, which the finger variable, read per batch, is not)
		plo, phi, pkey, ppos := -1, -1, 0, 0
		for k := 0; k < cx.n; k++ {
			lo, hi, key := los[k], his[k], keys[k]
			from := lo
			if gallop && lo == plo && hi == phi && key > pkey {
				from = ppos
			}
			plo, phi, pkey = lo, hi, key
			lo = lowerBound(arr, from, hi, key, gallop)
			ppos = lo
			if lo < hi && arr[lo] == key {
				ups[m], poss[m] = int32(k), lo
				m++
			}
		}
		if m > 0 {
			body(fr, rb.child(cx, ups, m))
		}
	}
}

// locate finds each lane's key in a tensor's level and runs the body on
// the lanes where it is found.
func (rg *region) locate(s *lower.Locate, l int) vstmt {
	up, cp := rg.int(s.Parent, l, false)
	// keyed by the level's loop variable: over consecutive lanes (base)
	// the keys are base, base+1, ..., and the key column is read only
	// where they are not (fillLoopCol first)
	lvar := rg.loopVar[l]
	byLane := false
	if r, ok := s.Key.(*lower.Ref); ok && lvar == r.V {
		byLane = true
	}
	reads := rg.colReads[lvar]
	uk, ck := rg.int(s.Key, l, false)
	if byLane {
		rg.colReads[lvar] = reads
	}
	rg.define(s.Pos, l+1)
	pslot := rg.icol[s.Pos]
	body := rg.stmt(s.Body, l+1)
	pb, kb := rg.newI(), rg.newI()
	t, lv := s.T.ID, s.Level
	pc, ok := s.Parent.(*lower.Const)
	top := lv == 0 && ok && pc.I == 0
	read := rg.readInto(s, l)
	return func(fr *frame, cx *vctx) {
		if byLane && top && read >= 0 && cx.base >= 0 {
			// x = t.val[k] for the keys k = base.. within a dense level 0
			// of no presence: a copy
			rt := fr.t[t]
			if lev := rt.levels[lv]; lev.kind == lower.Dense && lev.present == nil && cx.base+cx.n <= lev.size {
				copy(fr.regions[rg.id].f[read][:cx.n], rt.vals[cx.base:cx.base+cx.n])
				return
			}
		}
		var parents, keys []int
		switch {
		case top: // level 0, parent 0: not read
		case cp != nil:
			parents = cp(fr, cx)
		default:
			parents = fill(rg.ibuf(fr, pb, cx.n), up(fr))
		}
		if byLane {
			rg.fillLoopCol(lvar, fr, cx)
		}
		keys = icolOf(fr, cx, uk, ck, rg, kb)
		rb := fr.regions[rg.id]
		ups, poss := rb.parents(cx), rb.i[pslot]
		rt := fr.t[t]
		m := 0
		if lev := rt.levels[lv]; top && lev.kind == lower.Dense && read >= 0 {
			// x = t.val[q] where found: the lanes' column of x, with no
			// child batch
			n, present, vals := uint(lev.size), lev.present, rt.vals
			col := rb.f[read][:len(keys)]
			for k, key := range keys {
				if uint(key) < n && (present == nil || present[key]) {
					col[k] = vals[key]
				}
			}
			return
		}
		if lev := rt.levels[lv]; top && lev.kind == lower.Dense {
			// level 0 of a dense tensor: the key is the position
			n, present := uint(lev.size), lev.present
			for k, key := range keys {
				if uint(key) < n && (present == nil || present[key]) {
					ups[m], poss[m] = int32(k), key
					m++
				}
			}
		} else {
			if parents == nil { // top, of a level 0 not dense: parent 0
				parents = fill(rg.ibuf(fr, pb, cx.n), 0)
			}
			for k := range keys {
				if c, ok := rt.locate(lv, parents[k], keys[k]); ok {
					ups[m], poss[m] = int32(k), c
					m++
				}
			}
		}
		if m > 0 {
			body(fr, rb.childOf(cx, m))
		}
	}
}

// letLocate compiles `x := u; if q := locate(T.level0[0], i); found { x
// = T.val[q] }`, the read of a value defaulting to u (u the same in every
// lane, i the level's loop variable), as one statement: over
// consecutive keys within a dense level 0 without presence every lane is
// found, so u is not written first, and x's column is the slice of T's
// values itself when nothing else in the nest assigns x (no copy; T is
// not written in a columnar nest, eligibleNest). Otherwise it runs the
// two statements, x's own column restored. It returns nil when a and b
// are not a let and a locate.
func (rg *region) letLocate(a, b lower.Stmt, l int) vstmt {
	let, ok1 := a.(*lower.Let)
	loc, ok2 := b.(*lower.Locate)
	if !ok1 || !ok2 || let.V.Kind != lower.Real || rg.varies(let.X) {
		return nil
	}
	set := rg.stmt(let, l)
	read := rg.readInto(loc, l)
	own := rg.newF()
	locate := rg.locate(loc, l)
	pc, ok := loc.Parent.(*lower.Const)
	r, byKey := loc.Key.(*lower.Ref)
	if read != rg.fcol[let.V] || loc.Level != 0 || !ok || pc.I != 0 || !byKey || r.V != rg.loopVar[l] {
		return func(fr *frame, cx *vctx) {
			set(fr, cx)
			locate(fr, cx)
		}
	}
	alias := rg.assigns[let.V] == 1 // the locate's body
	t := loc.T.ID
	return func(fr *frame, cx *vctx) {
		rb := fr.regions[rg.id]
		if cx.base >= 0 {
			rt := fr.t[t]
			if lev := rt.levels[0]; lev.kind == lower.Dense && lev.present == nil && cx.base+cx.n <= lev.size {
				src := rt.vals[cx.base : cx.base+cx.n]
				if alias {
					rb.f[read] = src
				} else {
					copy(rb.f[read][:cx.n], src)
				}
				return
			}
		}
		if alias {
			rb.f[read] = rb.f[own]
		}
		set(fr, cx)
		locate(fr, cx)
	}
}

// insertStore compiles `q := insert(T.level0[0], key); T.val[q] op= x`,
// a vector's entry written at its key, with q read nowhere in rest (the
// statements after the store), as one pass over the lanes when T's level
// is dense: the key is the position (a scatter). The same at the last
// level of a dense matrix, `q := insert(T.levelL[p], key)`, is a scatter
// into row p's values, one pass per run of lanes of one p (a stencil's
// gradient's rows). It returns nil when the pair is not of that shape; on
// another storage it runs the two statements as compiled alone.
//
// A store that adds -x scatters x subtracted (y + -x is y - x in IEEE
// arithmetic): no pass of negations.
func (rg *region) insertStore(a, b lower.Stmt, rest []lower.Stmt, l int) vstmt {
	ins, ok1 := a.(*lower.Insert)
	st, ok2 := b.(*lower.Store)
	if !ok1 || !ok2 || ins.At != nil || ins.Level != len(ins.T.Levels)-1 || st.T != ins.T ||
		ins.T.Leaf != lower.Real {
		return nil
	}
	if r, ok := st.Pos.(*lower.Ref); !ok || r.V != ins.Pos {
		return nil
	}
	if readIn(ins.Pos, []lower.Expr{st.X}, rest) {
		return nil
	}
	x, sub := st.X, false
	if n, ok := x.(*lower.Unary); ok && n.Op == lower.Neg && st.Op == lower.AddTo {
		x, sub = n.X, true
	}
	// keyed by the level's loop variable plus a constant d (through the
	// nest's int lets: t := i + 1): over consecutive lanes (base) the
	// keys are base + d, base + d + 1, ..., a slice of the values; the
	// key column is then not read (as loadCol's)
	lv := rg.loopVar[l]
	d, byLane := 0, false
	if lv != nil {
		d, byLane = lower.Offset(rg.intLets(ins.Key), lv)
	}
	key := ins.Key
	if byLane {
		// the batches whose positions are not consecutive compute the
		// keys from the loop's column, not from the lets' columns
		key = offsetExpr(lv, d)
	}
	// the two statements as compiled alone, for another storage (the
	// insert keyed as the pass is)
	at := *ins
	at.Key = key
	reads := rg.colReads[lv]
	insert := rg.insert(&at, l)
	insertReads := rg.colReads[lv] - reads
	store := rg.store(st, l)
	reads = rg.colReads[lv] - insertReads
	uk, ck := rg.int(key, l, false)
	if byLane {
		// the key's and the insert's reads of the loop's column run
		// after laneCol
		rg.colReads[lv] = reads
	}
	// laneCol fills the loop's column for a batch of consecutive
	// positions, which forStmt leaves unfilled when every reader slices
	// (lazy): the keys are then computed from it (a storage not dense, a
	// key past the level's end)
	laneCol := func(fr *frame, cx *vctx) {
		if byLane {
			rg.fillLoopCol(lv, fr, cx)
		}
	}
	uf, cf := rg.real(x, l, false)
	// values are the lanes' values: a column, or one value for every lane
	// (negated for a subtraction; a column's sign is storeRun's and
	// scatterKeys')
	values := func(fr *frame, cx *vctx) ([]float64, float64) {
		if cf != nil {
			return cf(fr, cx)[:cx.n], 0
		}
		if sub {
			return nil, -uf(fr)
		}
		return nil, uf(fr)
	}
	kb := rg.newI()
	t, set, il := ins.T.ID, st.Op == lower.Set, ins.Level
	if il > 0 {
		// over consecutive positions of one row (vctx.one) the parent is
		// the same in every lane, and the keys base + d, ...: a slice of
		// the row's values
		var parentAt func(*frame, *vctx) int
		if byLane {
			parentAt = rg.rowUniform(ins.Parent, l)
		}
		up, cp := rg.int(ins.Parent, l, false)
		pb := rg.newI()
		return func(fr *frame, cx *vctx) {
			rt := fr.t[t]
			if lev := rt.levels[il]; parentAt != nil && lev.kind == lower.Dense && cx.base >= 0 && cx.one >= 0 {
				if lo := cx.base + d; lo >= 0 && lo+cx.n <= lev.size {
					xs, u := values(fr, cx)
					storeRunAt(rt, lev, parentAt(fr, cx)*lev.size+lo, cx.n, xs, u, set, sub)
					return
				}
			}
			laneCol(fr, cx)
			if rt.levels[il].kind != lower.Dense || cx.n == 0 {
				insert(fr, cx)
				store(fr, cx)
				return
			}
			xs, u := values(fr, cx)
			keys := icolOf(fr, cx, uk, ck, rg, kb)
			parents := icolOf(fr, cx, up, cp, rg, pb)
			lev := rt.levels[il]
			for k0 := 0; k0 < len(keys); {
				// a run of lanes under one parent: its row's values
				p, k1 := parents[k0], k0+1
				for k1 < len(keys) && parents[k1] == p {
					k1++
				}
				off := p * lev.size
				vals := rt.vals[off : off+lev.size]
				var present []bool
				if lev.present != nil {
					present = lev.present[off : off+lev.size]
				}
				for k0 < k1 {
					k0 += scatterKeys(vals, present, keys[k0:k1], xs, k0, u, set, sub && xs != nil)
					if k0 < k1 {
						rt.insert(il, p, keys[k0]) // fails: a dense row does not grow
					}
				}
			}
		}
	}
	return func(fr *frame, cx *vctx) {
		rt := fr.t[t]
		if rt.levels[0].kind != lower.Dense {
			laneCol(fr, cx)
			insert(fr, cx)
			store(fr, cx)
			return
		}
		xs, u := values(fr, cx)
		if lev := rt.levels[0]; byLane && cx.base >= 0 && cx.base+d >= 0 && cx.base+d+cx.n <= lev.size {
			storeRunAt(rt, lev, cx.base+d, cx.n, xs, u, set, sub)
			return
		}
		laneCol(fr, cx)
		keys := icolOf(fr, cx, uk, ck, rg, kb)
		for k := 0; k < len(keys); {
			lev := rt.levels[0]
			k += scatterKeys(rt.vals[:lev.size], lev.present, keys[k:], xs, k, u, set, sub && xs != nil)
			if k < len(keys) {
				rt.insert(0, 0, keys[k]) // grows the level, or fails
			}
		}
	}
}

// storeRunAt stores a batch's values xs (u in every lane when xs is nil)
// at the n consecutive positions of rt's dense level lev from off,
// marking them present where the level keeps presence.
func storeRunAt(rt *tensor, lev *level, off, n int, xs []float64, u float64, set, sub bool) {
	if lev.present != nil {
		p := lev.present[off : off+n]
		for k := range p {
			p[k] = true
		}
	}
	storeRun(rt.vals[off:off+n], xs, u, set, sub && xs != nil)
}

// storeRun stores (set) or adds (with sub: subtracts) xs[k] (u when xs
// is nil) at vals[k] for every k: scatterKeys at consecutive keys.
func storeRun(vals, xs []float64, u float64, set, sub bool) {
	switch {
	case xs == nil && set:
		fillRow(vals, u)
	case xs == nil:
		vec.ArithRight(vec.Add, vals, vals, u)
	case set:
		copy(vals, xs)
	case sub:
		vec.Arith(vec.Sub, vals, vals, xs[:len(vals)])
	default:
		vec.Arith(vec.Add, vals, vals, xs[:len(vals)])
	}
}

// readIn reports whether v is read in any of es or of the statements ss.
func readIn(v *lower.Var, es []lower.Expr, ss []lower.Stmt) bool {
	used := false
	read := func(e lower.Expr) {
		if r, ok := e.(*lower.Ref); ok && r.V == v {
			used = true
		}
	}
	for _, e := range es {
		lower.WalkExpr(e, read)
	}
	for _, x := range ss {
		lower.WalkStmtExprs(x, read)
	}
	return used
}

// scatterKeys stores (set) or adds (with sub: subtracts) xs[off+k] (u
// when xs is nil) at vals[keys[k]], marking present[keys[k]] when present
// is not nil, for k = 0, 1, ... until a key falls outside vals; it
// returns how many it did. A leaf without calls, so that its loop keeps everything in
// registers; the caller grows the level and goes on.
func scatterKeys(vals []float64, present []bool, keys []int, xs []float64, off int, u float64, set, sub bool) int {
	if xs != nil && present == nil && !set {
		xs = xs[off:]
		xs = xs[:len(keys)]
		if sub {
			for k, key := range keys {
				if uint(key) >= uint(len(vals)) {
					return k
				}
				vals[key] -= xs[k]
			}
			return len(keys)
		}
		for k, key := range keys {
			if uint(key) >= uint(len(vals)) {
				return k
			}
			vals[key] += xs[k]
		}
		return len(keys)
	}
	if present != nil {
		present = present[:len(vals)]
	}
	for k, key := range keys {
		if uint(key) >= uint(len(vals)) {
			return k
		}
		if present != nil {
			present[key] = true
		}
		x := u
		if xs != nil {
			x = xs[off+k]
			if sub {
				x = -x
			}
		}
		if set {
			vals[key] = x
		} else {
			vals[key] += x
		}
	}
	return len(keys)
}

// readInto returns the column slot of x when the body of the lookup s is
// only x = t.val[q], x a real defined at level l (the read of a value
// that lowering defaults to zero before it, lower.DropMarks), else -1.
func (rg *region) readInto(s *lower.Locate, l int) int {
	body := s.Body
	if b, ok := body.(*lower.Block); ok && len(b.List) == 1 {
		body = b.List[0]
	}
	a, ok := body.(*lower.Assign)
	if !ok || a.Op != lower.Set || a.V.Kind != lower.Real {
		return -1
	}
	v, ok := a.X.(*lower.ValAt)
	if !ok || v.T != s.T {
		return -1
	}
	if r, ok := v.Pos.(*lower.Ref); !ok || r.V != s.Pos {
		return -1
	}
	if d, inner := rg.level[a.V]; !inner || d != l {
		return -1
	}
	return rg.fcol[a.V]
}

// insert inserts each lane's key, in lane order.
func (rg *region) insert(s *lower.Insert, l int) vstmt {
	if s.At != nil {
		return rg.insertAt(s, l)
	}
	up, cp := rg.int(s.Parent, l, false)
	uk, ck := rg.int(s.Key, l, false)
	rg.define(s.Pos, l)
	pslot := rg.icol[s.Pos]
	t, lv := s.T.ID, s.Level
	pb, kb := rg.newI(), rg.newI()
	return func(fr *frame, cx *vctx) {
		keys := icolOf(fr, cx, uk, ck, rg, kb)
		rt := fr.t[t]
		poss := rg.ibuf(fr, pslot, cx.n)
		lev := rt.levels[lv]
		if lev.kind == lower.Dense && lv == 0 {
			// dense level 0: the key is the position; mark it (a full
			// level has every key)
			for k, key := range keys {
				if key < 0 || key >= lev.size {
					poss[k] = rt.insert(lv, 0, key)
					lev = rt.levels[lv]
					continue
				}
				if lev.present != nil {
					lev.present[key] = true
				}
				poss[k] = key
			}
			return
		}
		parents := icolOf(fr, cx, up, cp, rg, pb)
		for k := range keys {
			poss[k] = rt.insert(lv, parents[k], keys[k])
		}
	}
}

// insertAt marks each lane's position of a Positions level (Insert.At).
func (rg *region) insertAt(s *lower.Insert, l int) vstmt {
	ua, ca := rg.int(s.At, l, false)
	rg.define(s.Pos, l)
	pslot := rg.icol[s.Pos]
	t, lv := s.T.ID, s.Level
	ab := rg.newI()
	return func(fr *frame, cx *vctx) {
		ats := icolOf(fr, cx, ua, ca, rg, ab)
		rt := fr.t[t]
		poss := rg.ibuf(fr, pslot, cx.n)
		for k, c := range ats {
			poss[k] = rt.insertAt(lv, c)
		}
	}
}

// store adds (or sets) each lane's value at its position, in lane order.
func (rg *region) store(s *lower.Store, l int) vstmt {
	up, cp := rg.int(s.Pos, l, false)
	t := s.T.ID
	pb := rg.newI()
	pos := func(fr *frame, cx *vctx) []int { return icolOf(fr, cx, up, cp, rg, pb) }
	if s.T.Leaf == lower.Bool {
		ub, cb := rg.boolean(s.X, l, false)
		return func(fr *frame, cx *vctx) {
			vals := fr.t[t].vals
			for k, p := range pos(fr, cx) {
				b := false
				if ub != nil {
					b = ub(fr)
				} else {
					b = cb(fr, cx)[k]
				}
				if s.Op == lower.Set {
					vals[p] = float64(b2i(b))
				} else if b {
					vals[p] = 1
				}
			}
		}
	}
	uf, cf := rg.real(s.X, l, false)
	set := s.Op == lower.Set
	return func(fr *frame, cx *vctx) {
		vals := fr.t[t].vals
		ps := pos(fr, cx)
		if uf != nil {
			u := uf(fr)
			for _, p := range ps {
				if set {
					vals[p] = u
				} else {
					vals[p] += u
				}
			}
			return
		}
		xs := cf(fr, cx)
		if set {
			for k, p := range ps {
				vals[p] = xs[k]
			}
			return
		}
		for k, p := range ps {
			vals[p] += xs[k]
		}
	}
}
