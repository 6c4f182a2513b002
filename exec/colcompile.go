package exec

import (
	"fmt"
	"math"
	"runtime"
	"slices"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// vstmt runs a statement over a batch of lanes.
type vstmt func(fr *frame, cx *vctx)

// Column-producing expressions: uniform ones are scalar closures (the
// same in every lane), the others write the lanes' values into a buffer
// of the frame and return it.
type (
	fcol func(fr *frame, cx *vctx) []float64
	icol func(fr *frame, cx *vctx) []int
	bcol func(fr *frame, cx *vctx) []bool
)

// compileNest compiles a columnar loop nest rooted at s (a For or a
// ForLevel, eligibleNest): the nest runs below a level 0 of one lane, the
// scalar code around it, so that s is an inner loop like any other (its
// iterations flattened into batches, or a fused loop).
func (c *compiler) compileNest(s lower.Stmt) stmt {
	id := len(c.regions)
	rg := &region{c: c, id: id, level: map[*lower.Var]int{}, icol: map[*lower.Var]int{}, fcol: map[*lower.Var]int{},
		loopVar: map[int]*lower.Var{}, colReads: map[*lower.Var]int{}}
	c.regions = append(c.regions, rg)
	rg.spare = rg.newI()
	rg.assigned = map[*lower.Var]bool{}
	lower.WalkStmts(s, func(x lower.Stmt) {
		if a, ok := x.(*lower.Assign); ok {
			rg.assigned[a.V] = true
		}
	})
	body := rg.stmt(s, 0)
	return func(fr *frame) {
		cb := fr.region(id, rg)
		cx := &cb.ctx[0]
		cx.n, cx.base = 1, -1
		body(fr, cx)
	}
}

// regionBufs are a frame's buffers for one columnar nest.
type regionBufs struct {
	colbufs
	ctx []vctx // one batch per level
	// keep[l] are the levels d < l-1 whose lane maps a batch of level l
	// computes (the map to l-1 is its parents, always there): those read
	// at level l or below (region.ancUse)
	keep [][]int
}

// region returns the frame's buffers of region id, allocating them on
// first use.
func (fr *frame) region(id int, rg *region) *regionBufs {
	for len(fr.regions) <= id {
		fr.regions = append(fr.regions, nil)
	}
	cb := fr.regions[id]
	if cb == nil {
		cb = &regionBufs{}
		cb.i = make([][]int, rg.nibuf)
		for k := range cb.i {
			cb.i[k] = make([]int, batch)
		}
		cb.f = make([][]float64, rg.nfbuf)
		for k := range cb.f {
			cb.f[k] = make([]float64, batch)
		}
		cb.b = make([][]bool, rg.nbbuf)
		for k := range cb.b {
			cb.b[k] = make([]bool, batch)
		}
		cb.u = make([][]int32, rg.nubuf)
		for k := range cb.u {
			cb.u[k] = make([]int32, batch)
		}
		cb.ctx = make([]vctx, rg.maxLevel+1)
		cb.keep = make([][]int, rg.maxLevel+1)
		for l := range cb.keep {
			for d := 0; d+1 < l && d < len(rg.ancUse); d++ {
				if rg.ancUse[d] >= l {
					cb.keep[l] = append(cb.keep[l], d)
				}
			}
		}
		for l := range cb.ctx {
			cb.ctx[l].level = l
			cb.ctx[l].anc = make([][]int32, l+1)
			for d := 0; d < l; d++ {
				cb.ctx[l].anc[d] = make([]int32, batch)
			}
		}
		fr.regions[id] = cb
	}
	return cb
}

// child prepares the batch of level l+1 below cx: its lane maps to every
// level above, from up (the parent lane of each of its n lanes).
func (cb *regionBufs) child(cx *vctx, up []int32, n int) *vctx {
	copy(cb.parents(cx)[:n], up[:n])
	return cb.childOf(cx, n)
}

// parents is where the batch below cx keeps its lanes' parents: a
// statement that finds them can write them there and call childOf.
func (cb *regionBufs) parents(cx *vctx) []int32 { return cb.ctx[cx.level+1].anc[cx.level] }

// childOf is child, the n parents already in parents(cx).
func (cb *regionBufs) childOf(cx *vctx, n int) *vctx {
	ch := &cb.ctx[cx.level+1]
	ch.n, ch.base = n, -1
	up := ch.anc[cx.level]
	for _, d := range cb.keep[cx.level+1] {
		src, dst := cx.anc[d], ch.anc[d][:n]
		for k := range dst {
			dst[k] = src[up[k]]
		}
	}
	return ch
}

func (rg *region) note(l int) {
	if l > rg.maxLevel {
		rg.maxLevel = l
	}
}

// inRegion reports whether the expression reads a variable of the nest.
func (rg *region) varies(e lower.Expr) bool {
	varies := false
	lower.WalkExpr(e, func(x lower.Expr) {
		if r, ok := x.(*lower.Ref); ok {
			if _, in := rg.level[r.V]; in {
				varies = true
			}
		}
	})
	return varies
}

func (rg *region) define(v *lower.Var, l int) {
	rg.level[v] = l
	rg.note(l)
	if v.Kind == lower.Real {
		rg.fcol[v] = rg.newF()
	} else {
		rg.icol[v] = rg.newI()
	}
}

// ---- statements

func (rg *region) stmt(s lower.Stmt, l int) vstmt {
	rg.note(l)
	switch s := s.(type) {
	case nil:
		return func(*frame, *vctx) {}
	case *lower.Block:
		fs := make([]vstmt, 0, len(s.List))
		for i := 0; i < len(s.List); i++ {
			if i+1 < len(s.List) {
				if f := rg.insertStore(s.List[i], s.List[i+1], s.List[i+2:], l); f != nil {
					fs = append(fs, f)
					i++
					continue
				}
			}
			fs = append(fs, rg.stmt(s.List[i], l))
		}
		return func(fr *frame, cx *vctx) {
			for _, f := range fs {
				f(fr, cx)
			}
		}
	case *lower.Let:
		rg.define(s.V, l)
		return rg.assign(s.V, lower.Set, s.X, l)
	case *lower.Assign:
		return rg.assign(s.V, s.Op, s.X, l)
	case *lower.If:
		return rg.ifStmt(s, l)
	case *lower.For:
		return rg.forStmt(s, l)
	case *lower.ForLevel:
		return rg.forLevel(s, l)
	case *lower.Search:
		return rg.search(s, l)
	case *lower.Insert:
		return rg.insert(s, l)
	case *lower.Locate:
		return rg.locate(s, l)
	case *lower.Store:
		return rg.store(s, l)
	case *lower.Fail:
		f := rg.c.stmt(s)
		return func(fr *frame, cx *vctx) {
			if cx.n > 0 {
				f(fr) // the arguments of the first failing lane are not kept
			}
		}
	}
	panic(fmt.Sprintf("internal error: exec: columnar %T", s))
}

// ---- buffers

func (rg *region) fbuf(fr *frame, slot, n int) []float64 { return fr.regions[rg.id].f[slot][:n] }
func (rg *region) ibuf(fr *frame, slot, n int) []int     { return fr.regions[rg.id].i[slot][:n] }
func (rg *region) bbuf(fr *frame, slot, n int) []bool    { return fr.regions[rg.id].b[slot][:n] }

// readF is the column of a real variable in a batch of level l: its own
// column at its level, or gathered from there through the lane map.
func (rg *region) readF(v *lower.Var, l int) fcol {
	d, slot := rg.level[v], rg.fcol[v]
	if d == l {
		return func(fr *frame, cx *vctx) []float64 { return rg.fbuf(fr, slot, cx.n) }
	}
	rg.useAnc(d, l)
	out := rg.newF()
	return func(fr *frame, cx *vctx) []float64 {
		src := fr.regions[rg.id].f[slot]
		dst := rg.fbuf(fr, out, cx.n)
		for k, a := range cx.anc[d][:cx.n] {
			dst[k] = src[a]
		}
		return dst
	}
}

func (rg *region) readI(v *lower.Var, l int) icol {
	d, slot := rg.level[v], rg.icol[v]
	rg.colReads[v]++
	if d == l {
		return func(fr *frame, cx *vctx) []int { return rg.ibuf(fr, slot, cx.n) }
	}
	rg.useAnc(d, l)
	out := rg.newI()
	return func(fr *frame, cx *vctx) []int {
		src := fr.regions[rg.id].i[slot]
		dst := rg.ibuf(fr, out, cx.n)
		for k, a := range cx.anc[d][:cx.n] {
			dst[k] = src[a]
		}
		return dst
	}
}

// ---- assignments

// assign sets or adds to a variable: its own column, an ancestor level's
// column through the lane map (a segmented reduction), or an outer
// variable (a reduction over the lanes, in order).
func (rg *region) assign(v *lower.Var, op lower.AssignOp, x lower.Expr, l int) vstmt {
	d, inner := rg.level[v]
	if !inner {
		return rg.reduceOuter(v, x, l)
	}
	if d != l {
		rg.useAnc(d, l)
	}
	alias := op == lower.Set && d == l && rg.letAlias(v, x)
	if v.Kind == lower.Real {
		slot := rg.fcol[v]
		if op == lower.AddTo && d != l {
			if sum := rg.productSumOf(x, l); sum != nil {
				return func(fr *frame, cx *vctx) {
					sum(fr, cx, fr.regions[rg.id].f[slot], cx.anc[d][:cx.n], 0)
				}
			}
		}
		uf, cf := rg.real(x, l, false)
		if alias && cf != nil {
			return func(fr *frame, cx *vctx) {
				fr.regions[rg.id].f[slot] = cf(fr, cx)
			}
		}
		return func(fr *frame, cx *vctx) {
			col := fr.regions[rg.id].f[slot]
			n := cx.n
			if d == l {
				dst := col[:n]
				switch {
				case uf != nil && op == lower.Set:
					u := uf(fr)
					for k := range dst {
						dst[k] = u
					}
				case uf != nil:
					u := uf(fr)
					for k := range dst {
						dst[k] += u
					}
				case op == lower.Set:
					copy(dst, cf(fr, cx))
				default:
					for k, y := range cf(fr, cx) {
						dst[k] += y
					}
				}
				return
			}
			anc := cx.anc[d][:n]
			if uf != nil {
				u := uf(fr)
				for _, a := range anc {
					if op == lower.Set {
						col[a] = u
					} else {
						col[a] += u
					}
				}
				return
			}
			src := cf(fr, cx)
			if op == lower.Set {
				for k, a := range anc {
					col[a] = src[k]
				}
				return
			}
			addRuns(col, anc, src[:n])
		}
	}
	slot := rg.icol[v]
	var ui iexpr
	var ci icol
	isBool := v.Kind == lower.Bool
	if isBool {
		ub, cb := rg.boolean(x, l, false)
		if ub != nil {
			ui = func(fr *frame) int { return b2i(ub(fr)) }
		} else {
			buf := rg.newI()
			ci = func(fr *frame, cx *vctx) []int {
				src := cb(fr, cx)
				out := rg.ibuf(fr, buf, len(src))
				for k, y := range src {
					out[k] = b2i(y)
				}
				return out
			}
		}
	} else {
		ui, ci = rg.int(x, l, false)
		if alias && ci != nil {
			return func(fr *frame, cx *vctx) {
				fr.regions[rg.id].i[slot] = ci(fr, cx)
			}
		}
	}
	return func(fr *frame, cx *vctx) {
		col := fr.regions[rg.id].i[slot]
		n := cx.n
		var src []int
		if ui != nil {
			src = fill(rg.ibuf(fr, rg.spare, n), ui(fr))
		} else {
			src = ci(fr, cx)
		}
		switch {
		case d == l && op == lower.Set:
			copy(col[:n], src)
		case d == l && isBool:
			for k, y := range src {
				if y != 0 {
					col[k] = 1
				}
			}
		case d == l:
			for k, y := range src {
				col[k] += y
			}
		case op == lower.Set:
			for k, a := range cx.anc[d][:n] {
				col[a] = src[k]
			}
		case isBool:
			for k, a := range cx.anc[d][:n] {
				if src[k] != 0 {
					col[a] = 1
				}
			}
		default:
			for k, a := range cx.anc[d][:n] {
				col[a] += src[k]
			}
		}
	}
}

// letAlias reports whether the let v := x may make v's column the
// column x's evaluation returns, instead of copying it into v's own
// buffer: v is never assigned in the nest (so nothing writes through its
// column), and x's column is one nothing changes while v is live: a
// buffer of x's own node, written again only when the let runs again
// (the next batch of its level), or a slice of an input array. A
// variable's column (a Ref, or a real select that may pass one through)
// can change under v, so it is copied. A select whose condition is
// uniform returns its branch's column, which may be a variable's.
func (rg *region) letAlias(v *lower.Var, x lower.Expr) bool {
	if rg.assigned[v] {
		return false
	}
	switch x := x.(type) {
	case *lower.Load, *lower.Binary, *lower.Unary, *lower.Call, *lower.ValAt:
		return true
	case *lower.Select:
		return v.Kind != lower.Real && rg.varies(x.Cond)
	}
	return false
}

// reduceOuter adds a column into a variable defined outside the nest,
// lane by lane in order (the serial order of the additions).
func (rg *region) reduceOuter(v *lower.Var, x lower.Expr, l int) vstmt {
	id := v.ID
	switch v.Kind {
	case lower.Real:
		if sum := rg.productSumOf(x, l); sum != nil {
			return func(fr *frame, cx *vctx) {
				fr.f[id] = sum(fr, cx, nil, nil, fr.f[id])
			}
		}
		uf, cf := rg.real(x, l, false)
		if uf != nil {
			return func(fr *frame, cx *vctx) {
				u, s := uf(fr), fr.f[id]
				for k := 0; k < cx.n; k++ {
					s += u
				}
				fr.f[id] = s
			}
		}
		return func(fr *frame, cx *vctx) {
			s := fr.f[id]
			for _, y := range cf(fr, cx) {
				s += y
			}
			fr.f[id] = s
		}
	case lower.Bool:
		ub, cb := rg.boolean(x, l, false)
		return func(fr *frame, cx *vctx) {
			if ub != nil {
				if cx.n > 0 && ub(fr) {
					fr.i[id] = 1
				}
				return
			}
			for _, y := range cb(fr, cx) {
				if y {
					fr.i[id] = 1
					return
				}
			}
		}
	}
	ui, ci := rg.int(x, l, false)
	return func(fr *frame, cx *vctx) {
		if ui != nil {
			fr.i[id] += cx.n * ui(fr)
			return
		}
		s := fr.i[id]
		for _, y := range ci(fr, cx) {
			s += y
		}
		fr.i[id] = s
	}
}

// ---- control

// ifStmt runs a branch on the lanes where the condition holds (the other
// on the rest): a child batch of those lanes one level down. A condition
// the same in every lane picks a branch for the whole batch.
func (rg *region) ifStmt(s *lower.If, l int) vstmt {
	ub, cb := rg.boolean(s.Cond, l, false)
	if ub != nil {
		then, els := rg.stmt(s.Then, l), rg.stmt(s.Else, l)
		return func(fr *frame, cx *vctx) {
			if ub(fr) {
				then(fr, cx)
			} else {
				els(fr, cx)
			}
		}
	}
	then := rg.stmt(s.Then, l+1)
	var els vstmt
	if s.Else != nil {
		els = rg.stmt(s.Else, l+1)
	}
	up := rg.newU()
	return func(fr *frame, cx *vctx) {
		cond := cb(fr, cx)
		rb := fr.regions[rg.id]
		sel := rb.u[up]
		m := 0
		for k, c := range cond {
			if c {
				sel[m] = int32(k)
				m++
			}
		}
		if m > 0 {
			then(fr, rb.child(cx, sel, m))
		}
		if els != nil && m < cx.n {
			m = 0
			for k, c := range cond {
				if !c {
					sel[m] = int32(k)
					m++
				}
			}
			els(fr, rb.child(cx, sel, m))
		}
	}
}

// addRuns adds src[k] into col[anc[k]] for every k, in order: the lanes
// of a child batch come in runs of one ancestor (a loop's iterations,
// flattened), so each run is summed in a register and stored once,
// instead of storing and reloading col[a] on every lane (a chain through
// memory). The additions are the same, in the same order.
func addRuns(col []float64, anc []int32, src []float64) {
	if len(anc) == 0 {
		return
	}
	prev := anc[0]
	acc := col[prev]
	for k, a := range anc {
		if a != prev {
			col[prev] = acc
			prev, acc = a, col[a]
		}
		acc += src[k]
	}
	col[prev] = acc
}

// forStmt runs an inner loop: the positions of every lane's range,
// flattened in order into child batches.
func (rg *region) forStmt(s *lower.For, l int) vstmt {
	if f := rg.fusedLoop(s, l); f != nil {
		return f
	}
	ulo, clo := rg.int(s.Lo, l, false)
	uhi, chi := rg.int(s.Hi, l, false)
	rg.define(s.V, l+1)
	rg.loopVar[l+1] = s.V
	vslot := rg.icol[s.V]
	body := rg.stmt(s.Body, l+1)
	// lazy: nothing in the body reads the loop variable's column but the
	// loads at its positions, which take a slice of their array when the
	// batch's positions are consecutive (vctx.base); the column is then
	// filled only for a batch whose positions are not
	lazy := rg.colReads[s.V] == 0
	lob, hib := rg.loBuf(l), rg.hiBuf(l)
	return func(fr *frame, cx *vctx) {
		los, his := bounds(fr, cx, ulo, clo, uhi, chi, rg, lob, hib)
		rb := fr.regions[rg.id]
		ups, vcol := rb.parents(cx), rb.i[vslot]
		m, contig, start := 0, true, 0
		flush := func() {
			ch := rb.childOf(cx, m)
			if contig {
				ch.base = start
			}
			body(fr, ch)
			m, contig = 0, true
		}
		for k := 0; k < cx.n; k++ {
			// a lane's range, in pieces that fill the batch
			for p, h := los[k], his[k]; p < h; {
				if m == 0 {
					start = p
				} else if contig && p != start+m {
					contig = false
					if lazy {
						for t := range vcol[:m] {
							vcol[t] = start + t
						}
					}
				}
				take := min(h-p, batch-m)
				us := ups[m : m+take]
				for t := range us {
					us[t] = int32(k)
				}
				if !lazy || !contig {
					vs := vcol[m : m+take]
					for t := range vs {
						vs[t] = p + t
					}
				}
				m += take
				p += take
				if m == batch {
					flush()
				}
			}
		}
		if m > 0 {
			flush()
		}
	}
}

// bounds evaluates a loop's bounds per lane.
func bounds(fr *frame, cx *vctx, ulo iexpr, clo icol, uhi iexpr, chi icol, rg *region, lob, hib int) ([]int, []int) {
	rb := fr.regions[rg.id]
	var los, his []int
	if clo != nil {
		los = clo(fr, cx)
	} else {
		los = fill(rb.i[lob][:cx.n], ulo(fr))
	}
	if chi != nil {
		his = chi(fr, cx)
	} else {
		his = fill(rb.i[hib][:cx.n], uhi(fr))
	}
	return los, his
}

func fill(dst []int, v int) []int {
	for k := range dst {
		dst[k] = v
	}
	return dst
}

// loBuf and hiBuf are per-level scratch columns for uniform bounds.
func (rg *region) loBuf(l int) int { return rg.scratch(l, 0) }
func (rg *region) hiBuf(l int) int { return rg.scratch(l, 1) }

func (rg *region) scratch(l, which int) int {
	if rg.scratchI == nil {
		rg.scratchI = map[[2]int]int{}
	}
	key := [2]int{l, which}
	if s, ok := rg.scratchI[key]; ok {
		return s
	}
	s := rg.newI()
	rg.scratchI[key] = s
	return s
}

// forLevel iterates the children of each lane's position in a tensor's
// level, flattened into child batches.
func (rg *region) forLevel(s *lower.ForLevel, l int) vstmt {
	up, cp := rg.int(s.Parent, l, false)
	rg.define(s.Key, l+1)
	kslot := rg.icol[s.Key]
	pslot := -1
	if s.Pos != nil {
		rg.define(s.Pos, l+1)
		pslot = rg.icol[s.Pos]
	}
	body := rg.stmt(s.Body, l+1)
	ub := rg.newU()
	t, lv := s.T.ID, s.Level
	pb := rg.newI()
	return func(fr *frame, cx *vctx) {
		rb := fr.regions[rg.id]
		var parents []int
		if cp != nil {
			parents = cp(fr, cx)
		} else {
			parents = fill(rb.i[pb][:cx.n], up(fr))
		}
		ups, keys := rb.u[ub], rb.i[kslot]
		var poss []int
		if pslot >= 0 {
			poss = rb.i[pslot]
		}
		rt := fr.t[t]
		m := 0
		if l := rt.levels[lv]; l.kind == lower.Dense {
			// a dense level's keys straight from its presence, without
			// a call per key
			for k, q := range parents {
				base := q * l.size
				for key := 0; key < l.size; key++ {
					if l.present != nil && !l.present[base+key] {
						continue
					}
					ups[m], keys[m] = int32(k), key
					if poss != nil {
						poss[m] = base + key
					}
					m++
					if m == batch {
						body(fr, rb.child(cx, ups, m))
						m = 0
					}
				}
			}
			if m > 0 {
				body(fr, rb.child(cx, ups, m))
			}
			return
		}
		for k, q := range parents {
			rt.children(lv, q, func(key, c int) bool {
				ups[m], keys[m] = int32(k), key
				if poss != nil {
					poss[m] = c
				}
				m++
				if m == batch {
					body(fr, rb.child(cx, ups, m))
					m = 0
				}
				return true
			})
		}
		if m > 0 {
			body(fr, rb.child(cx, ups, m))
		}
	}
}

// search binary-searches each lane's key in its segment and runs the body
// on the lanes where it is found.
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
	uk, ck := rg.int(s.Key, l, false)
	rg.define(s.Pos, l+1)
	pslot := rg.icol[s.Pos]
	body := rg.stmt(s.Body, l+1)
	pb, kb := rg.newI(), rg.newI()
	t, lv := s.T.ID, s.Level
	pc, ok := s.Parent.(*lower.Const)
	top := lv == 0 && ok && pc.I == 0
	read := rg.readInto(s, l)
	// keyed by the level's loop variable: over consecutive lanes (base)
	// the keys are base, base+1, ...
	byLane := false
	if r, ok := s.Key.(*lower.Ref); ok && rg.loopVar[l] == r.V {
		byLane = true
	}
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

// insertStore compiles `q := insert(T.level0[0], key); T.val[q] op= x`,
// a vector's entry written at its key, with q read nowhere in rest (the
// statements after the store), as one pass over the lanes when T's level
// is dense: the key is the position (a scatter). It returns nil when the
// pair is not of that shape; on another storage it runs the two
// statements as compiled alone.
//
// A store that adds -x scatters x subtracted (y + -x is y - x in IEEE
// arithmetic): no pass of negations.
func (rg *region) insertStore(a, b lower.Stmt, rest []lower.Stmt, l int) vstmt {
	ins, ok1 := a.(*lower.Insert)
	st, ok2 := b.(*lower.Store)
	if !ok1 || !ok2 || ins.At != nil || ins.Level != 0 || len(ins.T.Levels) != 1 || st.T != ins.T ||
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
	insert, store := rg.insert(ins, l), rg.store(st, l)
	uk, ck := rg.int(ins.Key, l, false)
	uf, cf := rg.real(x, l, false)
	kb := rg.newI()
	t, set := ins.T.ID, st.Op == lower.Set
	return func(fr *frame, cx *vctx) {
		rt := fr.t[t]
		if rt.levels[0].kind != lower.Dense {
			insert(fr, cx)
			store(fr, cx)
			return
		}
		keys := icolOf(fr, cx, uk, ck, rg, kb)
		var xs []float64
		var u float64
		if cf != nil {
			xs = cf(fr, cx)[:len(keys)]
		} else {
			u = uf(fr)
			if sub {
				u = -u
			}
		}
		for k := 0; k < len(keys); {
			lev := rt.levels[0]
			k += scatterKeys(rt.vals[:lev.size], lev.present, keys[k:], xs, k, u, set, sub && xs != nil)
			if k < len(keys) {
				rt.insert(0, 0, keys[k]) // grows the level, or fails
			}
		}
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

// ---- expressions

// real compiles a real expression for batches of level l: a uniform
// scalar closure when it reads no variable of the nest, else a column.
// chk compiles loads checked (0 outside the array): under a Select every
// lane evaluates both branches, whose loads only one lane's condition
// guards.
func (rg *region) real(e lower.Expr, l int, chk bool) (fexpr, fcol) {
	if !rg.varies(e) {
		return guardedUniform(rg.c.real(e), e, chk, 0.0), nil
	}
	if e.Kind() != lower.Real {
		ui, ci := rg.int(e, l, chk)
		if ui != nil {
			return func(fr *frame) float64 { return float64(ui(fr)) }, nil
		}
		buf := rg.newF()
		return nil, func(fr *frame, cx *vctx) []float64 {
			src := ci(fr, cx)
			out := rg.fbuf(fr, buf, len(src))
			for k, y := range src {
				out[k] = float64(y)
			}
			return out
		}
	}
	buf := rg.newF()
	switch x := e.(type) {
	case *lower.Ref:
		return nil, rg.readF(x.V, l)
	case *lower.Load:
		lv := rg.loopVar[l]
		reads := rg.colReads[lv]
		_, ci := rg.int(x.Index, l, chk)
		a := x.A.ID
		if d, ok := lower.Offset(x.Index, lv); ok && !chk {
			rg.colReads[lv] = reads // ci runs only where the loop's column is filled (forStmt)
			// at the level's own positions (plus d, lower.Offset): a slice when they are consecutive
			return nil, func(fr *frame, cx *vctx) []float64 {
				if cx.base >= 0 {
					return fr.fa[a][cx.base+d : cx.base+d+cx.n]
				}
				idx, arr := ci(fr, cx), fr.fa[a]
				out := rg.fbuf(fr, buf, len(idx))
				for k, j := range idx {
					out[k] = arr[j]
				}
				return out
			}
		}
		if chk {
			return nil, func(fr *frame, cx *vctx) []float64 {
				idx, arr := ci(fr, cx), fr.fa[a]
				out := rg.fbuf(fr, buf, len(idx))
				for k, j := range idx {
					if uint(j) < uint(len(arr)) {
						out[k] = arr[j]
					} else {
						out[k] = 0
					}
				}
				return out
			}
		}
		return nil, func(fr *frame, cx *vctx) []float64 {
			idx, arr := ci(fr, cx), fr.fa[a]
			out := rg.fbuf(fr, buf, len(idx))
			for k, j := range idx {
				out[k] = arr[j]
			}
			return out
		}
	case *lower.Unary:
		if x.Op == lower.ToReal {
			_, ci := rg.int(x.X, l, chk)
			return nil, func(fr *frame, cx *vctx) []float64 {
				src := ci(fr, cx)
				out := rg.fbuf(fr, buf, len(src))
				for k, y := range src {
					out[k] = float64(y)
				}
				return out
			}
		}
		if x.Op == lower.Neg {
			_, cf := rg.real(x.X, l, chk)
			return nil, func(fr *frame, cx *vctx) []float64 {
				src := cf(fr, cx)
				out := rg.fbuf(fr, buf, len(src))
				for k, y := range src {
					out[k] = -y
				}
				return out
			}
		}
	case *lower.Binary:
		return nil, rg.realBinary(x, l, chk, buf)
	case *lower.Call:
		return nil, rg.call(x, l, chk, buf)
	case *lower.Select:
		if g := rg.guardedGather(x, l); g != nil {
			return nil, g
		}
		ub, cb := rg.boolean(x.Cond, l, chk)
		if ub != nil {
			// a uniform condition: every lane takes the same branch, the
			// only one evaluated, so its loads need no check of their own
			ua, ca := rg.real(x.Then, l, chk)
			ue, ce := rg.real(x.Else, l, chk)
			return nil, func(fr *frame, cx *vctx) []float64 {
				if ub(fr) {
					return colOf(fr, cx, ua, ca, rg, buf)
				}
				return colOf(fr, cx, ue, ce, rg, buf)
			}
		}
		ua, ca := rg.real(x.Then, l, true)
		ue, ce := rg.real(x.Else, l, true)
		tb, eb := rg.newF(), rg.newF()
		return nil, func(fr *frame, cx *vctx) []float64 {
			cond := cb(fr, cx)
			a := colOf(fr, cx, ua, ca, rg, tb)
			b := colOf(fr, cx, ue, ce, rg, eb)
			out := rg.fbuf(fr, buf, len(cond))
			for k, c := range cond {
				if c {
					out[k] = a[k]
				} else {
					out[k] = b[k]
				}
			}
			return out
		}
	case *lower.ValAt:
		_, cp := rg.int(x.Pos, l, chk)
		t := x.T.ID
		return nil, func(fr *frame, cx *vctx) []float64 {
			ps, vals := cp(fr, cx), fr.t[t].vals
			out := rg.fbuf(fr, buf, len(ps))
			for k, p := range ps {
				out[k] = vals[p]
			}
			return out
		}
	}
	panic(fmt.Sprintf("internal error: exec: columnar real %s", lower.ExprString(e)))
}

// guardedUniform is f, the scalar code of a uniform expression e, or
// under chk (e is a select's branch, evaluated for a batch whose lanes
// may not take it: column branches read arrays checked) f returning zero
// where e reads an array (or a tensor's values) past its end. A branch the program evaluates
// only under its guard (select(4 < M_cols, M_val[M_cols * 4 + 4], 0) with
// 4 past M's last column) must not fail because the batch computes it for
// lanes whose guard is false; where the guard holds, the read is in
// range and f's value is e's.
func guardedUniform[T any](f func(*frame) T, e lower.Expr, chk bool, zero T) func(*frame) T {
	if !chk || !lower.ReadsMemory(e) {
		return f
	}
	return func(fr *frame) (v T) {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(runtime.Error); !ok {
					panic(r)
				}
				v = zero
			}
		}()
		return f(fr)
	}
}

// colOf is a column for a uniform or column expression.
func colOf(fr *frame, cx *vctx, u fexpr, c fcol, rg *region, buf int) []float64 {
	if c != nil {
		return c(fr, cx)
	}
	v := u(fr)
	out := rg.fbuf(fr, buf, cx.n)
	for k := range out {
		out[k] = v
	}
	return out
}

func (rg *region) realBinary(x *lower.Binary, l int, chk bool, buf int) fcol {
	if f := rg.productChain(x, l, chk, buf); f != nil {
		return f
	}
	if f := rg.broadcastGather(x, l, buf); f != nil {
		return f
	}
	ua, ca := rg.real(x.X, l, chk)
	ub, cb := rg.real(x.Y, l, chk)
	op := x.Op
	if ua == nil && ub == nil {
		if f := rg.broadcastBinary(x, l, ca, cb, buf); f != nil {
			return f
		}
	}
	switch {
	case ua != nil: // uniform op column
		return func(fr *frame, cx *vctx) []float64 {
			u, src := ua(fr), cb(fr, cx)
			out := rg.fbuf(fr, buf, len(src))
			switch op {
			case lower.Add:
				for k, y := range src {
					out[k] = u + y
				}
			case lower.Sub:
				for k, y := range src {
					out[k] = u - y
				}
			case lower.Mul:
				for k, y := range src {
					out[k] = u * y
				}
			default:
				for k, y := range src {
					out[k] = u / y
				}
			}
			return out
		}
	case ub != nil: // column op uniform
		return func(fr *frame, cx *vctx) []float64 {
			src, u := ca(fr, cx), ub(fr)
			out := rg.fbuf(fr, buf, len(src))
			switch op {
			case lower.Add:
				for k, y := range src {
					out[k] = y + u
				}
			case lower.Sub:
				for k, y := range src {
					out[k] = y - u
				}
			case lower.Mul:
				for k, y := range src {
					out[k] = y * u
				}
			default:
				for k, y := range src {
					out[k] = y / u
				}
			}
			return out
		}
	}
	return func(fr *frame, cx *vctx) []float64 {
		a, b := ca(fr, cx), cb(fr, cx)
		out := rg.fbuf(fr, buf, len(a))
		b = b[:len(a)]
		switch op {
		case lower.Add:
			for k := range out {
				out[k] = a[k] + b[k]
			}
		case lower.Sub:
			for k := range out {
				out[k] = a[k] - b[k]
			}
		case lower.Mul:
			for k := range out {
				out[k] = a[k] * b[k]
			}
		default:
			for k := range out {
				out[k] = a[k] / b[k]
			}
		}
		return out
	}
}

func (rg *region) call(x *lower.Call, l int, chk bool, buf int) fcol {
	op, ok := sdql.Ops[x.Fn]
	if ok && len(x.Args) == 1 && op.Fn != nil {
		fn := op.Fn
		switch x.Fn {
		case "exp":
			fn = math.Exp
		case "tanh":
			fn = math.Tanh
		case "log":
			fn = math.Log
		}
		ua, ca := rg.real(x.Args[0], l, chk)
		return func(fr *frame, cx *vctx) []float64 {
			src := colOf(fr, cx, ua, ca, rg, buf)
			out := rg.fbuf(fr, buf, len(src))
			for k, y := range src {
				out[k] = fn(y)
			}
			return out
		}
	}
	if !ok || len(x.Args) != 2 || op.Fn2 == nil {
		panic(fmt.Sprintf("internal error: exec: unknown function %s/%d", x.Fn, len(x.Args)))
	}
	fn2 := op.Fn2
	ua, ca := rg.real(x.Args[0], l, chk)
	ub, cb := rg.real(x.Args[1], l, chk)
	ab := rg.newF()
	return func(fr *frame, cx *vctx) []float64 {
		a := colOf(fr, cx, ua, ca, rg, ab)
		b := colOf(fr, cx, ub, cb, rg, buf)
		out := rg.fbuf(fr, buf, len(a))
		for k := range out {
			out[k] = fn2(a[k], b[k])
		}
		return out
	}
}

// int compiles an int expression for batches of level l.
func (rg *region) int(e lower.Expr, l int, chk bool) (iexpr, icol) {
	if !rg.varies(e) {
		return guardedUniform(rg.c.int(e), e, chk, 0), nil
	}
	buf := rg.newI()
	switch x := e.(type) {
	case *lower.Ref:
		return nil, rg.readI(x.V, l)
	case *lower.Load:
		lv := rg.loopVar[l]
		reads := rg.colReads[lv]
		_, ci := rg.int(x.Index, l, chk)
		a := x.A.ID
		if d, ok := lower.Offset(x.Index, lv); ok && !chk {
			rg.colReads[lv] = reads // ci runs only where the loop's column is filled (forStmt)
			// at the level's own positions (plus d, lower.Offset): a slice when they are consecutive
			return nil, func(fr *frame, cx *vctx) []int {
				if cx.base >= 0 {
					return fr.ia[a][cx.base+d : cx.base+d+cx.n]
				}
				idx, arr := ci(fr, cx), fr.ia[a]
				out := rg.ibuf(fr, buf, len(idx))
				for k, j := range idx {
					out[k] = arr[j]
				}
				return out
			}
		}
		return nil, func(fr *frame, cx *vctx) []int {
			idx, arr := ci(fr, cx), fr.ia[a]
			out := rg.ibuf(fr, buf, len(idx))
			if chk {
				for k, j := range idx {
					if uint(j) < uint(len(arr)) {
						out[k] = arr[j]
					} else {
						out[k] = 0
					}
				}
				return out
			}
			for k, j := range idx {
				out[k] = arr[j]
			}
			return out
		}
	case *lower.Unary:
		if x.Op == lower.Neg {
			_, ci := rg.int(x.X, l, chk)
			return nil, func(fr *frame, cx *vctx) []int {
				src := ci(fr, cx)
				out := rg.ibuf(fr, buf, len(src))
				for k, y := range src {
					out[k] = -y
				}
				return out
			}
		}
		if x.Op == lower.Not {
			_, cb := rg.boolean(x.X, l, chk)
			return nil, boolToInt(rg, cb, buf)
		}
	case *lower.Binary:
		switch x.Op {
		case lower.Add, lower.Sub, lower.Mul:
			ua, ca := rg.int(x.X, l, chk)
			ub, cb := rg.int(x.Y, l, chk)
			ab, bb := rg.newI(), rg.newI()
			op := x.Op
			return nil, func(fr *frame, cx *vctx) []int {
				a := icolOf(fr, cx, ua, ca, rg, ab)
				b := icolOf(fr, cx, ub, cb, rg, bb)
				out := rg.ibuf(fr, buf, cx.n)
				switch op {
				case lower.Add:
					for k := range out {
						out[k] = a[k] + b[k]
					}
				case lower.Sub:
					for k := range out {
						out[k] = a[k] - b[k]
					}
				default:
					for k := range out {
						out[k] = a[k] * b[k]
					}
				}
				return out
			}
		}
		_, cb := rg.boolean(x, l, chk)
		return nil, boolToInt(rg, cb, buf)
	case *lower.Select:
		ub, cb := rg.boolean(x.Cond, l, chk)
		if ub != nil {
			// a uniform condition: only the branch every lane takes runs
			ua, ca := rg.int(x.Then, l, chk)
			ue, ce := rg.int(x.Else, l, chk)
			return nil, func(fr *frame, cx *vctx) []int {
				if ub(fr) {
					return icolOf(fr, cx, ua, ca, rg, buf)
				}
				return icolOf(fr, cx, ue, ce, rg, buf)
			}
		}
		ua, ca := rg.int(x.Then, l, true)
		ue, ce := rg.int(x.Else, l, true)
		tb, eb := rg.newI(), rg.newI()
		return nil, func(fr *frame, cx *vctx) []int {
			a := icolOf(fr, cx, ua, ca, rg, tb)
			b := icolOf(fr, cx, ue, ce, rg, eb)
			out := rg.ibuf(fr, buf, cx.n)
			for k, c := range cb(fr, cx) {
				if c {
					out[k] = a[k]
				} else {
					out[k] = b[k]
				}
			}
			return out
		}
	case *lower.ValAt:
		_, cp := rg.int(x.Pos, l, chk)
		t := x.T.ID
		return nil, func(fr *frame, cx *vctx) []int {
			ps, vals := cp(fr, cx), fr.t[t].vals
			out := rg.ibuf(fr, buf, len(ps))
			for k, p := range ps {
				out[k] = int(vals[p])
			}
			return out
		}
	}
	panic(fmt.Sprintf("internal error: exec: columnar int %s", lower.ExprString(e)))
}

func icolOf(fr *frame, cx *vctx, u iexpr, c icol, rg *region, buf int) []int {
	if c != nil {
		return c(fr, cx)
	}
	return fill(rg.ibuf(fr, buf, cx.n), u(fr))
}

func boolToInt(rg *region, cb bcol, buf int) icol {
	return func(fr *frame, cx *vctx) []int {
		src := cb(fr, cx)
		out := rg.ibuf(fr, buf, len(src))
		for k, y := range src {
			out[k] = b2i(y)
		}
		return out
	}
}

// boolean compiles a condition for batches of level l.
func (rg *region) boolean(e lower.Expr, l int, chk bool) (func(*frame) bool, bcol) {
	if !rg.varies(e) {
		return guardedUniform(rg.c.boolean(e), e, chk, false), nil
	}
	buf := rg.newB()
	switch x := e.(type) {
	case *lower.Unary:
		if x.Op == lower.Not {
			_, cb := rg.boolean(x.X, l, chk)
			return nil, func(fr *frame, cx *vctx) []bool {
				src := cb(fr, cx)
				out := rg.bbuf(fr, buf, len(src))
				for k, y := range src {
					out[k] = !y
				}
				return out
			}
		}
	case *lower.Binary:
		if f := rg.rangeTest(x, l, chk, buf); f != nil {
			return nil, f
		}
		switch x.Op {
		case lower.And, lower.Or:
			ua, ca := rg.boolean(x.X, l, chk)
			ub, cb := rg.boolean(x.Y, l, chk)
			and := x.Op == lower.And
			if ua != nil || ub != nil { // one side the same in every lane
				u, c := ua, cb
				if ub != nil {
					u, c = ub, ca
				}
				return nil, func(fr *frame, cx *vctx) []bool {
					uv, src := u(fr), c(fr, cx)
					out := rg.bbuf(fr, buf, len(src))
					for k, y := range src {
						if and {
							out[k] = uv && y
						} else {
							out[k] = uv || y
						}
					}
					return out
				}
			}
			return nil, func(fr *frame, cx *vctx) []bool {
				a, b := ca(fr, cx), cb(fr, cx)
				out := rg.bbuf(fr, buf, len(a))
				for k := range out {
					if and {
						out[k] = a[k] && b[k]
					} else {
						out[k] = a[k] || b[k]
					}
				}
				return out
			}
		case lower.Lt, lower.Le, lower.Eq, lower.Ne:
			if x.X.Kind() == lower.Real || x.Y.Kind() == lower.Real {
				ua, ca := rg.real(x.X, l, chk)
				ub, cb := rg.real(x.Y, l, chk)
				ab, bb := rg.newF(), rg.newF()
				op := x.Op
				return nil, func(fr *frame, cx *vctx) []bool {
					a := colOf(fr, cx, ua, ca, rg, ab)
					b := colOf(fr, cx, ub, cb, rg, bb)
					out := rg.bbuf(fr, buf, cx.n)
					for k := range out {
						out[k] = cmpF(op, a[k], b[k])
					}
					return out
				}
			}
			ua, ca := rg.int(x.X, l, chk)
			ub, cb := rg.int(x.Y, l, chk)
			op := x.Op
			if ua != nil {
				return nil, func(fr *frame, cx *vctx) []bool {
					u, b := ua(fr), cb(fr, cx)
					out := rg.bbuf(fr, buf, len(b))
					cmpIU(out, b, u, op, true)
					return out
				}
			}
			if ub != nil {
				return nil, func(fr *frame, cx *vctx) []bool {
					a, u := ca(fr, cx), ub(fr)
					out := rg.bbuf(fr, buf, len(a))
					cmpIU(out, a, u, op, false)
					return out
				}
			}
			return nil, func(fr *frame, cx *vctx) []bool {
				a, b := ca(fr, cx), cb(fr, cx)
				out := rg.bbuf(fr, buf, len(a))
				for k := range out {
					out[k] = cmpI(op, a[k], b[k])
				}
				return out
			}
		}
	}
	_, ci := rg.int(e, l, chk)
	return nil, func(fr *frame, cx *vctx) []bool {
		src := ci(fr, cx)
		out := rg.bbuf(fr, buf, len(src))
		for k, y := range src {
			out[k] = y != 0
		}
		return out
	}
}

// rangeTest compiles 0 <= v && v < n (lower.RangeTest), n the same in
// every lane, as one pass: uint(v) < uint(n), n below 0 taken as 0 (no
// lane holds), where the two comparisons and the conjunction were three.
// It returns nil for anything else.
func (rg *region) rangeTest(x *lower.Binary, l int, chk bool, buf int) bcol {
	v, n := lower.RangeTest(x)
	if v == nil || rg.varies(n) {
		return nil
	}
	_, cv := rg.int(&lower.Ref{V: v}, l, chk)
	if cv == nil {
		return nil
	}
	un := rg.c.int(n)
	return func(fr *frame, cx *vctx) []bool {
		a := cv(fr, cx)
		out := rg.bbuf(fr, buf, len(a))
		inRange(out, a, un(fr))
		return out
	}
}

// inRange sets out[k] = 0 <= a[k] && a[k] < n.
func inRange(out []bool, a []int, n int) {
	a = a[:len(out)]
	bound := uint(max(n, 0))
	for k, y := range a {
		out[k] = uint(y) < bound
	}
}

// cmpIU sets out[k] = a[k] op u, or u op a[k] when uLeft: the operation
// chosen once, not per lane.
func cmpIU(out []bool, a []int, u int, op lower.BinaryOp, uLeft bool) {
	a = a[:len(out)]
	switch {
	case op == lower.Lt && !uLeft:
		for k, y := range a {
			out[k] = y < u
		}
	case op == lower.Lt:
		for k, y := range a {
			out[k] = u < y
		}
	case op == lower.Le && !uLeft:
		for k, y := range a {
			out[k] = y <= u
		}
	case op == lower.Le:
		for k, y := range a {
			out[k] = u <= y
		}
	case op == lower.Eq:
		for k, y := range a {
			out[k] = y == u
		}
	default:
		for k, y := range a {
			out[k] = y != u
		}
	}
}

func cmpI(op lower.BinaryOp, a, b int) bool {
	switch op {
	case lower.Lt:
		return a < b
	case lower.Le:
		return a <= b
	case lower.Eq:
		return a == b
	}
	return a != b
}

func cmpF(op lower.BinaryOp, a, b float64) bool {
	switch op {
	case lower.Lt:
		return a < b
	case lower.Le:
		return a <= b
	case lower.Eq:
		return a == b
	}
	return a != b
}

// ancestorReal reports the column slot and level of e when e reads a
// real variable of a level d above l (a row's value, read by each of its
// entries through the lane map cx.anc[d]).
func (rg *region) ancestorReal(e lower.Expr, l int) (slot, d int, ok bool) {
	r, isRef := e.(*lower.Ref)
	if !isRef || r.V.Kind != lower.Real {
		return 0, 0, false
	}
	d, in := rg.level[r.V]
	if !in || d >= l {
		return 0, 0, false
	}
	return rg.fcol[r.V], d, true
}

// broadcastOperand finds the operand of x that is an ancestor level's
// variable (ancestorReal), when exactly one is: its column slot and
// level, and whether it is the left operand (two broadcasts are left to
// the general case).
func (rg *region) broadcastOperand(x *lower.Binary, l int) (slot, d int, left, ok bool) {
	slot, d, left = rg.ancestorReal(x.X, l)
	_, _, right := rg.ancestorReal(x.Y, l)
	switch {
	case left && right:
		return 0, 0, false, false
	case left:
		return slot, d, true, true
	}
	slot, d, ok = rg.ancestorReal(x.Y, l)
	return slot, d, false, ok
}

// broadcastBinary compiles a binary operation of which one operand is an
// ancestor level's variable (ancestorReal) and the other a column, as one
// pass that reads the variable through the lane map, instead of a pass
// that broadcasts it into a column and another that combines the two
// (c - x(j) in a row's loop). It returns nil for other operands.
func (rg *region) broadcastBinary(x *lower.Binary, l int, ca, cb fcol, buf int) fcol {
	slot, d, left, ok := rg.broadcastOperand(x, l)
	if !ok {
		return nil
	}
	other := cb
	if !left {
		other = ca
	}
	rg.useAnc(d, l)
	op := x.Op
	return func(fr *frame, cx *vctx) []float64 {
		b := other(fr, cx)
		src := fr.regions[rg.id].f[slot]
		anc := cx.anc[d][:len(b)]
		out := rg.fbuf(fr, buf, len(b))
		broadcastOp(out, b, src, anc, op, !left)
		return out
	}
}

// broadcastGather compiles a binary operation of an ancestor level's
// variable (ancestorReal) and a dense vector's guarded lookup at a key of
// the batch (select(0 <= j && j < n, X[j], 0), lower.GuardedLoad, as
// guardedGather compiles it alone) as one pass: each lane reads the
// variable through the lane map and gathers the vector at its key, and
// combines the two (x(i) - x(j) in the loop over a row's entries), where
// a pass gathered the lookups into a column and a second combined it.
// The arithmetic is the same. It returns nil for other operands, before
// compiling either.
func (rg *region) broadcastGather(x *lower.Binary, l int, buf int) fcol {
	slot, d, left, ok := rg.broadcastOperand(x, l)
	if !ok {
		return nil
	}
	other := x.Y
	if !left {
		other = x.X
	}
	s, ok := other.(*lower.Select)
	if !ok {
		return nil
	}
	n, ld := lower.GuardedLoad(s)
	if ld == nil || ld.A.Kind != lower.Real || rg.varies(n) {
		return nil // (the select's else is a real zero: its load is of reals)
	}
	un := rg.c.int(n)
	_, cj := rg.int(ld.Index, l, false)
	rg.useAnc(d, l)
	a := ld.A.ID
	op := x.Op
	return func(fr *frame, cx *vctx) []float64 {
		idx, arr := cj(fr, cx), fr.fa[a]
		bound := uint(min(max(un(fr), 0), len(arr)))
		src := fr.regions[rg.id].f[slot]
		out := rg.fbuf(fr, buf, len(idx))
		broadcastGatherOp(out, idx, arr[:bound], src, cx.anc[d], op, !left)
		return out
	}
}

// broadcastGatherOp sets out[k] = src[anc[k]] op g, or g op src[anc[k]]
// when flip, where g is arr[idx[k]], or 0 where idx[k] is outside arr.
func broadcastGatherOp(out []float64, idx []int, arr, src []float64, anc []int32, op lower.BinaryOp, flip bool) {
	idx = idx[:len(out)]
	anc = anc[:len(out)]
	at := func(j int) float64 {
		if uint(j) < uint(len(arr)) {
			return arr[j]
		}
		return 0
	}
	switch {
	case op == lower.Add && !flip:
		for k, a := range anc {
			out[k] = src[a] + at(idx[k])
		}
	case op == lower.Add:
		for k, a := range anc {
			out[k] = at(idx[k]) + src[a]
		}
	case op == lower.Mul && !flip:
		for k, a := range anc {
			out[k] = src[a] * at(idx[k])
		}
	case op == lower.Mul:
		for k, a := range anc {
			out[k] = at(idx[k]) * src[a]
		}
	case op == lower.Sub && !flip:
		for k, a := range anc {
			out[k] = src[a] - at(idx[k])
		}
	case op == lower.Sub:
		for k, a := range anc {
			out[k] = at(idx[k]) - src[a]
		}
	case !flip:
		for k, a := range anc {
			out[k] = src[a] / at(idx[k])
		}
	default:
		for k, a := range anc {
			out[k] = at(idx[k]) / src[a]
		}
	}
}

// broadcastOp sets out[k] = src[anc[k]] op b[k], or b[k] op src[anc[k]]
// when flip (the broadcast operand on the right).
func broadcastOp(out, b, src []float64, anc []int32, op lower.BinaryOp, flip bool) {
	b = b[:len(out)]
	anc = anc[:len(out)]
	switch {
	case op == lower.Add:
		for k, a := range anc {
			out[k] = src[a] + b[k]
		}
	case op == lower.Mul:
		for k, a := range anc {
			out[k] = src[a] * b[k]
		}
	case op == lower.Sub && !flip:
		for k, a := range anc {
			out[k] = src[a] - b[k]
		}
	case op == lower.Sub:
		for k, a := range anc {
			out[k] = b[k] - src[a]
		}
	case !flip:
		for k, a := range anc {
			out[k] = src[a] / b[k]
		}
	default:
		for k, a := range anc {
			out[k] = b[k] / src[a]
		}
	}
}

// productChain runs a chain of products x1 * x2 * ... * xn (n of 3 or
// 4, chainFactors) as one pass over the batch instead of n - 1,
// multiplying in the same order (the rounding is the chain's). Other
// chains, and shorter ones, are the binary operations they are.
func (rg *region) productChain(x *lower.Binary, l int, chk bool, buf int) fcol {
	factors := rg.chain(x)
	if len(factors) < 3 {
		return nil
	}
	u, cols, ok := rg.chainFactors(factors, l, chk)
	if !ok {
		return nil
	}
	switch {
	case u == nil && len(cols) == 3:
		return func(fr *frame, cx *vctx) []float64 {
			a, b, c := cols[0](fr, cx), cols[1](fr, cx), cols[2](fr, cx)
			out := rg.fbuf(fr, buf, len(a))
			b, c = b[:len(a)], c[:len(a)]
			for k := range out {
				out[k] = a[k] * b[k] * c[k]
			}
			return out
		}
	case u == nil:
		return func(fr *frame, cx *vctx) []float64 {
			a, b, c, d := cols[0](fr, cx), cols[1](fr, cx), cols[2](fr, cx), cols[3](fr, cx)
			out := rg.fbuf(fr, buf, len(a))
			b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
			for k := range out {
				out[k] = a[k] * b[k] * c[k] * d[k]
			}
			return out
		}
	case len(cols) == 2:
		return func(fr *frame, cx *vctx) []float64 {
			v, a, b := u(fr), cols[0](fr, cx), cols[1](fr, cx)
			out := rg.fbuf(fr, buf, len(a))
			b = b[:len(a)]
			for k := range out {
				out[k] = v * a[k] * b[k]
			}
			return out
		}
	}
	return func(fr *frame, cx *vctx) []float64 {
		v, a, b, c := u(fr), cols[0](fr, cx), cols[1](fr, cx), cols[2](fr, cx)
		out := rg.fbuf(fr, buf, len(a))
		b, c = b[:len(a)], c[:len(a)]
		for k := range out {
			out[k] = v * a[k] * b[k] * c[k]
		}
		return out
	}
}

// chain returns the factors x1, ..., xn of e when it is a chain of
// products x1 * x2 * ... * xn of 2 to 4 real factors, parsed left to
// right as the language does (((x1 * x2) * x3) * x4), whose factors
// after the first vary from lane to lane; else nil.
func (rg *region) chain(e lower.Expr) []lower.Expr {
	x, ok := e.(*lower.Binary)
	if !ok || x.Op != lower.Mul || x.Kind() != lower.Real || !rg.varies(x) {
		return nil
	}
	factors := []lower.Expr{x.Y}
	e = x.X
	for {
		b, ok := e.(*lower.Binary)
		if !ok || b.Op != lower.Mul || b.Kind() != lower.Real || !rg.varies(b) {
			break
		}
		factors = append(factors, b.Y)
		e = b.X
	}
	factors = append(factors, e)
	slices.Reverse(factors)
	if len(factors) > 4 {
		return nil
	}
	for _, f := range factors[1:] {
		if !rg.varies(f) {
			return nil
		}
	}
	return factors
}

// chainFactors compiles a chain's factors (chain): u is x1 when it is
// uniform (cols then holds x2..xn), else nil (cols holds x1..xn). ok is
// false when a factor after the first compiles to a uniform value.
func (rg *region) chainFactors(factors []lower.Expr, l int, chk bool) (u fexpr, cols []fcol, ok bool) {
	u, c0 := rg.real(factors[0], l, chk)
	if u == nil {
		cols = append(cols, c0)
	}
	for _, f := range factors[1:] {
		uf, cf := rg.real(f, l, chk)
		if uf != nil {
			return nil, nil, false
		}
		cols = append(cols, cf)
	}
	return u, cols, true
}

// productSumOf is productSum of x when x is a chain of products (chain)
// whose factors compile (chainFactors), else nil.
func (rg *region) productSumOf(x lower.Expr, l int) func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
	factors := rg.chain(x)
	if factors == nil {
		return nil
	}
	u, cols, ok := rg.chainFactors(factors, l, false)
	if !ok {
		return nil
	}
	return productSum(u, cols)
}

// productSum returns, for a chain of products (chainFactors), a function
// that adds the chain's value at every lane of a batch into col, at
// the lane's ancestor (anc, non-nil; addRuns) or into one sum (anc nil,
// returning it): one pass, the products computed in the chain's order
// (a uniform first factor v, or 1: 1 * a is a, exactly) and added in the
// lanes' order, as the product's pass and then the sum's did.
func productSum(u fexpr, cols []fcol) func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
	one := func(*frame) float64 { return 1 }
	if u == nil {
		u = one
	}
	switch len(cols) {
	case 1:
		return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
			v, a := u(fr), cols[0](fr, cx)[:cx.n]
			if anc == nil || len(a) == 0 {
				for _, y := range a {
					s += v * y
				}
				return s
			}
			anc = anc[:len(a)]
			prev := anc[0]
			acc := col[prev]
			for k, p := range anc {
				if p != prev {
					col[prev] = acc
					prev, acc = p, col[p]
				}
				acc += v * a[k]
			}
			col[prev] = acc
			return s
		}
	case 2:
		return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
			v, a, b := u(fr), cols[0](fr, cx)[:cx.n], cols[1](fr, cx)
			b = b[:len(a)]
			if anc == nil || len(a) == 0 {
				for k := range a {
					s += v * a[k] * b[k]
				}
				return s
			}
			anc = anc[:len(a)]
			prev := anc[0]
			acc := col[prev]
			for k, p := range anc {
				if p != prev {
					col[prev] = acc
					prev, acc = p, col[p]
				}
				acc += v * a[k] * b[k]
			}
			col[prev] = acc
			return s
		}
	case 3:
		return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
			v, a, b, c := u(fr), cols[0](fr, cx)[:cx.n], cols[1](fr, cx), cols[2](fr, cx)
			b, c = b[:len(a)], c[:len(a)]
			if anc == nil || len(a) == 0 {
				for k := range a {
					s += v * a[k] * b[k] * c[k]
				}
				return s
			}
			anc = anc[:len(a)]
			prev := anc[0]
			acc := col[prev]
			for k, p := range anc {
				if p != prev {
					col[prev] = acc
					prev, acc = p, col[p]
				}
				acc += v * a[k] * b[k] * c[k]
			}
			col[prev] = acc
			return s
		}
	}
	return func(fr *frame, cx *vctx, col []float64, anc []int32, s float64) float64 {
		v, a, b, c, d := u(fr), cols[0](fr, cx)[:cx.n], cols[1](fr, cx), cols[2](fr, cx), cols[3](fr, cx)
		b, c, d = b[:len(a)], c[:len(a)], d[:len(a)]
		if anc == nil || len(a) == 0 {
			for k := range a {
				s += v * a[k] * b[k] * c[k] * d[k]
			}
			return s
		}
		anc = anc[:len(a)]
		prev := anc[0]
		acc := col[prev]
		for k, p := range anc {
			if p != prev {
				col[prev] = acc
				prev, acc = p, col[p]
			}
			acc += v * a[k] * b[k] * c[k] * d[k]
		}
		col[prev] = acc
		return s
	}
}
