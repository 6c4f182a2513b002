package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// A matrix result written over a CSR input's rows, one row per entry of a
// dictionary (after any lets):
//
//	sum(<k, a> in T) [if 0 <= k && k < N then]
//	    sum(<q, j> in IDX(POS(k):POS(k+1))) { k -> { j -> V } }
//
// (the SMMM gradient: T the column sums of A, written over B's rows). Row
// k's entries are B's positions POS(k)..POS(k+1)-1, so the result is a
// flat segResult on B's structure (POS and IDX borrowed) whose values are
// array stores; the rows of keys T does not hold (or the guard skips) are
// absent (segResult.rowOn). T's keys are distinct, and B's rows are
// disjoint position ranges (validated), so every position is written at
// most once.

// unwrapUnique strips unique(...).
func unwrapUnique(e sdql.Expr) sdql.Expr {
	if u, ok := e.(*sdql.UniqueExpr); ok {
		return u.X
	}
	return e
}

// rangeGuard recognizes 0 <= k && k < N (N not mentioning k) and returns N.
func rangeGuard(cond sdql.Expr, k string) (sdql.Expr, bool) {
	and, ok := cond.(*sdql.BinaryExpr)
	if !ok || and.Op != sdql.LAND {
		return nil, false
	}
	ge, ok1 := and.X.(*sdql.BinaryExpr)
	lt, ok2 := and.Y.(*sdql.BinaryExpr)
	if !ok1 || !ok2 || ge.Op != sdql.LEQ || lt.Op != sdql.LT {
		return nil, false
	}
	if z, ok := ge.X.(*sdql.IntLit); !ok || z.Value != 0 || identName(ge.Y) != k {
		return nil, false
	}
	if identName(lt.X) != k || mentions(lt.Y, k) {
		return nil, false
	}
	return lt.Y, true
}

// segDictTop compiles the shape above, or returns nil.
func (c *compiler) segDictTop(lets []*sdql.LetExpr, s *sdql.SumExpr) func(*frame, *Result) {
	kName, aName := s.Key.Name, s.Val.Name
	if kName == "_" || kName == "" || kName == aName {
		return nil
	}
	if st, ok := c.typeOf(s.Src).(*sdql.DictType); !ok || kindOf(st.Val) != kReal {
		return nil
	}
	for _, l := range lets { // a let shadowing an array would fool physRef
		for _, n := range l.Names {
			if _, ok := c.globals.lookup(n.Name); ok {
				return nil
			}
		}
	}
	body := s.Body
	var bound sdql.Expr
	if ie, ok := body.(*sdql.IfExpr); ok {
		if ie.Else != nil {
			return nil
		}
		n, ok := rangeGuard(ie.Cond, kName)
		if !ok || mentions(n, aName) {
			return nil
		}
		bound, body = n, ie.Then
	}
	in, ok := body.(*sdql.SumExpr)
	if !ok {
		return nil
	}
	sl, ok := in.Src.(*sdql.SliceExpr)
	d1, ok2 := in.Body.(*sdql.DictExpr)
	if !ok || !ok2 || len(d1.Entries) != 1 || identName(unwrapUnique(d1.Entries[0].Key)) != kName {
		return nil
	}
	d2, ok := d1.Entries[0].Val.(*sdql.DictExpr)
	if !ok || len(d2.Entries) != 1 || identName(unwrapUnique(d2.Entries[0].Key)) != in.Val.Name {
		return nil
	}
	qName, jName := in.Key.Name, in.Val.Name
	if qName == kName || qName == aName || jName == kName || jName == aName || jName == "_" {
		return nil
	}
	v := d2.Entries[0].Val
	if kindOf(c.typeOf(v)) != kReal {
		return nil
	}
	lo, ok1 := sl.Lo.(*sdql.LookupExpr)
	hi, ok2 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || identName(lo.Key) != kName || !isPlusOne(hi.Key, kName) || !sameIdent(lo.X, hi.X) {
		return nil
	}
	pos, ok1 := c.physRef(lo.X, nil)
	idx, ok2 := c.physRef(sl.X, nil)
	if !ok1 || !ok2 || pos.cls != vIntArr || idx.cls != vIntArr {
		return nil
	}

	// T a let-bound sum of a CSR input's entries by column (SMMM's column
	// sums): fused, summed into a dense workspace over B's rows
	if id, ok := s.Src.(*sdql.Ident); ok && len(lets) > 0 && !mentions(s.Body, id.Name) {
		last := lets[len(lets)-1]
		if len(last.Names) == 1 && last.Names[0].Name == id.Name {
			if f := c.segColSum(lets[:len(lets)-1], last.Values[0], s, bound, v, pos, idx, qName, jName); f != nil {
				return f
			}
		}
	}
	binds, env := c.compileLets(lets)
	src := c.dict(s.Src, env)
	var nBound iexpr
	if bound != nil {
		nBound = c.int(bound, env)
	}
	rowEnv, kref := c.bind(env, s.Key, sdql.IntType)
	rowEnv, aref := c.bind(rowEnv, s.Val, sdql.RealType)
	ks, as := kref.slot, aref.slot
	// the value: a row factor (of k and a) times at most one real array at q
	cs := &counted{arr: idx, pName: qName, jName: jName}
	p := &plan{}
	if !c.valPlan(v, cs, rowEnv, p) || (p.val != "C" && p.val != "P") {
		return nil
	}
	justA := identName(v) == aName
	c.addPosCheck("pos", pos, "idx", idx)
	c.fast++
	where := s.Pos()
	return func(fr *frame, r *Result) {
		binds(fr)
		ps, ix := fr.ia[pos.slot], fr.ia[idx.slot]
		rows := max(len(ps)-1, 0)
		n := rows
		if nBound != nil {
			n = nBound(fr)
		}
		sg := r.positionsResult(rows, ps, ix)
		sg.vals = grow(sg.vals, len(ix))
		var arr []float64
		if p.val == "P" {
			arr = fr.ra[p.aSlot]
		}
		vals, on := sg.vals, sg.rowOn
		row := func(k int, a float64) {
			if nBound != nil && (k < 0 || k >= n) {
				return
			}
			if uint(k) >= uint(rows) {
				panic(rtErrorf("%s: row %d out of range of a pos array of length %d", where, k, len(ps)))
			}
			x := a
			if !justA {
				fr.i[ks], fr.f[as] = k, a
				x = p.scale(fr, 1)
			}
			on[k] = true
			b, e := ps[k], ps[k+1]
			vs := vals[b:e]
			if arr == nil {
				for q := range vs {
					vs[q] = x
				}
			} else {
				a := arr[b:e]
				for q := range vs {
					vs[q] = x * a[q]
				}
			}
		}
		t := src(fr)
		if h, ok := t.(*hdict); ok && h.t.isLeaf() {
			switch h.mode {
			case modeFull:
				for k, a := range h.f {
					row(k, a)
				}
			case modeDense:
				// rows in order (B's positions sequentially) when the
				// keys are not much sparser than B's rows
				if m := min(len(h.f), rows); 4*len(h.keys) >= m {
					f, pres := h.f[:m], h.pres[:m]
					if justA && arr == nil {
						for k, a := range f {
							if !pres[k] || nBound != nil && k >= n {
								continue
							}
							on[k] = true
							vs := vals[ps[k]:ps[k+1]]
							for q := range vs {
								vs[q] = a
							}
						}
					} else {
						for k, a := range f {
							if pres[k] {
								row(k, a)
							}
						}
					}
					for _, k := range h.keys { // keys past B's rows
						if k >= m {
							row(k, h.f[k])
						}
					}
					break
				}
				for _, k := range h.keys {
					row(k, h.f[k])
				}
			default:
				for i, k := range h.keys {
					row(k, h.f[i])
				}
			}
			return
		}
		for i, m := 0, dvLen(t); i < m; i++ {
			k, a, _ := dvEntry(t, i)
			row(k, a)
		}
	}
}

// segColSum compiles segDictTop's shape when T is
//
//	sum(<_, i> in (L:H)) sum(<p, j> in IDX(POS(i):POS(i+1))) { j -> VAL(p) }
//
// summing VAL by column straight into a dense workspace over B's rows
// (the rows present marked in rowOn), or returns nil.
func (c *compiler) segColSum(lets []*sdql.LetExpr, t sdql.Expr, s *sdql.SumExpr, bound, v sdql.Expr, pos, idx varRef, qName, jName string) func(*frame, *Result) {
	ts, ok := t.(*sdql.SumExpr)
	if !ok {
		return nil
	}
	rng, ok := ts.Src.(*sdql.RangeExpr)
	in, ok2 := ts.Body.(*sdql.SumExpr)
	i := ts.Val.Name
	if !ok || !ok2 || i == "_" || ts.Key.Name != "_" && ts.Key.Name != i {
		return nil
	}
	sl, ok := in.Src.(*sdql.SliceExpr)
	d, ok2 := in.Body.(*sdql.DictExpr)
	if !ok || !ok2 || len(d.Entries) != 1 || identName(unwrapUnique(d.Entries[0].Key)) != in.Val.Name {
		return nil
	}
	lv, ok := d.Entries[0].Val.(*sdql.LookupExpr)
	if !ok || identName(lv.Key) != in.Key.Name || in.Key.Name == i || in.Val.Name == i || in.Key.Name == in.Val.Name || in.Key.Name == "_" {
		return nil
	}
	lo, ok1 := sl.Lo.(*sdql.LookupExpr)
	hi, ok2 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || identName(lo.Key) != i || !isPlusOne(hi.Key, i) || !sameIdent(lo.X, hi.X) {
		return nil
	}
	apos, ok1 := c.physRef(lo.X, nil)
	aidx, ok2 := c.physRef(sl.X, nil)
	aval, ok3 := c.physRef(lv.X, nil)
	if !ok1 || !ok2 || !ok3 || apos.cls != vIntArr || aidx.cls != vIntArr || aval.cls != vRealArr {
		return nil
	}
	binds, env := c.compileLets(lets)
	rlo, rhi := c.int(rng.Lo, env), c.int(rng.Hi, env)
	var nBound iexpr
	if bound != nil {
		nBound = c.int(bound, env)
	}
	rowEnv, kref := c.bind(env, s.Key, sdql.IntType)
	rowEnv, aref := c.bind(rowEnv, s.Val, sdql.RealType)
	ks, as := kref.slot, aref.slot
	cs := &counted{arr: idx, pName: qName, jName: jName}
	p := &plan{}
	if !c.valPlan(v, cs, rowEnv, p) || (p.val != "C" && p.val != "P") {
		return nil
	}
	justA := identName(v) == s.Val.Name
	c.addPosCheck("pos", apos, "idx", aidx)
	c.addPosCheck("pos", pos, "idx", idx)
	c.fast++
	sumID, rowsID := c.parJob(), c.parJob()
	where := s.Pos()
	return func(fr *frame, r *Result) {
		binds(fr)
		ps, ix := fr.ia[pos.slot], fr.ia[idx.slot]
		rows := max(len(ps)-1, 0)
		n := rows
		if nBound != nil {
			n = nBound(fr)
		}
		sg := r.positionsResult(rows, ps, ix)
		sg.ws = grow(sg.ws, rows)
		clear(sg.ws)
		sg.vals = grow(sg.vals, len(ix))
		// the column sums
		nacc := 1
		l, h := rlo(fr), rhi(fr)
		if l < h {
			aps, aix, ava := fr.ia[apos.slot], fr.ia[aidx.slot], fr.ra[aval.slot]
			if l < 0 || h >= len(aps) {
				panic(rtErrorf("%s: range %d:%d out of range of a pos array of length %d", rng.Pos(), l, h, len(aps)))
			}
			b, e := aps[l], aps[h]
			if b > e || e > len(aix) || e > len(ava) {
				panic(rtErrorf("%s: positions %d:%d out of range of arrays of lengths %d, %d", rng.Pos(), b, e, len(aix), len(ava)))
			}
			j := colSumJob{aix: aix[b:e], ava: ava[b:e], ws: sg.ws, on: sg.rowOn, rows: rows, n: n, guarded: nBound != nil, npos: len(ps), where: where}
			// accumulators cost a merge over B's rows: not for few entries
			if nacc = c.workers(fr, e-b, minScatterWork); nacc > 1 && rows <= 4*(e-b) {
				t := c.teamOf(fr)
				t.accumulators(nacc, rows)
				t.flags(nacc, rows)
				t.evenCuts(nacc, 0, e-b)
				pj := jobAt[colSumJob](fr, sumID)
				*pj = j
				c.fork(fr, nacc, nacc, pj)
				*pj = colSumJob{}
			} else {
				nacc = 1
				j.scatter(sg.ws, sg.rowOn, 0, e-b)
			}
		}
		// the rows
		var arr []float64
		if p.val == "P" {
			arr = fr.ra[p.aSlot]
		}
		j := colRowsJob{ps: ps, vals: sg.vals, arr: arr, ws: sg.ws, on: sg.rowOn, nacc: nacc, n: n, justA: justA, ks: ks, as: as, p: p}
		m := c.workers(fr, rows+len(ix), minDenseWork)
		if m <= 1 {
			j.rows(fr.team, fr, 0, rows)
			return
		}
		t := c.teamOf(fr)
		if !justA {
			t.syncFrames(m)
		}
		t.rowCuts(partsPerRunner*m, 0, rows, ps)
		pj := jobAt[colRowsJob](fr, rowsID)
		*pj = j
		c.fork(fr, m, partsPerRunner*m, pj)
		*pj = colRowsJob{}
	}
}

// positionsResult prepares r's segment buffer for a result that lives on
// the positions of a CSR input (pos, idx) with rows rows, none present yet.
func (r *Result) positionsResult(rows int, pos, idx []int) *segResult {
	sg := r.segBuf()
	sg.lo, sg.hi, sg.rowKeys, sg.start, sg.colKeys, sg.sameKey = 0, rows, nil, pos, idx, false
	if cap(sg.rowOn) >= rows {
		sg.rowOn = sg.rowOn[:rows]
		clear(sg.rowOn)
	} else {
		sg.rowOn = make([]bool, rows)
	}
	return sg
}
