package exec

import (
	"fmt"
	"maps"

	"github.com/nablasd/nablasd/lower"
)

// This file compiles the statements of a columnar region: assignments,
// conditionals and the loops that open a child batch.

// stmt compiles s to run over the lanes of a batch of level l.
func (rg *region) stmt(s lower.Stmt, l int) vstmt {
	rg.note(l)
	switch s := s.(type) {
	case nil:
		return func(*frame, *vctx) {}
	case *lower.Block:
		fs := make([]vstmt, 0, len(s.List))
		// the block's int lets of this level, and how many reads of
		// their columns were compiled before the rest of the block
		type intLet struct {
			at    int
			v     *lower.Var
			reads int
			// read counts the reads of other columns its expression's
			// compilation made (undone when the let is dropped)
			read map[*lower.Var]int
		}
		var lets []intLet
		for i := 0; i < len(s.List); i++ {
			if i+1 < len(s.List) {
				if f := rg.letLocate(s.List[i], s.List[i+1], l); f != nil {
					fs = append(fs, f)
					i++
					continue
				}
				if f := rg.insertStore(s.List[i], s.List[i+1], s.List[i+2:], l); f != nil {
					fs = append(fs, f)
					i++
					continue
				}
			}
			var before map[*lower.Var]int
			if let, ok := s.List[i].(*lower.Let); ok && let.V.Kind == lower.Int {
				before = maps.Clone(rg.colReads)
			}
			fs = append(fs, rg.stmt(s.List[i], l))
			if let, ok := s.List[i].(*lower.Let); ok && let.V.Kind == lower.Int && !rg.assigned[let.V] && rg.level[let.V] == l {
				read := map[*lower.Var]int{}
				for v, n := range rg.colReads {
					if n > before[v] {
						read[v] = n - before[v]
					}
				}
				lets = append(lets, intLet{len(fs) - 1, let.V, rg.colReads[let.V], read})
			}
		}
		// a let whose column nothing compiled after it reads (index
		// arithmetic a primitive reads through: c := 2·i in x(c + k))
		// computes nothing the batch needs; decided once the whole nest
		// is compiled (compileNest runs rg.compiled), the block's last
		// let first: a let dropped no longer reads the columns its
		// expression read (t := i + 1 no longer reads i's, which a loop
		// then fills only where a reader needs it: forStmt's lazy)
		for k := len(lets) - 1; k >= 0; k-- {
			x := lets[k]
			rg.compiled = append(rg.compiled, func() {
				if rg.colReads[x.v] == x.reads {
					fs[x.at] = func(*frame, *vctx) {}
					for v, n := range x.read {
						rg.colReads[v] -= n
					}
				}
			})
		}
		return func(fr *frame, cx *vctx) {
			for _, f := range fs {
				f(fr, cx)
			}
		}
	case *lower.Let:
		rg.define(s.V, l)
		if s.V.Kind == lower.Int && !rg.assigned[s.V] {
			if rg.intLet == nil {
				rg.intLet = map[*lower.Var]lower.Expr{}
			}
			rg.intLet[s.V] = s.X
		}
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
		return rg.fail(s, l)
	}
	panic(fmt.Sprintf("internal error: exec: columnar %T", s))
}

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
	// (decided once the whole nest is compiled: after the lets nobody
	// reads are dropped)
	// ups: the child batches' lane maps to this level or above are read
	// (by a statement of their level or deeper that reads a column of
	// those levels or adds into one, region.useAnc; the maps above are
	// computed through this one, regionBufs.childOf), so each lane's
	// parent is written; else only the batches' extents matter
	lazy, ups := false, true
	rg.compiled = append(rg.compiled, func() {
		lazy = rg.colReads[s.V] == 0
		ups = false
		for d := 0; d <= l && d < len(rg.ancUse); d++ {
			ups = ups || rg.ancUse[d] > l
		}
	})
	lob, hib := rg.loBuf(l), rg.hiBuf(l)
	return func(fr *frame, cx *vctx) {
		los, his := bounds(fr, cx, ulo, clo, uhi, chi, rg, lob, hib)
		rb := fr.regions[rg.id]
		parents, vcol := rb.parents(cx), rb.i[vslot]
		m, contig, start := 0, true, 0
		one := -1 // the lane whose range every lane so far comes from, -2 several
		flush := func() {
			ch := rb.childOf(cx, m)
			ch.one = max(one, -1)
			one = -1
			switch {
			case contig && start >= 0:
				ch.base = start
			case contig && lazy:
				// consecutive from a negative position (a range from
				// -1): base cannot say so (-1 is "not consecutive"),
				// so the lanes' column is filled for the body's reads
				for t := range vcol[:m] {
					vcol[t] = start + t
				}
			}
			body(fr, ch)
			m, contig = 0, true
		}
		for k := 0; k < cx.n; k++ {
			if m >= batch/2 && los[k] < his[k] {
				// a batch at least half full ends with a lane's range
				// rather than run on into the next lane's: its lanes
				// stay consecutive positions of one lane (a row of a
				// stencil), whose loads and stores are slices (one)
				flush()
			}
			// a lane's range, in pieces that fill the batch
			for p, h := los[k], his[k]; p < h; {
				switch one {
				case -1:
					one = k
				case k:
				default:
					one = -2
				}
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
				if ups {
					us := parents[m : m+take]
					for t := range us {
						us[t] = int32(k)
					}
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

func fill[T elem](dst []T, v T) []T {
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

// fail compiles a Fail reached by the lanes of a batch: the lanes are in
// the loop's order, so the error is the first lane's, its message's
// arguments that lane's values (a uniform argument its one value).
func (rg *region) fail(s *lower.Fail, l int) vstmt {
	args := make([]func(*frame, *vctx) any, len(s.Args))
	for i, a := range s.Args {
		if a.Kind() == lower.Real {
			u, col := rg.real(a, l, true)
			args[i] = func(fr *frame, cx *vctx) any {
				if u != nil {
					return u(fr)
				}
				return col(fr, cx)[0]
			}
			continue
		}
		u, col := rg.int(a, l, true)
		args[i] = func(fr *frame, cx *vctx) any {
			if u != nil {
				return u(fr)
			}
			return col(fr, cx)[0]
		}
	}
	pos, msg := s.Pos, s.Msg
	return func(fr *frame, cx *vctx) {
		if cx.n == 0 {
			return
		}
		vals := make([]any, len(args))
		for i, a := range args {
			vals[i] = a(fr, cx)
		}
		panic(rtErrorf("%s: %s", pos, fmt.Sprintf(msg, vals...)))
	}
}
