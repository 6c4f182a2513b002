package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// The sum of the outer products of a CSR input's rows (the BATAx
// gradient, c A^T A), after any lets:
//
//	sum(<_, i> in (L:H))
//	    let r = sum(<p, j> in IDX(POS(i):POS(i+1))) { j -> VAL(p) } in
//	    sum(<i1, v> in r) { i1 -> sum(<i2, v1> in r) { i2 -> C * v * v1 } }
//
// is built as a flat matrix (segResult) by Gustavson's algorithm: the rows
// (merged where a column repeats) are transposed (counting sort, rows in
// order), then result row i1 accumulates c*A(i,i1) * row i over the rows i
// holding column i1 in a dense workspace with int32 markers. Every pair
// (i1, i2) of columns sharing a row is stored (explicit zeros kept), as
// the interpreter's dictionaries do.

// outerWork is the scratch of segOuter, kept in the Result.
type outerWork struct {
	mark       []int32
	loc        []int32
	w          []float64
	mpos, midx []int
	mval       []float64
	tpos, trow []int
	tval       []float64
	opos, oidx []int
	counted    int // the bound of the last exact count of the result's size
	// the parallel Gustavson's (par_outer.go): the blocks of result rows,
	// their pieces, the goroutines' workspaces, the work before each
	// result row, the blocks' sizes and the pieces' offsets
	blocks   []int
	pieces   []outerPiece
	scratch  []outerScratch
	cum      []int
	counts   []int
	offs     []int
	countedN int // the blocks of the last exact count
}

func growInt(s []int, n int) []int {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int, n)
}

func growI32(s []int32, n int) []int32 {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]int32, n)
}

// segOuterTop recognizes the shape above (s the outer sum over rng), or
// returns nil.
func (c *compiler) segOuterTop(lets []*sdql.LetExpr, rng *sdql.RangeExpr, s *sdql.SumExpr) func(*frame, *Result) {
	i := s.Val.Name
	if i == "_" || mentions(s.Body, s.Key.Name) && s.Key.Name != i {
		return nil
	}
	le, ok := s.Body.(*sdql.LetExpr)
	if !ok || len(le.Names) != 1 {
		return nil
	}
	rName := le.Names[0].Name
	// the row: { j -> VAL(p) } over IDX(POS(i):POS(i+1))
	row, ok := le.Values[0].(*sdql.SumExpr)
	if !ok {
		return nil
	}
	sl, ok := row.Src.(*sdql.SliceExpr)
	rd, ok2 := row.Body.(*sdql.DictExpr)
	if !ok || !ok2 || len(rd.Entries) != 1 || identName(unwrapUnique(rd.Entries[0].Key)) != row.Val.Name || row.Val.Name == "_" {
		return nil
	}
	lv, ok := rd.Entries[0].Val.(*sdql.LookupExpr)
	if !ok || identName(lv.Key) != row.Key.Name || row.Key.Name == "_" || row.Key.Name == row.Val.Name {
		return nil
	}
	lo, ok1 := sl.Lo.(*sdql.LookupExpr)
	hi, ok2 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || identName(lo.Key) != i || !isPlusOne(hi.Key, i) || !sameIdent(lo.X, hi.X) {
		return nil
	}
	pos, ok1 := c.physRef(lo.X, nil)
	idx, ok2 := c.physRef(sl.X, nil)
	val, ok3 := c.physRef(lv.X, nil)
	if !ok1 || !ok2 || !ok3 || pos.cls != vIntArr || idx.cls != vIntArr || val.cls != vRealArr || rName == i {
		return nil
	}
	// the outer product of r with itself
	o1, ok := le.Body.(*sdql.SumExpr)
	if !ok || identName(o1.Src) != rName {
		return nil
	}
	d1, ok := o1.Body.(*sdql.DictExpr)
	if !ok || len(d1.Entries) != 1 || identName(unwrapUnique(d1.Entries[0].Key)) != o1.Key.Name {
		return nil
	}
	o2, ok := d1.Entries[0].Val.(*sdql.SumExpr)
	if !ok || identName(o2.Src) != rName {
		return nil
	}
	d2, ok := o2.Body.(*sdql.DictExpr)
	if !ok || len(d2.Entries) != 1 || identName(unwrapUnique(d2.Entries[0].Key)) != o2.Key.Name {
		return nil
	}
	names := []string{i, s.Key.Name, rName, o1.Key.Name, o1.Val.Name, o2.Key.Name, o2.Val.Name}
	for a := range names {
		for b := range a {
			if names[a] == names[b] && names[a] != "_" && (a != 1 || b != 0) {
				return nil
			}
		}
	}
	if o1.Key.Name == "_" || o2.Key.Name == "_" || o1.Val.Name == "_" || o2.Val.Name == "_" {
		return nil
	}
	binds, env := c.compileLets(lets)
	inv, ok := c.outerProductFactors(d2.Entries[0].Val, env, o1.Val.Name, o2.Val.Name, names...)
	if !ok {
		return nil
	}
	rlo, rhi := c.int(rng.Lo, env), c.int(rng.Hi, env)
	c.addPosCheck("pos", pos, "idx", idx)
	c.fast++
	id := c.parJob()
	return func(fr *frame, r *Result) {
		binds(fr)
		l, h := rlo(fr), rhi(fr)
		ps, ix, va := fr.ia[pos.slot], fr.ia[idx.slot], fr.ra[val.slot]
		sg := r.segBuf()
		if h <= l { // no rows
			sg.lo, sg.hi, sg.rowKeys, sg.start, sg.colKeys, sg.sameKey, sg.rowOn = 0, 0, nil, nil, nil, false, nil
			return
		}
		if l < 0 || h >= len(ps) {
			panic(rtErrorf("%s: range %d:%d out of range of a pos array of length %d", rng.Pos(), l, h, len(ps)))
		}
		cc := 1.0
		for _, f := range inv {
			cc *= f(fr)
		}
		if sg.outer == nil {
			sg.outer = &outerWork{}
		}
		wk := sg.outer
		// the columns' extent
		b, e := ps[l], ps[h]
		if b > e || e > len(ix) || e > len(va) {
			panic(rtErrorf("%s: rows %d:%d: positions %d:%d out of range of arrays of lengths %d, %d", rng.Pos(), l, h, b, e, len(ix), len(va)))
		}
		ncols := 0
		for _, j := range ix[b:e] {
			if j < 0 {
				panic(rtErrorf("%s: negative column index %d", rng.Pos(), j))
			}
			ncols = max(ncols, j+1)
		}
		if ncols > max(maxOuterColumns, 8*(e-b)) {
			panic(rtErrorf("%s: column index %d too large for a dense workspace", rng.Pos(), ncols-1))
		}
		// merged rows (a column repeated in a row is summed): ms..me in mpos
		mark := growI32(wk.mark, ncols)
		for q := range mark {
			mark[q] = -1
		}
		nr := h - l
		mpos := growInt(wk.mpos, nr+1)
		midx, mval := wk.midx[:0], wk.mval[:0]
		dup := false
		for k := l; k < h && !dup; k++ {
			for _, j := range ix[ps[k]:ps[k+1]] {
				if mark[j] == int32(k-l) {
					dup = true
					break
				}
				mark[j] = int32(k - l)
			}
		}
		if dup {
			loc := growI32(wk.loc, ncols)
			for q := range mark {
				mark[q] = -1
			}
			for k := l; k < h; k++ {
				mpos[k-l] = len(midx)
				for p := ps[k]; p < ps[k+1]; p++ {
					j := ix[p]
					if mark[j] == int32(k-l) {
						mval[loc[j]] += va[p]
						continue
					}
					mark[j], loc[j] = int32(k-l), int32(len(midx))
					midx = append(midx, j)
					mval = append(mval, va[p])
				}
			}
			mpos[nr] = len(midx)
			wk.loc = loc
		} else {
			for k := l; k <= h; k++ {
				mpos[k-l] = ps[k] - b
			}
			midx, mval = ix[b:e], va[b:e]
		}
		nnz := len(midx)
		// the transpose: tpos per column, trow the rows in order
		tpos := growInt(wk.tpos, ncols+1)
		clear(tpos)
		for _, j := range midx {
			tpos[j+1]++
		}
		for j := 0; j < ncols; j++ {
			tpos[j+1] += tpos[j]
		}
		trow, tval := growInt(wk.trow, nnz), grow(wk.tval, nnz)
		for k := 0; k < nr; k++ {
			for p := mpos[k]; p < mpos[k+1]; p++ {
				j := midx[p]
				q := tpos[j]
				trow[q], tval[q] = k, mval[p]
				tpos[j]++
			}
		}
		copy(tpos[1:], tpos[:ncols])
		tpos[0] = 0
		// the result's size: when the buffers may be short of the bound
		// sum of squared row lengths, count it exactly (a symbolic pass),
		// so that the buffers are allocated once at their size
		bound := 0
		for k := 0; k < nr; k++ {
			n := mpos[k+1] - mpos[k]
			bound += n * n
		}
		wk.mpos, wk.tpos, wk.trow, wk.tval = mpos, tpos, trow, tval
		if dup {
			wk.midx, wk.mval = midx, mval
		}
		j := outerJob{cc: cc, ncols: ncols, mpos: mpos, midx: midx, mval: mval, tpos: tpos, trow: trow, tval: tval}
		if n := c.workers(fr, bound, minOuterWork); n > 1 {
			c.parGustavson(fr, id, n, sg, j)
			return
		}
		if (cap(wk.oidx) < bound || cap(sg.vals) < bound) && wk.counted != bound {
			wk.counted = bound // the same inputs again: the buffers fit
			for q := range mark {
				mark[q] = -1
			}
			total := j.countRows(0, ncols, mark)
			if cap(wk.oidx) < total {
				wk.oidx = make([]int, 0, total)
			}
			if cap(sg.vals) < total {
				sg.vals = make([]float64, 0, total)
			}
		}
		// Gustavson: result row i1 = sum over rows k with column i1 of
		// cc * A(k, i1) * row k
		for q := range mark {
			mark[q] = -1
		}
		w := grow(wk.w, ncols)
		opos := growInt(wk.opos, ncols+1)
		opos[0] = 0
		j.opos = opos
		oidx, ovals := j.fillRows(0, ncols, mark, w, wk.oidx[:0], sg.vals[:0])
		wk.mark, wk.w, wk.opos, wk.oidx = mark, w, opos, oidx
		sg.lo, sg.hi, sg.rowKeys, sg.start, sg.colKeys, sg.sameKey, sg.rowOn = 0, ncols, nil, opos, oidx, false, nil
		sg.vals = ovals
	}
}

// maxOuterColumns bounds the dense workspace of segOuterTop (two int32 per
// column: 256 MiB at the bound) for matrices with few entries per column.
const maxOuterColumns = 1 << 25

// outerProductFactors matches a product of reals made of loop-invariant
// factors (expressions mentioning none of bound), v1 exactly once and v2
// exactly once, as in an outer product's c * v1 * v2. It compiles the
// invariant factors and reports whether val has that shape.
func (c *compiler) outerProductFactors(val sdql.Expr, env *scope, v1, v2 string, bound ...string) ([]fexpr, bool) {
	var inv []fexpr
	n1, n2 := 0, 0
	var walk func(x sdql.Expr) bool
	walk = func(x sdql.Expr) bool {
		if !mentions(x, bound...) {
			inv = append(inv, c.real(x, env))
			return true
		}
		switch x := x.(type) {
		case *sdql.BinaryExpr:
			if x.Op == sdql.MUL && kindOf(c.typeOf(x.X)) == kReal && kindOf(c.typeOf(x.Y)) == kReal {
				return walk(x.X) && walk(x.Y)
			}
		case *sdql.Ident:
			switch x.Name {
			case v1:
				n1++
				return true
			case v2:
				n2++
				return true
			}
		}
		return false
	}
	return inv, walk(val) && n1 == 1 && n2 == 1
}
