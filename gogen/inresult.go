package gogen

import "github.com/nablasd/nablasd/lower"

// A temporary kept in the result (lower.TempsInResult says when a
// temporary T may be kept at the start of the result R, and why). T's
// Init tests at run time whether T fits in R and sets a flag
// (TInResult): then T's locals hold R's first keys, cleared as T's Init
// would clear them, and the copy loop only clears what T does not hold;
// else T has its own memory and the copy loop runs as it would have. The
// downsampling's native gradient spent 0.5 ms of 5.4 in that copy (8 MB),
// the hand-written loop 4.1 ms in all.
//
// T's struct keeps its own memory, so that a later call that passes
// another destination cannot write this one's. But a loop on several
// goroutines reads a tensor's memory from its struct (parallel.go): where
// one touches T, T's struct is given R's memory with the locals (its own
// struct value saved first), and a deferred call gives the struct back
// its own when the function returns, whatever the way. T's Init may then
// be a clear deferred to that loop's workers (deferclear.go): they clear
// R's first keys, through T's struct. The downsampling's native gradient
// on two goroutines copied x̄ into the result after four parallel loops
// (0.9–1.2x the speed of one).

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
	for _, tr := range lower.TempsInResult(g.p, g.deferred) {
		parallel := false
		for _, pl := range g.pars {
			if pl.why != "" {
				continue
			}
			for _, x := range pl.tensors {
				parallel = parallel || x == tr.T // a worker reads T's struct
			}
		}
		ir := &inResult{t: tr.T, r: tr.R, init: tr.Init, loop: tr.Copy, zero: tr.Zero,
			flag: g.loc.name(sanitize(tr.T.Name) + "InResult"), parallel: parallel}
		g.inResInit[ir.init] = ir
		g.inResLoop[ir.loop] = ir
	}
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
