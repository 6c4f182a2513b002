package exec

import (
	"github.com/nablasd/nablasd/lower"
)

// Primitive loops: the loops lowering marks with a primitive (lower.Rules)
// run as one Go loop per lane of the columnar batch around them, instead
// of flattening their iterations into a child batch: the innermost loops
// of sparse code are short (a row's entries), and flattening them costs
// more than they do.
//
//	SegDot:     for p := lo; p < hi; p++ { [j := I[p]]; acc += F }
//	SegScatter: for p := lo; p < hi; p++ { [j := I[p]]; [v := F]; q := insert(T.level0[0], j); T.val[q] += v }
//
// The factors of F that are neither A[p] nor X[j] are evaluated once per
// lane (a column of the lanes' level, or a scalar the same for all), and
// multiplied into each lane's sum, not into each term: the sum of a
// segment is a[1]*x[1] + ... then times the lane's factors, rounding
// differently from scaling each term.

// fusedLoop runs an inner loop of a columnar nest as its primitive, or
// returns nil when it has none (or the region cannot run it).
func (rg *region) fusedLoop(s *lower.For, l int) vstmt {
	m := s.Prim
	if m == nil || rg.c.opts.NoFast {
		return nil
	}
	if run := primitiveLoops[m.Name]; run != nil {
		return run(rg, s, l, m)
	}
	return nil
}

// primitiveLoops runs each primitive of lower.Rules, by the rule's name
// (TestPrimitiveLoops: every rule has one).
var primitiveLoops = map[string]func(rg *region, s *lower.For, l int, m *lower.Prim) vstmt{
	"SegDot": func(rg *region, s *lower.For, l int, m *lower.Prim) vstmt {
		if d, inner := rg.level[m.Acc]; inner && d != l {
			return nil // a sum into a grandparent's column: flatten it
		}
		return rg.segDot(s, l, m)
	},
	"Dot":        (*region).dot,
	"Fill":       (*region).fill,
	"MapRow":     (*region).mapRow,
	"SegScatter": (*region).segScatter,
	"SegStoreAt": (*region).segStoreAt,
	"SegAccum":   (*region).segAccum,
	"Map":        (*region).mapLoop,
}

// segBounds compiles a fused loop's bounds per lane.
type segBounds struct {
	ulo, uhi iexpr
	clo, chi icol
	lob, hib int
}

func (rg *region) segBounds(s *lower.For, l int) *segBounds {
	b := &segBounds{lob: rg.loBuf(l), hib: rg.hiBuf(l)}
	b.ulo, b.clo = rg.int(s.Lo, l, false)
	b.uhi, b.chi = rg.int(s.Hi, l, false)
	return b
}

func (b *segBounds) eval(fr *frame, cx *vctx, rg *region) ([]int, []int) {
	return bounds(fr, cx, b.ulo, b.clo, b.uhi, b.chi, rg, b.lob, b.hib)
}

// scale compiles the other factors of F: a function giving the lanes'
// products of them (scaler.at), without allocating.
func (rg *region) scale(factors []lower.Expr, l int) func(fr *frame, cx *vctx) scaler {
	var us []fexpr
	var cs []fcol
	for _, f := range factors {
		u, c := rg.real(f, l, false)
		if u != nil {
			us = append(us, u)
		} else {
			cs = append(cs, c)
		}
	}
	buf := -1
	if len(cs) > 1 {
		buf = rg.newF()
	}
	return func(fr *frame, cx *vctx) scaler {
		sc := scaler{u: 1}
		for _, g := range us {
			sc.u *= g(fr)
		}
		switch len(cs) {
		case 0:
		case 1:
			sc.col = cs[0](fr, cx)
		default:
			// the product of the columns, into the region's buffer
			prod := rg.fbuf(fr, buf, cx.n)
			copy(prod, cs[0](fr, cx))
			for _, c := range cs[1:] {
				for k, x := range c(fr, cx)[:len(prod)] {
					prod[k] *= x
				}
			}
			sc.col = prod
		}
		return sc
	}
}

// scaler is the lanes' product of a fused loop's other factors: u times
// col[k] (col nil: u for every lane).
type scaler struct {
	u   float64
	col []float64
}

func (sc scaler) at(k int) float64 {
	if sc.col == nil {
		return sc.u
	}
	return sc.u * sc.col[k]
}

func arrayID(a *lower.Array) int {
	if a == nil {
		return -1
	}
	return a.ID
}

// segDotRun is the sum over p in lo..hi-1 of A[p] times X[I[p]] (a
// factor nil: left out), the terms whose I[p] is not below bound (<=
// len(X)) left out. Its loops run over slices cut to the segment, so Go
// checks no index inside them but the guard's.
func segDotRun(I []int, A, X []float64, lo, hi int, bound uint) float64 {
	sum := 0.0
	switch {
	case X == nil:
		for _, a := range A[lo:hi] {
			sum += a
		}
	case A == nil:
		X := X[:bound]
		for _, j := range I[lo:hi] {
			if uint(j) < uint(len(X)) {
				sum += X[j]
			}
		}
	default:
		X := X[:bound]
		Is := I[lo:hi]
		As := A[lo:hi]
		As = As[:len(Is)]
		for p, j := range Is {
			if uint(j) < uint(len(X)) {
				sum += As[p] * X[j]
			}
		}
	}
	return sum
}

func (rg *region) segDot(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	var guard iexpr
	if m.Bound != nil {
		guard = rg.c.int(m.Bound)
	}
	ai, xi, ii := arrayID(m.Vals), arrayID(m.Gather), arrayID(m.Idx)
	d, inner := rg.level[m.Acc]
	accSlot, accID := -1, m.Acc.ID
	if inner && d == l {
		accSlot = rg.fcol[m.Acc]
	}
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		var A, X []float64
		var I []int
		if ai >= 0 {
			A = fr.fa[ai]
		}
		if xi >= 0 {
			X = fr.fa[xi]
		}
		if ii >= 0 {
			I = fr.ia[ii]
		}
		bound := uint(len(X))
		if guard != nil {
			bound = uint(min(max(guard(fr), 0), len(X)))
		}
		var col []float64
		total := 0.0
		if accSlot >= 0 {
			col = fr.regions[rg.id].f[accSlot]
		} else {
			total = fr.f[accID]
		}
		for k := 0; k < cx.n; k++ {
			var sum float64
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue // no term: nothing is added (not 0 times the factors)
			}
			if A == nil && X == nil {
				sum = float64(max(hi-lo, 0))
			} else {
				sum = segDotRun(I, A, X, lo, hi, bound)
			}
			v := sum * sc.at(k)
			if accSlot >= 0 {
				col[k] += v
			} else {
				total += v
			}
		}
		if accSlot < 0 {
			fr.f[accID] = total
		}
	}
}

// laneInt is an int expression over a batch's lanes: the same for every
// lane (u) or a column (c); nil when there is none.
type laneInt struct {
	u iexpr
	c icol
}

func (rg *region) laneInt(e lower.Expr, l int) *laneInt {
	if e == nil {
		return nil
	}
	u, c := rg.int(e, l, false)
	return &laneInt{u, c}
}

// laneInts is a laneInt's value in one batch: v for every lane, col[k]
// for lane k, or (seq) v + step·k.
type laneInts struct {
	v, step int
	col     []int
	seq     bool
}

func (li *laneInt) eval(fr *frame, cx *vctx) laneInts {
	switch {
	case li == nil:
		return laneInts{}
	case li.c != nil:
		return laneInts{col: li.c(fr, cx)}
	}
	return laneInts{v: li.u(fr)}
}

func (v laneInts) at(k int) int {
	switch {
	case v.col != nil:
		return v.col[k]
	case v.seq:
		return v.v + v.step*k
	}
	return v.v
}

// column is the lanes' values as a column (into buf where they are not
// one).
func (v laneInts) column(buf []int) []int {
	switch {
	case v.col != nil:
		return v.col
	case v.seq:
		for k := range buf {
			buf[k] = v.v + v.step*k
		}
	default:
		fill(buf, v.v)
	}
	return buf
}

// dot runs a Dot: acc += c·Σ A[oa+sa·i]·B[ob+sb·i] over each lane's
// range, the offsets per lane; an offset range outside an array fails as
// its load would.
func (rg *region) dot(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	opA := rg.operand(m.Vals, m.ValsOf, m.Off, m.Stride, l)
	opB := rg.operand(m.Vals2, m.ValsOf2, m.Off2, m.Stride2, l)
	unit := opA.stride == 1 && (opB == nil || opB.stride == 1)
	d, inner := rg.level[m.Acc]
	accSlot, accID := -1, m.Acc.ID
	if inner {
		accSlot = rg.fcol[m.Acc] // at the lanes' level, or an ancestor's (cx.anc)
		if d != l {
			rg.useAnc(d, l)
		}
	}
	sums, offs, offs2 := rg.newF(), rg.newI(), rg.newI() // a lane-major batch's sums, offsets
	uniform := bs.ulo != nil && bs.uhi != nil
	return func(fr *frame, cx *vctx) {
		// the lanes' ranges: one for all (uniform: no columns), or per lane
		var los, his []int
		lo, hi, same := 0, 0, true
		if uniform {
			lo, hi = bs.ulo(fr), bs.uhi(fr)
			if lo >= hi {
				return // no lane has a term: nothing is added
			}
		} else {
			los, his = bs.eval(fr, cx, rg)
			lo, hi, same = sameRange(los, his)
		}
		sc := scale(fr, cx)
		A, oa := opA.eval(fr, cx)
		B, ob := opB.eval(fr, cx)
		var col []float64
		total := 0.0
		if accSlot >= 0 {
			col = fr.regions[rg.id].f[accSlot]
		} else {
			total = fr.f[accID]
		}
		if same && hi-lo <= laneMajorTerms && (oa.col != nil || oa.seq || ob.col != nil || ob.seq) {
			laneSums := rg.fbuf(fr, sums, cx.n)
			laneMajorDot(laneSums, A, oa, opA.stride, B, ob, opB.step(), lo, hi, rg.ibuf(fr, offs, cx.n), rg.ibuf(fr, offs2, cx.n))
			switch {
			case accSlot < 0:
				for k, sum := range laneSums {
					total += sum * sc.at(k)
				}
				fr.f[accID] = total
			case d == l && sc.col == nil:
				col, u := col[:len(laneSums)], sc.u
				for k, sum := range laneSums {
					col[k] += sum * u
				}
			case d == l:
				col = col[:len(laneSums)]
				for k, sum := range laneSums {
					col[k] += sum * sc.at(k)
				}
			default:
				anc := cx.anc[d][:len(laneSums)]
				for k, sum := range laneSums {
					col[anc[k]] += sum * sc.at(k)
				}
			}
			return
		}
		for k := 0; k < cx.n; k++ {
			if los != nil {
				lo, hi = los[k], his[k]
				if lo >= hi {
					continue
				}
			}
			var sum float64
			if unit {
				// forward: the slices' loops, which Go compiles without
				// bounds checks
				o := oa.at(k)
				a := A[o+lo : o+hi : len(A)]
				if B != nil {
					o := ob.at(k)
					b := B[o+lo : o+hi : len(B)]
					b = b[:len(a)]
					for i, x := range a {
						sum += x * b[i]
					}
				} else {
					for _, x := range a {
						sum += x
					}
				}
			} else {
				sum = stridedDot(A, oa.at(k), opA.stride, B, ob.at(k), opB.step(), lo, hi)
			}
			v := sum * sc.at(k)
			switch {
			case accSlot < 0:
				total += v
			case d == l:
				col[k] += v
			default:
				col[cx.anc[d][k]] += v
			}
		}
		if accSlot < 0 {
			fr.f[accID] = total
		}
	}
}

// laneMajorTerms is the most terms per lane a Dot sums lane-major: a
// short dot (a band's or a filter's taps) costs less as one pass over the
// batch's lanes per term than as one loop per lane, whose overhead is as
// large as its few terms and whose additions wait on each other (the
// lanes' are independent: a 31-tap correlation's value ran in half the
// time); past it, a pass per term over offsets of scattered rows touches
// too many cache lines at once.
const laneMajorTerms = 64

// sameRange reports whether every lane has the same range lo..hi
// (non-empty), and returns it.
func sameRange(los, his []int) (int, int, bool) {
	if len(los) == 0 {
		return 0, 0, false
	}
	lo, hi := los[0], his[0]
	if lo >= hi {
		return 0, 0, false
	}
	his = his[:len(los)]
	for k, x := range los {
		if x != lo || his[k] != hi {
			return 0, 0, false
		}
	}
	return lo, hi, true
}

// laneMajorDot sets sums[k] to lane k's dot, Σ_{lo <= i < hi} A[oa_k +
// sa·i]·B[ob_k + sb·i] (B nil: of A alone), term by term over all the
// lanes: the terms of each lane are added in the order of i, as the
// lane's own loop adds them. Consecutive offsets (seq) read a slice per
// term; ibuf is scratch for an offset column. A read outside an array
// panics as its load would.
func laneMajorDot(sums, A []float64, oa laneInts, sa int, B []float64, ob laneInts, sb, lo, hi int, ibuf, ibuf2 []int) {
	clear(sums)
	n := len(sums)
	// consecutive offsets read slices; at another step, a column
	unitA, unitB := oa.seq && oa.step == 1, ob.seq && ob.step == 1
	switch {
	case B == nil && unitA:
		for i := lo; i < hi; i++ {
			a := A[oa.v+sa*i : oa.v+sa*i+n]
			for k, x := range a {
				sums[k] += x
			}
		}
		return
	case unitA && unitB:
		for i := lo; i < hi; i++ {
			a := A[oa.v+sa*i : oa.v+sa*i+n]
			b := B[ob.v+sb*i : ob.v+sb*i+n]
			for k, x := range a {
				sums[k] += x * b[k]
			}
		}
		return
	case oa.seq && B != nil && !ob.seq && ob.col == nil:
		axpyTerms(sums, A, oa.v, sa, oa.step, B, ob.v, sb, lo, hi)
		return
	case ob.seq && !oa.seq && oa.col == nil:
		axpyTerms(sums, B, ob.v, sb, ob.step, A, oa.v, sa, lo, hi)
		return
	}
	if oa.seq {
		oa = laneInts{col: oa.column(ibuf[:n])}
	}
	if ob.seq {
		ob = laneInts{col: ob.column(ibuf2[:n])}
	}
	if B == nil {
		a := oa.col[:n]
		for i := lo; i < hi; i++ {
			for k, o := range a {
				sums[k] += A[o+sa*i]
			}
		}
		return
	}
	switch {
	case oa.col != nil && ob.col != nil:
		a, b := oa.col[:n], ob.col[:n]
		for i := lo; i < hi; i++ {
			for k, o := range a {
				sums[k] += A[o+sa*i] * B[b[k]+sb*i]
			}
		}
	case ob.col == nil:
		a := oa.col[:n]
		for i := lo; i < hi; i++ {
			c := B[ob.v+sb*i]
			for k, o := range a {
				sums[k] += A[o+sa*i] * c
			}
		}
	default:
		b := ob.col[:n]
		for i := lo; i < hi; i++ {
			c := A[oa.v+sa*i]
			for k, o := range b {
				sums[k] += c * B[o+sb*i]
			}
		}
	}
}

// axpyTerms adds Σ_{lo <= i < hi} X[ox + sx·i + step·k]·C[oc + sc·i]
// into sums[k], the terms in the order of i: four terms per pass over
// sums, each lane's partial sum in a register between them.
func axpyTerms(sums, X []float64, ox, sx, step int, C []float64, oc, sc, lo, hi int) {
	n := len(sums)
	if step != 1 {
		axpyTermsStep(sums, X, ox, sx, step, C, oc, sc, lo, hi)
		return
	}
	i := lo
	for ; i+4 <= hi; i += 4 {
		c0, c1, c2, c3 := C[oc+sc*i], C[oc+sc*(i+1)], C[oc+sc*(i+2)], C[oc+sc*(i+3)]
		x0 := X[ox+sx*i : ox+sx*i+n]
		x1 := X[ox+sx*(i+1) : ox+sx*(i+1)+n]
		x2 := X[ox+sx*(i+2) : ox+sx*(i+2)+n]
		x3 := X[ox+sx*(i+3) : ox+sx*(i+3)+n]
		for k, s := range sums {
			s += x0[k] * c0
			s += x1[k] * c1
			s += x2[k] * c2
			s += x3[k] * c3
			sums[k] = s
		}
	}
	for ; i < hi; i++ {
		c := C[oc+sc*i]
		x := X[ox+sx*i : ox+sx*i+n]
		for k, s := range sums {
			sums[k] = s + x[k]*c
		}
	}
}

// axpyTermsStep is axpyTerms at a step other than 1 (a strided filter's
// lanes, x(2i + k)).
func axpyTermsStep(sums, X []float64, ox, sx, step int, C []float64, oc, sc, lo, hi int) {
	i := lo
	for ; i+8 <= hi; i += 8 {
		c0, c1, c2, c3 := C[oc+sc*i], C[oc+sc*(i+1)], C[oc+sc*(i+2)], C[oc+sc*(i+3)]
		c4, c5, c6, c7 := C[oc+sc*(i+4)], C[oc+sc*(i+5)], C[oc+sc*(i+6)], C[oc+sc*(i+7)]
		o := ox + sx*i
		for k, s := range sums {
			p := o + step*k
			s += X[p] * c0
			s += X[p+sx] * c1
			s += X[p+2*sx] * c2
			s += X[p+3*sx] * c3
			s += X[p+4*sx] * c4
			s += X[p+5*sx] * c5
			s += X[p+6*sx] * c6
			s += X[p+7*sx] * c7
			sums[k] = s
		}
	}
	for ; i+4 <= hi; i += 4 {
		c0, c1, c2, c3 := C[oc+sc*i], C[oc+sc*(i+1)], C[oc+sc*(i+2)], C[oc+sc*(i+3)]
		o0, o1, o2, o3 := ox+sx*i, ox+sx*(i+1), ox+sx*(i+2), ox+sx*(i+3)
		for k, s := range sums {
			p := step * k
			s += X[o0+p] * c0
			s += X[o1+p] * c1
			s += X[o2+p] * c2
			s += X[o3+p] * c3
			sums[k] = s
		}
	}
	for ; i < hi; i++ {
		c, o := C[oc+sc*i], ox+sx*i
		for k, s := range sums {
			sums[k] = s + X[o+step*k]*c
		}
	}
}

// operand is a Dot's or MapRow's operand compiled: an array's or a
// tensor's values read at off + stride·i (nil: no operand).
type operand struct {
	array, tensor int // IDs, -1 for the one it is not
	off           *laneInt
	stride        int
	// laneOff: off is laneOff + laneStep·v, v the lanes' loop variable
	// and laneOff the same for every lane (nil: it is not); in a batch of
	// consecutive positions (vctx.base) the offsets are then laneOff +
	// laneStep·(base + k), without a column
	laneOff  iexpr
	laneStep int
}

func (rg *region) operand(a *lower.Array, t *lower.Tensor, off lower.Expr, stride, l int) *operand {
	if a == nil && t == nil {
		return nil
	}
	o := &operand{array: -1, tensor: -1, stride: stride}
	if a != nil {
		o.array = a.ID
	} else {
		o.tensor = t.ID
	}
	lv := rg.loopVar[l]
	if lv != nil {
		if c, s, ok := lower.StrideOf(rg.intLets(off), lv); ok && !rg.varies(c) {
			// the column only where the batch's positions are not
			// consecutive, which forStmt then fills (as loadCol's)
			// (the lets read through: the column of c := 2·i is then
			// not read, and Block drops its let)
			reads := rg.colReads[lv]
			o.off = rg.laneInt(rg.intLets(off), l)
			rg.colReads[lv] = reads
			o.laneOff, o.laneStep = rg.c.int(c), s
			return o
		}
	}
	o.off = rg.laneInt(off, l)
	return o
}

// intLets is the int expression e with the nest's int lets read through
// (c + k, c := 2·i, is 2·i + k), to a depth of a few lets.
func (rg *region) intLets(e lower.Expr) lower.Expr { return rg.readLets(e, 4) }

func (rg *region) readLets(e lower.Expr, depth int) lower.Expr {
	switch x := e.(type) {
	case *lower.Ref:
		if d := rg.intLet[x.V]; d != nil && depth > 0 {
			return rg.readLets(d, depth-1)
		}
	case *lower.Binary:
		a, b := rg.readLets(x.X, depth), rg.readLets(x.Y, depth)
		if a != x.X || b != x.Y {
			return &lower.Binary{Op: x.Op, X: a, Y: b}
		}
	}
	return e
}

// step is the operand's stride (0 for no operand).
func (o *operand) step() int {
	if o == nil {
		return 0
	}
	return o.stride
}

// eval is the operand's values (nil for no operand) and its lanes'
// offsets.
func (o *operand) eval(fr *frame, cx *vctx) ([]float64, laneInts) {
	switch {
	case o == nil:
		return nil, laneInts{}
	}
	var vals []float64
	if o.array >= 0 {
		vals = fr.fa[o.array]
	} else {
		vals = fr.t[o.tensor].vals
	}
	if o.laneOff != nil && cx.base >= 0 {
		return vals, laneInts{v: o.laneOff(fr) + o.laneStep*cx.base, step: o.laneStep, seq: true}
	}
	return vals, o.off.eval(fr, cx)
}

// window is the part of A that n reads from index first at stride s
// cover, and the index in it of the first read; a read outside A
// panics as its load would.
func window(A []float64, first, s, n int) ([]float64, int) {
	last := first + s*(n-1)
	if s > 0 {
		return A[first : last+1 : len(A)], 0
	}
	return A[last : first+1 : len(A)], first - last
}

// stridedDot is the sum over i in lo..hi-1 (hi > lo) of A[oa + sa·i] times
// B[ob + sb·i] (B nil: of A[oa + sa·i] alone), added in the order of i.
func stridedDot(A []float64, oa, sa int, B []float64, ob, sb, lo, hi int) float64 {
	n := hi - lo
	a, pa := window(A, oa+sa*lo, sa, n)
	sum := 0.0
	if B == nil {
		if sa == 1 {
			for _, x := range a {
				sum += x
			}
			return sum
		}
		for range n {
			sum += a[pa]
			pa += sa
		}
		return sum
	}
	b, pb := window(B, ob+sb*lo, sb, n)
	if sb == 1 && sa != 1 {
		// x·y is y·x: the forward operand first
		a, pa, sa, b, pb, sb = b, pb, sb, a, pa, sa
	}
	switch {
	case sa == 1 && sb == 1:
		a, b = a[:n], b[:n]
		for i, x := range a {
			sum += x * b[i]
		}
	case sa == 1 && sb == -1:
		a = a[:n]
		for i, x := range a {
			sum += x * b[pb-i]
		}
	default:
		for range n {
			sum += a[pa] * b[pb]
			pa += sa
			pb += sb
		}
	}
	return sum
}

// rowMap is what a MapRow's two runs (mapRow, which adds, and setRow,
// which assigns) compile of it alike.
type rowMap struct {
	bs          *segBounds
	scale       func(fr *frame, cx *vctx) scaler
	row, keyOff *laneInt // the row Q, the keys' offset KeyOff
	opA, opB    *operand
	t, lv       int  // Dst and its last level
	grows       bool // a vector's unmarked level, grown past its end
}

func (rg *region) rowMap(s *lower.For, l int, m *lower.Prim) rowMap {
	lv := len(m.Dst.Levels) - 1
	return rowMap{
		bs:     rg.segBounds(s, l),
		scale:  rg.scale(m.Factors, l),
		row:    rg.laneInt(m.Parent, l),
		keyOff: rg.laneInt(m.KeyOff, l),
		opA:    rg.operand(m.Vals, m.ValsOf, m.Off, m.Stride, l),
		opB:    rg.operand(m.Vals2, m.ValsOf2, m.Off2, m.Stride2, l),
		t:      m.Dst.ID, lv: lv,
		grows: !m.Dst.Levels[lv].Full,
	}
}

// mapRow runs a MapRow: row Q of the last, dense and full level of Dst
// gets c·A[oa+sa·i]·B[ob+sb·i] added at i (assigned: m.Set), over each
// lane's range.
func (rg *region) mapRow(s *lower.For, l int, m *lower.Prim) vstmt {
	if m.Set {
		return rg.setRow(s, l, m)
	}
	r := rg.rowMap(s, l, m)
	bs, scale, row, keyOff, opA, opB, t, lv, grows := r.bs, r.scale, r.row, r.keyOff, r.opA, r.opB, r.t, r.lv, r.grows
	unit := opA.stride == 1 && (opB == nil || opB.stride == 1)
	cbuf, obuf := rg.newF(), rg.newI() // a lane-major batch's factors, offsets
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		A, oa := opA.eval(fr, cx)
		B, ob := opB.eval(fr, cx)
		qs, kos := row.eval(fr, cx), keyOff.eval(fr, cx)
		rt := fr.t[t]
		n := rt.levels[lv].size
		if lo, hi, same := sameRange(los, his); same && hi-lo <= laneMajorTerms && B == nil && qs.col == nil && kos.col == nil && cx.n > 1 {
			// every lane adds into the same window of the same row:
			// window by window over the lanes, each entry's additions
			// in the order of the lanes, as the lanes' own loops add them
			ko, q := kos.v, qs.v
			if ko+lo < 0 || ko+hi > n {
				n = growOrPanic(rt, lv, grows, ko+lo, ko+hi)
			}
			dst := rt.vals[q*n+ko+lo : q*n+ko+hi]
			cs := rg.fbuf(fr, cbuf, cx.n)
			for k := range cs {
				cs[k] = sc.at(k)
			}
			laneMajorRow(dst, cs, A, oa.column(rg.ibuf(fr, obuf, cx.n)), opA.stride, lo)
			return
		}
		if lo, hi, same := sameRange(los, his); same && B == nil && qs.col == nil && unit && oa.col == nil && !oa.seq && cx.n > 1 {
			// every lane adds the same window of A, scaled, at keys
			// that step by a constant d > 0 from lane to lane (a
			// strided scatter's windows, x̄(2i + k) += ȳ(i)·K(k)):
			// lane by lane into one slice of the row, without a lane's
			// bounds and slicing; each entry's additions in the order
			// of the lanes, as the lanes' own loops add them
			if ko0, d, ok := steps(kos, cx.n); ok && d > 0 {
				first, last := ko0+lo, ko0+d*(cx.n-1)+hi
				if first >= 0 && last <= n {
					q := qs.v
					dst := rt.vals[q*n+first : q*n+last]
					a := A[oa.v+lo : oa.v+hi : len(A)]
					stridedRows(dst, a, d, sc, cx.n)
					return
				}
			}
		}
		for k := 0; k < cx.n; k++ {
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			ko := 0 // the keys: ko + lo .. ko + hi - 1
			if keyOff != nil {
				ko = kos.at(k)
			}
			if ko+lo < 0 || ko+hi > n {
				n = growOrPanic(rt, lv, grows, ko+lo, ko+hi)
			}
			q, c := qs.at(k), sc.at(k)
			dst := rt.vals[q*n+ko+lo : q*n+ko+hi]
			if unit {
				// forward: the slices' loops, which Go compiles without
				// bounds checks
				o := oa.at(k)
				a := A[o+lo : o+hi : len(A)]
				a = a[:len(dst)]
				if B == nil {
					for i, x := range a {
						dst[i] += c * x
					}
					continue
				}
				o = ob.at(k)
				b := B[o+lo : o+hi : len(B)]
				b = b[:len(dst)]
				for i, x := range a {
					dst[i] += c * x * b[i]
				}
				continue
			}
			sa, sb := opA.stride, opB.step()
			a, pa := window(A, oa.at(k)+sa*lo, sa, len(dst))
			if B == nil {
				for i := range dst {
					dst[i] += c * a[pa]
					pa += sa
				}
				continue
			}
			b, pb := window(B, ob.at(k)+sb*lo, sb, len(dst))
			for i := range dst {
				dst[i] += c * a[pa] * b[pb]
				pa += sa
				pb += sb
			}
		}
	}
}

// growOrPanic is a MapRow's path for a window [from, to) of keys outside
// its row of rt's last level lv: a level that grows (a vector's unmarked
// one) is grown to take it, as an insert past its end would grow it, and
// its new size returned; a window still outside panics as such an
// insert would.
func growOrPanic(rt *tensor, lv int, grows bool, from, to int) int {
	n := rt.levels[lv].size
	if grows && to > n && from >= 0 {
		rt.growDense(lv, to)
		n = rt.levels[lv].size
	}
	if from < 0 || to > n {
		panic(outOfRow(from, n))
	}
	return n
}

// steps reports whether the lanes' values are v + d·k for lane k, and v
// and d.
func steps(v laneInts, n int) (int, int, bool) {
	switch {
	case v.seq:
		return v.v, v.step, true
	case v.col == nil:
		return v.v, 0, true
	}
	col := v.col[:n]
	if n < 2 {
		return col[0], 0, true
	}
	d := col[1] - col[0]
	for k, x := range col {
		if x != col[0]+d*k {
			return 0, 0, false
		}
	}
	return col[0], d, true
}

// stridedRows adds sc(k)·a into dst at d·k, for each lane k in order.
func stridedRows(dst, a []float64, d int, sc scaler, n int) {
	for k := 0; k < n; k++ {
		c := sc.at(k)
		w := dst[d*k : d*k+len(a)]
		for i, x := range a {
			w[i] += c * x
		}
	}
}

// setRow runs a MapRow whose store assigns (each position written once,
// lower.WriteOnce): row Q of Dst set to c·A[oa+sa·i]·B[ob+sb·i] at
// KeyOff + i, lane by lane.
func (rg *region) setRow(s *lower.For, l int, m *lower.Prim) vstmt {
	r := rg.rowMap(s, l, m)
	bs, scale, row, keyOff, opA, opB, t, lv, grows := r.bs, r.scale, r.row, r.keyOff, r.opA, r.opB, r.t, r.lv, r.grows
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		A, oa := opA.eval(fr, cx)
		B, ob := opB.eval(fr, cx)
		qs, kos := row.eval(fr, cx), keyOff.eval(fr, cx)
		rt := fr.t[t]
		n := rt.levels[lv].size
		sa, sb := opA.stride, opB.step()
		for k := 0; k < cx.n; k++ {
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			ko := 0
			if keyOff != nil {
				ko = kos.at(k)
			}
			if ko+lo < 0 || ko+hi > n {
				n = growOrPanic(rt, lv, grows, ko+lo, ko+hi)
			}
			q, c := qs.at(k), sc.at(k)
			dst := rt.vals[q*n+ko+lo : q*n+ko+hi]
			a, pa := window(A, oa.at(k)+sa*lo, sa, len(dst))
			if B == nil {
				for i := range dst {
					dst[i] = c * a[pa]
					pa += sa
				}
				continue
			}
			b, pb := window(B, ob.at(k)+sb*lo, sb, len(dst))
			for i := range dst {
				dst[i] = c * a[pa] * b[pb]
				pa += sa
				pb += sb
			}
		}
	}
}

// laneMajorRow adds c[k]·A[o[k] + s·(lo + j)] into dst[j] for every
// lane k and every j, each entry's terms in the order of the lanes (a
// MapRow of lanes sharing one window, lane-major), eight (then four)
// entries per pass over the lanes, their sums in registers. A read outside A panics as its
// load would.
func laneMajorRow(dst, c []float64, A []float64, o []int, s, lo int) {
	o = o[:len(c)]
	j := 0
	if n := len(c); n > 0 && o[n-1]-o[0] == n-1 && consecutive(o) {
		// consecutive offsets: each entry's terms are a slice of A
		for ; j+8 <= len(dst); j += 8 {
			d := dst[j : j+8]
			s0, s1, s2, s3, s4, s5, s6, s7 := d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
			p := o[0] + s*(lo+j)
			a0, a1, a2, a3 := A[p:p+n], A[p+s:p+s+n], A[p+2*s:p+2*s+n], A[p+3*s:p+3*s+n]
			a4, a5, a6, a7 := A[p+4*s:p+4*s+n], A[p+5*s:p+5*s+n], A[p+6*s:p+6*s+n], A[p+7*s:p+7*s+n]
			for k, ck := range c {
				s0 += ck * a0[k]
				s1 += ck * a1[k]
				s2 += ck * a2[k]
				s3 += ck * a3[k]
				s4 += ck * a4[k]
				s5 += ck * a5[k]
				s6 += ck * a6[k]
				s7 += ck * a7[k]
			}
			d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = s0, s1, s2, s3, s4, s5, s6, s7
		}
	}
	for ; j+8 <= len(dst); j += 8 {
		d := dst[j : j+8]
		s0, s1, s2, s3, s4, s5, s6, s7 := d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
		base := s * (lo + j)
		for k, ok := range o {
			p, ck := ok+base, c[k]
			s0 += ck * A[p]
			s1 += ck * A[p+s]
			s2 += ck * A[p+2*s]
			s3 += ck * A[p+3*s]
			s4 += ck * A[p+4*s]
			s5 += ck * A[p+5*s]
			s6 += ck * A[p+6*s]
			s7 += ck * A[p+7*s]
		}
		d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7] = s0, s1, s2, s3, s4, s5, s6, s7
	}
	for ; j+4 <= len(dst); j += 4 {
		d := dst[j : j+4]
		s0, s1, s2, s3 := d[0], d[1], d[2], d[3]
		base := s * (lo + j)
		for k, ok := range o {
			p, ck := ok+base, c[k]
			s0 += ck * A[p]
			s1 += ck * A[p+s]
			s2 += ck * A[p+2*s]
			s3 += ck * A[p+3*s]
		}
		d[0], d[1], d[2], d[3] = s0, s1, s2, s3
	}
	for ; j < len(dst); j++ {
		sum, base := dst[j], s*(lo+j)
		for k, ok := range o {
			sum += c[k] * A[ok+base]
		}
		dst[j] = sum
	}
}

// consecutive reports whether o[k] = o[0] + k for every k.
func consecutive(o []int) bool {
	for k, x := range o {
		if x != o[0]+k {
			return false
		}
	}
	return true
}

// outOfRow is the error of a lane's range lo..hi that leaves a dense
// result's row of n entries (lo below 0, or hi past n): the one its first
// insert out of the row would fail with.
func outOfRow(lo, n int) *rtError {
	key := lo
	if lo >= 0 {
		key = n
	}
	return rtErrorf("key %d out of range 0..%d of a dense result", key, n-1)
}

// fill runs a Fill: row q of a dense result's last level set to c over
// each lane's range (or c added to each entry), as one loop over the
// row's slice; a range outside the row fails as its insert would.
func (rg *region) fill(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	row, t := rg.laneInt(m.Parent, l), m.Dst.ID
	lv := len(m.Dst.Levels) - 1
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		qs := row.eval(fr, cx)
		rt := fr.t[t]
		n := rt.levels[lv].size
		for k := 0; k < cx.n; k++ {
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			if lo < 0 || hi > n {
				panic(outOfRow(lo, n))
			}
			q, c := qs.at(k), sc.at(k)
			dst := rt.vals[q*n+lo : q*n+hi]
			if m.Set {
				fillRow(dst, c)
				continue
			}
			for i := range dst {
				dst[i] += c
			}
		}
	}
}

func (rg *region) segScatter(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	ai, ii, t := arrayID(m.Vals), m.Idx.ID, m.Dst.ID
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		I := fr.ia[ii]
		var A []float64
		if ai >= 0 {
			A = fr.fa[ai]
		}
		rt := fr.t[t]
		for k := 0; k < cx.n; k++ {
			c := sc.at(k)
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			for lo < hi {
				// the longest run of keys inside the dense level, as one
				// tight loop; a key past it grows the level (or fails)
				lev := rt.levels[0]
				p := scatterRun(I[lo:hi], A, lo, c, lev.present, rt.vals[:lev.size])
				lo += p
				if lo < hi {
					rt.insert(0, 0, I[lo])
				}
			}
		}
	}
}

// scatterRun adds c·A[off+p] (c where A is nil) at vals[I[p]] for the
// leading keys of I inside vals, marking them present (present nil: the
// level is full), and returns how many it took.
func scatterRun(I []int, A []float64, off int, c float64, present []bool, vals []float64) int {
	n := uint(len(vals))
	switch {
	case present == nil && A != nil:
		A := A[off : off+len(I)]
		for p, j := range I {
			if uint(j) >= n {
				return p
			}
			vals[j] += A[p] * c
		}
	case present == nil:
		for p, j := range I {
			if uint(j) >= n {
				return p
			}
			vals[j] += c
		}
	default:
		present = present[:n]
		for p, j := range I {
			if uint(j) >= n {
				return p
			}
			present[j] = true
			if A != nil {
				vals[j] += A[off+p] * c
			} else {
				vals[j] += c
			}
		}
	}
	return len(I)
}

func (rg *region) segStoreAt(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	var guard iexpr
	if m.Bound != nil {
		guard = rg.c.int(m.Bound)
	}
	ai, xi, ii, t := arrayID(m.Vals), arrayID(m.Gather), arrayID(m.Idx), m.Dst.ID
	lv := len(m.Dst.Levels) - 1
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		var A, X []float64
		var I []int
		if ai >= 0 {
			A = fr.fa[ai]
		}
		if xi >= 0 {
			X, I = fr.fa[xi], fr.ia[ii]
		}
		bound := uint(len(X))
		if guard != nil {
			bound = uint(min(max(guard(fr), 0), len(X)))
		}
		rt := fr.t[t]
		present, vals := rt.levels[lv].present, rt.vals
		full := present == nil // lower.FullPositions: no marks, values zero since the init
		n := len(rt.levels[lv].idx)
		if full && m.Set && A == nil && X == nil {
			// a scalar set over each lane's row, the commonest full
			// store: no call per lane
			for k := 0; k < cx.n; k++ {
				lo, hi := los[k], his[k]
				if lo >= hi {
					continue
				}
				if lo < 0 || hi > n {
					panic(rtErrorf("positions %d..%d out of range 0..%d of a positions level", lo, hi-1, n-1))
				}
				c, vs := sc.at(k), vals[lo:hi]
				for p := range vs {
					vs[p] = c
				}
			}
			return
		}
		for k := 0; k < cx.n; k++ {
			c := sc.at(k)
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			if lo < 0 || hi > n {
				panic(rtErrorf("positions %d..%d out of range 0..%d of a positions level", lo, hi-1, n-1))
			}
			vs := vals[lo:hi]
			if full {
				segStoreFull(vs, m.Set, c, A, X, I, lo, hi, bound)
				continue
			}
			pr := present[lo:hi]
			switch {
			case m.Set && X == nil:
				// each position stored once (lower.WriteOnce)
				for p := range pr {
					pr[p] = true
				}
				if A == nil {
					for p := range vs {
						vs[p] = c
					}
				} else {
					for p, a := range A[lo:hi] {
						vs[p] = c * a
					}
				}
			case A == nil && X == nil:
				for p := range pr {
					if !pr[p] {
						pr[p], vs[p] = true, c
					} else {
						vs[p] += c
					}
				}
			case X == nil:
				as := A[lo:hi]
				for p := range pr {
					if !pr[p] {
						pr[p], vs[p] = true, c*as[p]
					} else {
						vs[p] += c * as[p]
					}
				}
			default:
				for p := lo; p < hi; p++ {
					v := c
					if A != nil {
						v *= A[p]
					}
					if j := uint(I[p]); j >= bound {
						v = 0
					} else {
						v *= X[j]
					}
					if !present[p] || m.Set {
						present[p] = true
						vals[p] = 0
					}
					vals[p] += v
				}
			}
		}
	}
}

// segStoreFull stores (set) or adds c [* A[p]] [* X[I[p]], 0 past bound]
// into vs = vals[lo:hi], the positions of a full Positions level's row
// (no marks: every position is present with its row, zero since the
// init).
func segStoreFull(vs []float64, set bool, c float64, A, X []float64, I []int, lo, hi int, bound uint) {
	switch {
	case X == nil && A == nil && set:
		for p := range vs {
			vs[p] = c
		}
	case X == nil && A == nil:
		for p := range vs {
			vs[p] += c
		}
	case X == nil && set:
		for p, a := range A[lo:hi] {
			vs[p] = c * a
		}
	case X == nil:
		for p, a := range A[lo:hi] {
			vs[p] += c * a
		}
	default:
		for p := lo; p < hi; p++ {
			v := c
			if A != nil {
				v *= A[p]
			}
			if j := uint(I[p]); j >= bound {
				v = 0
			} else {
				v *= X[j]
			}
			if set {
				vs[p-lo] = v
			} else {
				vs[p-lo] += v
			}
		}
	}
}

func (rg *region) segAccum(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	var guard iexpr
	if m.Bound != nil {
		guard = rg.c.int(m.Bound)
	}
	up, cp := rg.int(m.Parent, l, false)
	ai, xi, ii, t := arrayID(m.Vals), arrayID(m.Gather), m.Idx.ID, m.Dst.ID
	lv := len(m.Dst.Levels) - 1
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		var A, X []float64
		if ai >= 0 {
			A = fr.fa[ai]
		}
		if xi >= 0 {
			X = fr.fa[xi]
		}
		I := fr.ia[ii]
		bound := uint(len(X))
		if guard != nil {
			bound = uint(min(max(guard(fr), 0), len(X)))
		}
		var parents []int
		parent := 0
		if cp != nil {
			parents = cp(fr, cx)
		} else {
			parent = up(fr)
		}
		rt := fr.t[t]
		for k := 0; k < cx.n; k++ {
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			c := sc.at(k)
			if parents != nil {
				parent = parents[k]
			}
			lev := rt.levels[lv]
			if lev.kind == lower.Appended && A != nil && X == nil && hi-lo > 1 {
				// Gustavson's inner loop: the parent's workspace marks
				// find the keys it has, a new key is appended
				accumAppended(rt, lev, lv, parent, I[lo:hi], A[lo:hi], c)
				continue
			}
			if X == nil && lv == len(rt.levels)-1 && lev.kind == lower.Dense && lev.present == nil && (lv > 0 || lev.full) {
				// a row of a dense level whose every key is present (a
				// dense bundle's gradient, nablasd's bundleShape): the
				// scatter's tight loop over the row's values
				accumDenseRow(rt, lev, lv, parent, I, A, lo, hi, c)
				continue
			}
			for p := lo; p < hi; p++ {
				v := c
				if A != nil {
					v *= A[p]
				}
				j := I[p]
				if X != nil {
					if uint(j) >= bound {
						v = 0
					} else {
						v *= X[j]
					}
				}
				q := rt.insert(lv, parent, j)
				rt.vals[q] += v
			}
		}
	}
}

// accumDenseRow adds c·A[p] (c where A is nil) under parent at key I[p]
// of the last level lv, dense with every key present, for p in lo..hi-1:
// the runs of keys inside the row as scatterRun's loop, a key past it
// through insert (which fails, as it would have).
func accumDenseRow(rt *tensor, lev *level, lv, parent int, I []int, A []float64, lo, hi int, c float64) {
	for lo < hi {
		base := parent * lev.size
		if base < 0 || base+lev.size > len(rt.vals) {
			break
		}
		lo += scatterRun(I[lo:hi], A, lo, c, nil, rt.vals[base:base+lev.size])
		if lo < hi {
			v := c
			if A != nil {
				v *= A[lo]
			}
			q := rt.insert(lv, parent, I[lo])
			rt.vals[q] += v
			lo++
		}
	}
	for ; lo < hi; lo++ {
		v := c
		if A != nil {
			v *= A[lo]
		}
		q := rt.insert(lv, parent, I[lo])
		rt.vals[q] += v
	}
}

// accumAppended adds c·A[p] under parent at key I[p] of the Appended last
// level lv, for every p.
func accumAppended(rt *tensor, lev *level, lv, parent int, I []int, A []float64, c float64) {
	last := lv == len(rt.levels)-1
	start := 0
	if !last || lev.cur != parent || parent >= len(lev.head) || lev.head[parent] == 0 {
		// not yet the parent's burst: the first insert starts it (a
		// segment of a row under way, the common case, goes straight on)
		q := rt.insert(lv, parent, I[0])
		rt.vals[q] += A[0] * c
		start = 1
	}
	A = A[:len(I)]
	keys, vals, mark := lev.keys, rt.vals, lev.mark
	for p := start; p < len(I); p++ {
		j := I[p]
		if uint(j) < uint(len(mark)) && last {
			if m := mark[j]; m != 0 {
				vals[m-1] += A[p] * c
				continue
			}
			if len(keys) < cap(keys) && len(vals) < cap(vals) {
				// a new key of the burst: appended in place
				n := len(keys)
				keys = append(keys, j)
				vals = append(vals, A[p]*c)
				mark[j] = int32(n + 1)
				continue
			}
		}
		lev.keys, rt.vals = keys, vals
		lev.tail[parent] = int32(len(keys))
		q := rt.insert(lv, parent, j)
		rt.vals[q] += A[p] * c
		keys, vals, mark = lev.keys, rt.vals, lev.mark
	}
	lev.keys, rt.vals = keys, vals
	lev.tail[parent] = int32(len(keys))
}

// mapLoop runs a Map: vals[i] += c·A[i]·X[i] over each lane's range.
func (rg *region) mapLoop(s *lower.For, l int, m *lower.Prim) vstmt {
	bs := rg.segBounds(s, l)
	scale := rg.scale(m.Factors, l)
	var guard iexpr
	if m.Bound != nil {
		guard = rg.c.int(m.Bound)
	}
	ai, xi, t := arrayID(m.Vals), arrayID(m.Gather), m.Dst.ID
	return func(fr *frame, cx *vctx) {
		los, his := bs.eval(fr, cx, rg)
		sc := scale(fr, cx)
		var A, X []float64
		if ai >= 0 {
			A = fr.fa[ai]
		}
		xn := 0
		if xi >= 0 {
			X = fr.fa[xi]
			xn = len(X)
			if guard != nil {
				xn = min(max(guard(fr), 0), len(X))
			}
		}
		rt := fr.t[t]
		for k := 0; k < cx.n; k++ {
			lo, hi := los[k], his[k]
			if lo >= hi {
				continue
			}
			if lo < 0 {
				rt.insert(0, 0, lo) // fails: a negative key
			}
			if hi > rt.levels[0].size {
				rt.insert(0, 0, hi-1) // grows the level (or fails)
			}
			if A != nil && hi > len(A) || X != nil && m.Bound == nil && hi > len(X) {
				panic(rtErrorf("index %d out of range of an array of %d", hi-1, min(len(A), len(X))))
			}
			c := sc.at(k)
			lev := rt.levels[0]
			vals := rt.vals[lo:hi]
			if lev.present != nil {
				pr := lev.present[lo:hi]
				for i := range pr {
					pr[i] = true
				}
			}
			if d := rt.levels; len(d) == 2 && !d[1].full && !d[1].all {
				// a diagonal level's presence, a child per row
				pr := rt.levels[1].present[lo:hi]
				for i := range pr {
					pr[i] = true
				}
			}
			if m.Set {
				setMap(vals, A, X, lo, hi, xn, c)
				continue
			}
			switch {
			case A != nil && X == nil:
				as := A[lo:hi]
				for i := range vals {
					vals[i] += as[i] * c
				}
			case A == nil && X == nil:
				for i := range vals {
					vals[i] += c
				}
			case A == nil:
				// the lanes inside X's bound; past it X reads as 0
				if in := min(xn-lo, len(vals)); in > 0 {
					for i, x := range X[lo : lo+in] {
						vals[i] += x * c
					}
				}
			default:
				for i := lo; i < hi; i++ {
					v := c
					if A != nil {
						v *= A[i]
					}
					if X != nil {
						if i < xn {
							v *= X[i]
						} else {
							v = 0
						}
					}
					vals[i-lo] += v
				}
			}
		}
	}
}

// setMap runs a Map that assigns (lower.Prim.Set): vals[i-lo] = c·A[i]·X[i]
// for i in lo..hi, X reading as 0 from xn on. A copy where c is 1 and
// one array is read, a fill where none is.
func setMap(vals, A, X []float64, lo, hi, xn int, c float64) {
	switch {
	case A != nil && X == nil:
		as := A[lo:hi]
		if c == 1 {
			copy(vals, as)
			return
		}
		for i := range vals {
			vals[i] = as[i] * c
		}
	case A == nil && X == nil:
		for i := range vals {
			vals[i] = c
		}
	case A == nil:
		in := max(min(xn-lo, len(vals)), 0)
		if in > 0 {
			if c == 1 {
				copy(vals[:in], X[lo:lo+in])
			} else {
				for i, x := range X[lo : lo+in] {
					vals[i] = x * c
				}
			}
		}
		clear(vals[in:])
	default:
		for i := lo; i < hi; i++ {
			v := c * A[i]
			if X != nil {
				if i < xn {
					v *= X[i]
				} else {
					v = 0
				}
			}
			vals[i-lo] = v
		}
	}
}

// guardedGather compiles select(0 <= j && j < n, X[j], 0) (a dense
// vector's guarded lookup, lower.GuardedLoad) in one pass over the lanes.
func (rg *region) guardedGather(s *lower.Select, l int) fcol {
	n, ld := lower.GuardedLoad(s)
	if ld == nil || rg.varies(n) {
		return nil
	}
	un := rg.c.int(n)
	_, cj := rg.int(ld.Index, l, false)
	a := ld.A.ID
	buf := rg.newF()
	return func(fr *frame, cx *vctx) []float64 {
		idx, arr := cj(fr, cx), fr.fa[a]
		bound := uint(min(max(un(fr), 0), len(arr)))
		out := rg.fbuf(fr, buf, len(idx))
		for k, j := range idx {
			if uint(j) < bound {
				out[k] = arr[j]
			} else {
				out[k] = 0
			}
		}
		return out
	}
}
