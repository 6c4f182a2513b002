package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// A matrix result built row by row, each row in one iteration of the
// outermost loop (its key is unique), is stored flat, the way a sparse
// format stores it, instead of as a dictionary per row. Two shapes (after
// any lets):
//
//	sum(<_, k> in (L:H)) { unique(k) -> sum(<q, j> in IDX(POS(k):POS(k+1))) { unique(j) -> V } }
//	    rows k with B's structure (POS, IDX borrowed), values V per position q
//	    (the gradient with respect to a CSR input: SMMM)
//	sum(<_, i> in (L:H)) { unique(K1(i)) -> { unique(K2(i)) -> V } }
//	    one entry per iteration (the identity on a vector's positions: VVA)

// segResult is a flat matrix: for row r in lo..hi-1, its key is r (or
// rowKeys[r]); its entries are positions start[r]..start[r+1]-1 (or the
// single position r when start is nil), with column keys colKeys[q] (or
// the row's key when colKeys is nil) and values vals[q].
type segResult struct {
	lo, hi  int
	sameKey bool // one entry per row whose column key is the row's key
	rowKeys []int
	start   []int
	colKeys []int
	vals    []float64
	// rowOn, when not nil, marks the rows that hold entries (the others
	// are absent, their positions unwritten): segDict.
	rowOn []bool
	outer *outerWork // segOuterTop's scratch
	ws    []float64  // segColSum's column sums
}

func (s *segResult) each(f func(row, col int, v float64)) {
	for r := s.lo; r < s.hi; r++ {
		if s.rowOn != nil && !s.rowOn[r] {
			continue
		}
		rk := r
		if s.rowKeys != nil {
			rk = s.rowKeys[r]
		}
		if s.start == nil {
			ck := r
			switch {
			case s.sameKey:
				ck = rk
			case s.colKeys != nil:
				ck = s.colKeys[r]
			}
			f(rk, ck, s.vals[r])
			continue
		}
		for q := s.start[r]; q < s.start[r+1]; q++ {
			f(rk, s.colKeys[q], s.vals[q])
		}
	}
}

func (s *segResult) value() sdql.Value {
	out := sdql.NewDict()
	s.each(func(rk, ck int, v float64) {
		row, ok := out.Get(rk)
		if !ok {
			row = sdql.NewDict()
			out.Set(rk, row)
		}
		var x sdql.Value = sdql.Real(v)
		if old, ok := row.(*sdql.Dict).Get(ck); ok {
			x = sdql.Add(old, x)
		}
		row.(*sdql.Dict).Set(ck, x)
	})
	return out
}

// keyOf classifies a key of the row loop: the loop variable (slot -1) or
// an int array at it.
func (c *compiler) keyOf(e sdql.Expr, i string) (int, bool) {
	if u, ok := e.(*sdql.UniqueExpr); ok {
		e = u.X
	} else {
		return 0, false
	}
	if identName(e) == i {
		return -1, true
	}
	if l, ok := e.(*sdql.LookupExpr); ok && identName(l.Key) == i {
		if r, ok := c.physRef(l.X, nil); ok && r.cls == vIntArr {
			return r.slot, true
		}
	}
	return 0, false
}

// segTop compiles a program of one of the two shapes into a flat matrix
// result, or returns nil.
func (c *compiler) segTop(e sdql.Expr) func(*frame, *Result) {
	if !c.dps || c.opts.NoFast || sdql.Order(c.typeOf(e)) != 2 {
		return nil
	}
	body := e
	var lets []*sdql.LetExpr
	for {
		l, ok := body.(*sdql.LetExpr)
		if !ok {
			break
		}
		lets = append(lets, l)
		body = l.Body
	}
	s, ok := body.(*sdql.SumExpr)
	if !ok {
		return nil
	}
	if _, isRange := s.Src.(*sdql.RangeExpr); !isRange {
		return c.segDictTop(lets, s)
	}
	rng, ok := s.Src.(*sdql.RangeExpr)
	if _, isLet := s.Body.(*sdql.LetExpr); ok && isLet {
		for _, l := range lets { // a let shadowing an array would fool physRef
			for _, n := range l.Names {
				if _, ok := c.globals.lookup(n.Name); ok {
					return nil
				}
			}
		}
		return c.segOuterTop(lets, rng, s)
	}
	d, ok2 := s.Body.(*sdql.DictExpr)
	if !ok || !ok2 || len(d.Entries) != 1 || s.Val.Name == "_" || mentions(s.Body, s.Key.Name) {
		return nil
	}
	i := s.Val.Name
	for _, l := range lets { // a let shadowing an array would fool physRef
		for _, n := range l.Names {
			if _, ok := c.globals.lookup(n.Name); ok {
				return nil
			}
		}
	}
	k1, ok := c.keyOf(d.Entries[0].Key, i)
	if !ok {
		return nil
	}
	inner := d.Entries[0].Val
	switch in := inner.(type) {
	case *sdql.DictExpr:
		if len(in.Entries) != 1 || kindOf(c.typeOf(in.Entries[0].Val)) != kReal {
			return nil
		}
		k2, ok := c.keyOf(in.Entries[0].Key, i)
		if !ok {
			return nil
		}
		return c.segDiag(lets, rng, s, k1, k2, in.Entries[0].Val)
	case *sdql.SumExpr:
		if k1 != -1 {
			return nil
		}
		sl, ok := in.Src.(*sdql.SliceExpr)
		d2, ok2 := in.Body.(*sdql.DictExpr)
		if !ok || !ok2 || len(d2.Entries) != 1 || identName(d2.Entries[0].Key) != in.Val.Name {
			return nil
		}
		if _, u := d2.Entries[0].Key.(*sdql.UniqueExpr); !u {
			return nil
		}
		lo, ok1 := sl.Lo.(*sdql.LookupExpr)
		hi, ok2 := sl.Hi.(*sdql.LookupExpr)
		if !ok1 || !ok2 || identName(lo.Key) != i || !isPlusOne(hi.Key, i) || !sameIdent(lo.X, hi.X) {
			return nil
		}
		pos, ok1 := c.physRef(lo.X, nil)
		idx, ok2 := c.physRef(sl.X, nil)
		if !ok1 || !ok2 || pos.cls != vIntArr || idx.cls != vIntArr || in.Key.Name == i || in.Val.Name == i {
			return nil
		}
		return c.segRows(lets, rng, s, in, pos, idx, d2.Entries[0].Val)
	}
	return nil
}

func (c *compiler) compileLets(lets []*sdql.LetExpr) (func(*frame), *scope) {
	var env *scope
	var binds []func(*frame)
	for _, l := range lets {
		b, inner := c.let(l, env)
		binds = append(binds, b)
		env = inner
	}
	return func(fr *frame) {
		for _, b := range binds {
			b(fr)
		}
	}, env
}

// segDiag: one entry per iteration.
func (c *compiler) segDiag(lets []*sdql.LetExpr, rng *sdql.RangeExpr, s *sdql.SumExpr, k1, k2 int, v sdql.Expr) func(*frame, *Result) {
	binds, env := c.compileLets(lets)
	lo, hi := c.int(rng.Lo, env), c.int(rng.Hi, env)
	inner, ref := c.bind(env, s.Val, sdql.IntType)
	is := ref.slot
	constant := !mentions(v, s.Val.Name)
	val := c.real(v, inner)
	c.fast++
	id := c.parJob()
	return func(fr *frame, r *Result) {
		binds(fr)
		l, h := lo(fr), hi(fr)
		if h < l {
			h = l
		}
		sg := r.segBuf()
		sg.lo, sg.hi, sg.start, sg.rowKeys, sg.colKeys, sg.sameKey, sg.rowOn = l, h, nil, nil, nil, k1 == k2, nil
		if k1 >= 0 {
			sg.rowKeys = fr.ia[k1]
		}
		if k2 >= 0 && k2 != k1 {
			sg.colKeys = fr.ia[k2]
		}
		if l < 0 || sg.rowKeys != nil && len(sg.rowKeys) < h || sg.colKeys != nil && len(sg.colKeys) < h {
			panic(rtErrorf("%s: key array shorter than the range %d:%d", rng.Pos(), l, h))
		}
		sg.vals = grow(sg.vals, h)
		j := diagJob{vals: sg.vals, constant: constant, val: val, is: is}
		if constant {
			j.x = val(fr)
		}
		unit := minDenseWork
		if !constant {
			unit = minScatterWork
		}
		n := c.workers(fr, h-l, unit)
		if n <= 1 {
			j.fill(fr, l, h)
			return
		}
		t := c.teamOf(fr)
		if !constant {
			t.syncFrames(n)
		}
		t.evenCuts(partsPerRunner*n, l, h)
		pj := jobAt[diagJob](fr, id)
		*pj = j
		c.fork(fr, n, partsPerRunner*n, pj)
		*pj = diagJob{}
	}
}

// segRows: rows with an input's CSR structure.
func (c *compiler) segRows(lets []*sdql.LetExpr, rng *sdql.RangeExpr, s, in *sdql.SumExpr, pos, idx varRef, v sdql.Expr) func(*frame, *Result) {
	binds, env := c.compileLets(lets)
	lo, hi := c.int(rng.Lo, env), c.int(rng.Hi, env)
	rowEnv, ref := c.bind(env, s.Val, sdql.IntType)
	is := ref.slot
	// the value: a row factor (not using q or j) times at most one real
	// array at q
	cs := &counted{arr: idx, pName: in.Key.Name, jName: in.Val.Name}
	p := &plan{}
	if !c.valPlan(v, cs, rowEnv, p) || (p.val != "C" && p.val != "P") {
		return nil
	}
	// a row factor that is a lookup of a let-bound dictionary at the row
	rowDirect := -1
	if len(p.inv) == 1 {
		if l, ok := v.(*sdql.LookupExpr); ok && identName(l.Key) == s.Val.Name {
			if r, ok := rowEnv.lookup(identName(l.X)); ok && r.cls == vDict {
				rowDirect = r.slot
			}
		}
	}
	c.addPosCheck("pos", pos, "idx", idx)
	c.fast++
	id := c.parJob()
	return func(fr *frame, r *Result) {
		binds(fr)
		l, h := lo(fr), hi(fr)
		ps, ix := fr.ia[pos.slot], fr.ia[idx.slot]
		if h < l {
			h = l
		}
		if l < 0 || h >= len(ps) {
			panic(rtErrorf("%s: range %d:%d out of range of a pos array of length %d", rng.Pos(), l, h, len(ps)))
		}
		sg := r.segBuf()
		sg.lo, sg.hi, sg.rowKeys, sg.start, sg.colKeys, sg.sameKey, sg.rowOn = l, h, nil, ps, ix, false, nil
		sg.vals = grow(sg.vals, len(ix))
		var a []float64
		if p.val == "P" {
			a = fr.ra[p.aSlot]
		}
		var direct []float64
		if rowDirect >= 0 {
			if d, ok := fr.d[rowDirect].(*hdict); ok && d.mode != modeHash && d.t.isLeaf() {
				direct = d.f
			}
		}
		j := rowsJob{ps: ps, vals: sg.vals, a: a, direct: direct, rowDirect: rowDirect, is: is, p: p}
		n := c.workers(fr, ps[h]-ps[l]+h-l, minDenseWork)
		if n <= 1 {
			j.rows(fr, l, h)
			return
		}
		t := c.teamOf(fr)
		t.syncFrames(n)
		t.rowCuts(partsPerRunner*n, l, h, ps)
		pj := jobAt[rowsJob](fr, id)
		*pj = j
		c.fork(fr, n, partsPerRunner*n, pj)
		*pj = rowsJob{}
	}
}

func grow(s []float64, n int) []float64 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]float64, n)
}
