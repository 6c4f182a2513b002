package gogen

import (
	"math"

	"github.com/nablasd/nablasd/lower"
)

// A temporary kept in the result. A gradient with respect to a dense
// vector x accumulates x̄ in a temporary vector T and ends with a loop
// from 0 copying T into the result R (a copy loop: out(i) = T(i), or
// T(i) defaulting to zero past T's keys), where a hand-written gradient
// adds into its result directly. When nothing else reads T, and nothing
// touches R from R's Init to that copy, T can be the start of R's own
// memory: the kernel then clears R's first len(T) entries where it would
// clear T, accumulates there, and the copy has nothing left to move but
// the zeros of the keys T does not hold. The downsampling's native
// gradient spent 0.5 ms of 5.4 in that copy (8 MB), the hand-written
// loop 4.1 ms in all.
//
// Whether T fits in R is known only at run time (T's extent and R's are
// the program's sizes), so T's Init tests it and sets a flag
// (TInResult): when T does not fit, T has its own memory and the copy
// loop runs as it would have. T's struct is never given R's memory (a
// later call may pass another destination); only its locals are.
//
// The conditions, on the program's structure (findInResults):
//   - R is the result, a vector of reals in a full dense level; T an
//     intermediate vector of reals in a dense level that never grows (its
//     extent is sized at its Init: lower.Level.Size) and keeps no
//     presence (Unmarked), so every key below its extent holds a value;
//   - T and R each have one Init, both statements of the program's top
//     level, R's first; the copy loop is a later statement of the top
//     level, and the only statement that reads T; no statement between
//     R's Init and the copy touches R (T's Init clears R's first keys),
//     none after the copy touches T;
//   - R's Init is not a clear deferred to a parallel loop's workers.
//
// A loop on several goroutines reads a tensor's memory from its struct
// (parallel.go). Where one touches T, T's struct is given R's memory
// with the locals (its own struct value saved first), and a deferred
// call gives the struct back its own when the function returns, whatever
// the way. T's Init may then be a clear deferred to that loop's workers
// (deferclear.go): they clear R's first keys, through T's struct. The
// downsampling's native gradient on two goroutines copied x̄ into the
// result after four parallel loops (0.9–1.2x the speed of one).
//
// The copy loop reads T(i) at position i and stores it at R's position
// i, in ascending i: run over T kept in R, each entry is copied onto
// itself, so the loop stays right (if slow) wherever the flag is set and
// the quick path's conditions fail.

// inResult is a temporary T kept at the start of the result R.
type inResult struct {
	t, r *lower.Tensor
	init *lower.Init // T's Init
	loop *lower.For  // the copy loop
	// zero: the copy reads zero past T's extent (a locate); otherwise it
	// reads T's values directly (the loop fails past T's extent)
	zero bool
	flag string // the Go bool set when T is in R (at T's Init)
	// parallel: a loop on several goroutines touches T (its struct gets
	// R's memory)
	parallel bool
}

// findInResults finds the temporaries kept in the result (above).
func (g *gen) findInResults() {
	g.inResInit = map[*lower.Init]*inResult{}
	g.inResLoop = map[*lower.For]*inResult{}
	r := g.p.ResultTensor
	top, ok := g.p.Body.(*lower.Block)
	if r == nil || !ok || r.Order() != 1 || r.Leaf != lower.Real {
		return
	}
	if l := r.Levels[0]; l.Storage != lower.Dense || !l.Full {
		return
	}
	for i, s := range top.List {
		f, ok := s.(*lower.For)
		if !ok {
			continue
		}
		t, _, zero := copyFrom(f, r)
		if t == nil || t.Input || t.Order() != 1 || t.Leaf != lower.Real {
			continue
		}
		if l := t.Levels[0]; l.Storage != lower.Dense || !l.Unmarked || l.Size == nil {
			continue
		}
		if ir := g.inResultAt(top.List, i, t, r); ir != nil {
			ir.loop, ir.zero = f, zero
			g.inResInit[ir.init] = ir
			g.inResLoop[f] = ir
		}
	}
}

// inResultAt checks the conditions on the statements of the top level
// around the copy loop list[at] from t into r, and returns t's Init
// (in an inResult) when they hold.
func (g *gen) inResultAt(list []lower.Stmt, at int, t, r *lower.Tensor) *inResult {
	var tInit, rInit *lower.Init
	inits := 0
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		if in, ok := s.(*lower.Init); ok && (in.T == t || in.T == r) {
			inits++
		}
	})
	ti, ri := -1, -1
	for i, s := range list {
		if in, ok := s.(*lower.Init); ok {
			switch in.T {
			case t:
				tInit, ti = in, i
			case r:
				rInit, ri = in, i
			}
		}
	}
	if tInit == nil || rInit == nil || inits != 2 || !(ri < ti && ti < at) {
		return nil
	}
	if g.deferred.Init[rInit] {
		return nil
	}
	for i, s := range list {
		if i == ti || i == ri || i == at {
			continue
		}
		read, written := tensorUses(s)
		usesT, usesR := read[t] || written[t], read[r] || written[r]
		switch {
		case usesT && (i < ti || i > at):
			return nil // T is used outside its Init..copy
		case usesR && i > ri && i < at:
			return nil // R is touched between its Init and the copy (T's Init clears R's first keys)
		case read[t] && i != at:
			return nil // another statement reads T
		}
	}
	parallel := false
	for _, pl := range g.pars {
		if pl.why != "" {
			continue
		}
		for _, x := range pl.tensors {
			parallel = parallel || x == t // a worker reads T's struct
		}
	}
	return &inResult{t: t, r: r, init: tInit, flag: g.loc.name(sanitize(t.Name) + "InResult"), parallel: parallel}
}

// copyFrom returns the vector T a loop from 0 copies into a row of r,
// the insert into r, and whether the copy reads zero past T's keys (T
// nil when the loop is not such a copy):
//
//	x := 0.0; if q := locate(T.level0[0], i); found { x = T.val[q] }   // zero
//	x := T.val[i]                                                      // or directly
//	q2 := insert(r.levelL[p], i); r.val[q2] = x
//
// (T a dense vector: its position at key i is i).
func copyFrom(f *lower.For, r *lower.Tensor) (*lower.Tensor, *lower.Insert, bool) {
	if !isZero(f.Lo) {
		return nil, nil, false
	}
	b, ok := f.Body.(*lower.Block)
	if !ok || len(b.List) < 2 || len(b.List) > 4 {
		return nil, nil, false
	}
	ins, ok1 := b.List[len(b.List)-2].(*lower.Insert)
	st, ok2 := b.List[len(b.List)-1].(*lower.Store)
	if !ok1 || !ok2 || ins.T != r || !isRefTo(ins.Key, f.V) || st.T != r || st.Op != lower.Set || !isRefTo(st.Pos, ins.Pos) {
		return nil, nil, false
	}
	// the value stored: T.val[i], or a let of it
	direct := func(e lower.Expr) *lower.Tensor {
		if va, ok := e.(*lower.ValAt); ok && isRefTo(va.Pos, f.V) && va.T != r && denseVector(va.T) {
			return va.T
		}
		return nil
	}
	var t *lower.Tensor
	zero := false
	switch len(b.List) {
	case 2:
		t = direct(st.X)
	case 3:
		if let, ok := b.List[0].(*lower.Let); ok && isRefTo(st.X, let.V) {
			t = direct(let.X)
		}
	case 4:
		let, ok1 := b.List[0].(*lower.Let)
		loc, ok2 := b.List[1].(*lower.Locate)
		if !ok1 || !ok2 || !isRefTo(st.X, let.V) || !defaultOf(let, loc) {
			return nil, nil, false
		}
		if loc.T != r && denseVector(loc.T) && loc.Level == 0 && isZero(loc.Parent) && isRefTo(loc.Key, f.V) {
			t, zero = loc.T, true
		}
	}
	if t == nil {
		return nil, nil, false
	}
	return t, ins, zero
}

// defaultOf reports whether let and loc are a lookup defaulting to zero,
// x := 0.0; if q := locate(...); found { x = T.val[q] }, of loc's T.
func defaultOf(let *lower.Let, loc *lower.Locate) bool {
	// a lookup's default is its type's zero (+0: a copy then a clear)
	if c, ok := let.X.(*lower.Const); !ok || let.V.Kind != lower.Real || c.F != 0 || math.Signbit(c.F) {
		return false
	}
	body := loc.Body
	if bb, ok := body.(*lower.Block); ok && len(bb.List) == 1 {
		body = bb.List[0]
	}
	as, ok := body.(*lower.Assign)
	if !ok || as.V != let.V || as.Op != lower.Set {
		return false
	}
	va, ok := as.X.(*lower.ValAt)
	return ok && va.T == loc.T && isRefTo(va.Pos, loc.Pos)
}

// denseVector reports whether t is a vector of reals in a dense level
// that keeps no presence: its position at key k is k, and every key
// below its extent is present.
func denseVector(t *lower.Tensor) bool {
	l := t.Levels[0]
	return t.Order() == 1 && t.Leaf == lower.Real && l.Storage == lower.Dense && (l.Full || l.Unmarked)
}

// inResultInit emits T's Init when T may be kept in R: at the start of
// R's memory when its extent fits there (cleared as T's init would clear
// it), in its own memory otherwise.
func (g *gen) inResultInit(ir *inResult, s *lower.Init) {
	ti, ri := g.ts[ir.t], g.ts[ir.r]
	vals, n0 := ti.f(valsField), ti.f(nField(0))
	g.line("%s := false // %s is kept at the start of the result's memory (inresult.go)", ir.flag, ir.t.Name)
	e := g.loc.name("e")
	g.line("if %s := %s; 0 <= %s && %s <= len(%s) {", e, g.initArgs(ir.t)[0], e, e, ri.f(valsField))
	g.line("%s = %s[:%s:%s]", vals, ri.f(valsField), e, e)
	g.line("%s = %s", n0, e)
	if ir.parallel {
		own := g.loc.name(sanitize(ir.t.Name) + "Own")
		g.line("%s := *%s // the struct's own memory, given back on return", own, ti.ptr)
		g.line("defer func() { *%s = %s }()", ti.ptr, own)
		g.line("%s.%s, %s.%s = %s, %s // the workers read it", ti.ptr, valsField, ti.ptr, nField(0), vals, n0)
	}
	switch {
	case g.deferred.Init[s]:
		g.line("// emptied by the parallel loop below, on its goroutines (deferclear.go)")
	case s.Covered != nil:
		// the statements that follow set every value when it holds
		g.line("if !(%s) {\nclear(%s)\n}", g.coveredCond(s), vals)
	default:
		g.line("clear(%s)", vals)
	}
	g.line("%s = true", ir.flag)
	g.line("} else {")
	g.initStmt(s)
	g.line("}")
	// the locals hold R's memory or T's: the struct holds T's (R's too
	// for the workers, when parallel)
	g.unsync(ti)
}

// inResultCopy emits the copy loop of T into R: with T in R, the values
// are in place and only the keys of R the copy sets to zero, or leaves as
// R's Init left them (zero: the Init cleared R, as its Covered condition
// does not hold when the loop's range misses keys) while T held them, are
// cleared; otherwise the loop runs as it would have.
func (g *gen) inResultCopy(ir *inResult, f *lower.For) {
	vals, out := g.ts[ir.t].f(valsField), g.ts[ir.r].f(valsField)
	hi := g.simple(f.Hi, lower.Int, "hi")
	if ir.zero {
		// keys below min(T's extent, hi) hold T's values; those between
		// it and max(T's extent, hi) are zero
		g.line("if %s && %s <= len(%s) { // the copy of %s, in place (inresult.go)", ir.flag, hi, out, ir.t.Name)
		h := g.loc.name("h")
		g.line("%s := max(%s, 0)", h, hi)
		g.line("clear(%s[min(len(%s), %s):max(len(%s), %s)])", out, vals, h, vals, h)
	} else {
		// the loop reads T's value at every key below hi
		g.line("if %s && %s <= len(%s) { // the copy of %s, in place (inresult.go)", ir.flag, hi, vals, ir.t.Name)
		g.line("clear(%s[max(%s, 0):len(%s)])", out, hi, vals)
	}
	g.line("} else {")
	g.unsync(nil)
	g.push()
	g.forStmt(f)
	g.pop()
	g.unsync(nil)
	g.line("}")
}
