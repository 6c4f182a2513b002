package gogen

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// Parallel loops (Options.Parallel). A loop lowering marks parallel
// (lower.Par: its iterations only add into tensors and variables made
// before it, write a dense full tensor each under its own key, or fill
// workspaces of their own) runs, when the function's threads > 1 and the
// loop has enough work, on up to threads goroutines, as the closure
// runtime runs it (exec/parallel.go): each worker takes a contiguous range
// of the iterations (equal shares of the entries of the rows the loop
// reads, when it reads rows of a compressed level, so that rows of unequal
// length balance) and runs the loop's own code over it, in a function
// literal that PFXRun calls on a goroutine per worker. Then:
//
//   - a variable the loop adds to (Par.Reduce) is a local of each worker,
//     added into the function's in worker order;
//   - a tensor every iteration writes in place, under its own key of
//     level 0 of a tensor whose positions its init fixes
//     (lower.FixedAtInit: Par.Shared), is written by every worker;
//   - a workspace the loop initializes itself (Par.Private) is the
//     function's for worker 0 and a copy of its own for each other;
//   - a tensor the loop adds into (Par.Tensors) is the function's for
//     worker 0, and for each other a copy, emptied to the function's
//     sizes by the worker itself (emptyLike), added into the function's
//     after, in worker order (markFrom, then addFrom range by range on
//     every worker). The copies are supported where every level has its
//     positions fixed by init (dense, positions and diagonal levels: the
//     values one slice, added element by element, and presence or-ed),
//     and for rows appended under a dense level (Gustavson's, each worker
//     filling rows of its own: the copies' rows are appended whole, at
//     once and on every worker, appendAllFrom); a loop adding into a tensor of another storage
//     (sparse, hashed) runs serially, and the generated code says so.
//     Where the loop's keys at level 0 of every such tensor are a stride
//     times its variable plus constants and inner loops' variables
//     (lower.InPlaceRowsOf) and, at run time, its rows lie inside the
//     tensor, every worker writes the function's own instead, leaving
//     the iterations a chunk shares with the one before to run after
//     them (inplace.go).
//
// The workers' copies live in the workspace with Options.Workspace, so
// that they are reused. Every worker recovers its own panics and returns
// its errors; the function fails with the first in worker order (a panic
// is raised again on the function's goroutine, where its recovery makes a
// run-time error an error). The serial loop stays as it is, run when
// threads <= 1 or the work is short.
//
// The function literal reads the function's locals it needs through
// copies made just before it (x := x), which nothing reassigns, so that Go
// captures them by value and the function's own locals stay in registers.
// It declares the tensors' locals again from their structs, which the
// function syncs first; a tensor it only reads is frozen (its locals are
// never stored back, which would be a race).

// parPlan is how a loop marked parallel is emitted.
type parPlan struct {
	// why says why the loop runs serially ("" when it may not).
	why string
	// pos is the pos array of the rows the loop reads (their entries
	// measure its work), or nil.
	pos *lower.Array
	// tensors are the tensors the loop's body touches.
	tensors []*lower.Tensor
}

// parWorker is the state of the emission of a worker's code.
type parWorker struct {
	own map[*tinfo]bool // the tensors the worker writes copies of (or the function's, worker 0)
}

// minParallel is the default of Options.MinParallel: exec's.
const minParallel = 8192

// planParallel decides, with Options.Parallel, how every loop marked
// parallel is emitted (g.pars), and names the kernel's threads parameter
// when one may run on several goroutines.
func (g *gen) planParallel() {
	if !g.opts.Parallel {
		return
	}
	g.pars = map[*lower.For]*parPlan{}
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		if f, ok := s.(*lower.For); ok && f.Par != nil {
			pl := g.parallelPlan(f)
			g.pars[f] = pl
			g.parOrder = append(g.parOrder, f)
			if pl.why == "" && g.threads == "" {
				g.threads = g.loc.name("threads")
			}
			if pl.why == "" {
				for _, t := range f.Par.Tensors {
					g.merged[t] = true
				}
			}
		}
	})
	g.nameCopies()
}

// parallelPlan checks a marked loop against what the generator supports.
func (g *gen) parallelPlan(f *lower.For) *parPlan {
	pl := &parPlan{pos: lower.RowSegment(f)}
	par := f.Par
	declared := map[*lower.Var]bool{f.V: true}
	lower.WalkStmts(f.Body, func(s lower.Stmt) {
		for _, v := range lower.BindsOf(s) {
			declared[v] = true
		}
	})
	// the variables the loop binds must be its own: a worker binding one
	// the function declares would set the function's
	outside := map[*lower.Var]bool{}
	walkOutside(g.p.Body, f, func(s lower.Stmt) {
		for _, v := range lower.BindsOf(s) {
			outside[v] = true
		}
	})
	for _, v := range g.p.Vars {
		switch {
		case !declared[v] || !g.read[v]:
		case g.hoisted[v]:
			pl.why = fmt.Sprintf("its variable %s is read after it", v.Name)
		case outside[v]:
			pl.why = fmt.Sprintf("its variable %s is also set outside it", v.Name)
		}
		if pl.why != "" {
			return pl
		}
	}
	reduce := map[*lower.Var]bool{}
	for _, v := range par.Reduce {
		reduce[v] = true
	}
	lower.WalkStmts(f.Body, func(s lower.Stmt) {
		if a, ok := s.(*lower.Assign); ok && pl.why == "" && !declared[a.V] && (!reduce[a.V] || a.Op != lower.AddTo) {
			pl.why = fmt.Sprintf("it sets %s, declared before it", a.V.Name)
		}
	})
	g.walkLive(f.Body, func(e lower.Expr) {
		lower.WalkExpr(e, func(x lower.Expr) {
			if r, ok := x.(*lower.Ref); ok && reduce[r.V] && pl.why == "" {
				pl.why = fmt.Sprintf("it reads %s, which it adds to", r.V.Name)
			}
		})
	})
	if pl.why != "" {
		return pl
	}
	read, written := lower.TensorUses(f.Body)
	in := func(ts []*lower.Tensor, t *lower.Tensor) bool {
		for _, x := range ts {
			if x == t {
				return true
			}
		}
		return false
	}
	for _, t := range g.p.Tensors {
		if read[t] || written[t] {
			pl.tensors = append(pl.tensors, t)
		}
		if written[t] && !in(par.Tensors, t) && !in(par.Shared, t) && !in(par.Private, t) {
			return &parPlan{why: fmt.Sprintf("it writes %s, which its mark does not name", t.Name)}
		}
	}
	for _, t := range par.Tensors {
		switch {
		case read[t]:
			pl.why = fmt.Sprintf("it reads %s, which it adds into", t.Name)
		case !fixedPositions(t, t.Order()-1) && !appendedRows(t) || t.Input:
			pl.why = fmt.Sprintf("its workers would add into copies of %s (%s), and this generator merges copies only of dense, positions and diagonal levels, and of rows appended under a dense level",
				t.Name, levelsString(t))
		case g.covered(t):
			pl.why = fmt.Sprintf("%s is not cleared before it", t.Name)
		}
		if pl.why != "" {
			return pl
		}
	}
	for _, t := range par.Shared {
		if read[t] || !lower.FixedAtInit(t) {
			pl.why = fmt.Sprintf("%s is not a tensor whose positions its init fixes, which its iterations write apart", t.Name)
			return pl
		}
	}
	for _, t := range par.Private {
		if mentionedOutside(g.p.Body, f, t) {
			pl.why = fmt.Sprintf("%s, which each worker would fill for itself, is read after it", t.Name)
			return pl
		}
	}
	return pl
}

// appendedRows reports whether t is a dense level 0 over an appended
// level 1: Gustavson's rows, each filled in one burst. The workers of a
// loop over distinct rows fill distinct rows, which are merged by
// appending a copy's children whole (appendAllFrom).
func appendedRows(t *lower.Tensor) bool {
	return t.Order() == 2 && t.Levels[0].Storage == lower.Dense && t.Levels[1].Storage == lower.Appended
}

// levelsString names a tensor's levels' storages: "dense × appended".
func levelsString(t *lower.Tensor) string {
	var s []string
	for _, l := range t.Levels {
		s = append(s, l.Storage.String())
	}
	return strings.Join(s, " × ")
}

// mentionedOutside reports whether a statement of the program other than
// the loop f (and those in it) uses t, other than to initialize it.
func mentionedOutside(body lower.Stmt, f *lower.For, t *lower.Tensor) bool {
	found := false
	walkOutside(body, f, func(s lower.Stmt) {
		if _, init := s.(*lower.Init); init {
			return
		}
		read, written := lower.TensorUses(shallow(s))
		found = found || read[t] || written[t]
	})
	return found
}

// walkOutside calls visit for every statement of body but the loop f and
// the statements in it (Blocks not included).
func walkOutside(body lower.Stmt, f *lower.For, visit func(lower.Stmt)) {
	var walk func(s lower.Stmt)
	walk = func(s lower.Stmt) {
		if s == nil || s == lower.Stmt(f) {
			return
		}
		if _, block := s.(*lower.Block); !block {
			visit(s)
		}
		for _, c := range children(s) {
			walk(c)
		}
	}
	walk(body)
}

// shallow is a statement without the statements it contains.
func shallow(s lower.Stmt) lower.Stmt {
	switch x := s.(type) {
	case *lower.If:
		return &lower.If{Cond: x.Cond}
	case *lower.For:
		return &lower.For{V: x.V, Lo: x.Lo, Hi: x.Hi}
	case *lower.ForLevel:
		c := *x
		c.Body = nil
		return &c
	case *lower.Search:
		c := *x
		c.Body = nil
		return &c
	case *lower.Locate:
		c := *x
		c.Body = nil
		return &c
	}
	return s
}

// children are the statements a statement contains.
func children(s lower.Stmt) []lower.Stmt {
	switch x := s.(type) {
	case *lower.Block:
		return x.List
	case *lower.If:
		return []lower.Stmt{x.Then, x.Else}
	case *lower.For:
		return []lower.Stmt{x.Body}
	case *lower.ForLevel:
		return []lower.Stmt{x.Body}
	case *lower.Search:
		return []lower.Stmt{x.Body}
	case *lower.Locate:
		return []lower.Stmt{x.Body}
	}
	return nil
}

// parallelFor emits a loop marked parallel, when the plan lets it run on
// several goroutines, and reports whether it did: the loop on the
// workers when there are several, else the serial loop.
func (g *gen) parallelFor(s *lower.For) bool {
	pl := g.pars[s]
	if pl == nil || g.worker != nil {
		return false
	}
	if pl.why != "" {
		g.comment(fmt.Sprintf("The loop over %s runs on one goroutine: %s.", s.V.Name, pl.why))
		return false
	}
	g.helpers["parallel"] = true
	g.comment(fmt.Sprintf("The loop over %s runs on up to %s goroutines when it has enough work, each over a range of its iterations: %s.",
		s.V.Name, g.threads, parMarkString(s.Par)))
	lo, hi, nw := g.loc.name("lo"), g.loc.name("hi"), g.loc.name("nw")
	g.typed(lo, "int")
	g.typed(hi, "int")
	g.line("%s, %s := %s, %s", lo, hi, g.exprAs(s.Lo, lower.Int), g.exprAs(s.Hi, lower.Int))
	pos := "nil"
	if pl.pos != nil {
		pos = g.arrays[pl.pos]
	}
	// the work of an iteration: the trips of its inner loop, read at the
	// first iteration (lower.InnerRange; exec's grain too)
	trips := "0"
	if inner := lower.InnerRange(s); inner != nil {
		trips = g.loc.name("trips")
		g.typed(trips, "int")
		g.line("%s := 0", trips)
		g.line("if %s < %s {", lo, hi)
		g.push()
		v := g.vars[s.V]
		g.line("%s := %s", v, lo)
		g.line("%s = %s - %s", trips, g.exprAs(inner.Hi, lower.Int), g.exprAs(inner.Lo, lower.Int))
		g.line("_ = %s", v)
		g.pop()
		g.line("}")
	}
	g.line("if %s := %sWorkers(%s, %s, %s, %s, %s); %s > 1 {", nw, g.pfx, g.threads, lo, hi, pos, trips, nw)
	g.unsync(nil)
	g.push()
	g.parallelRun(s, pl, lo, hi, nw)
	g.pop()
	g.unsync(nil)
	g.line("} else {")
	g.push()
	serial := *s
	serial.Par = nil
	if t := g.deferred.Loop[s]; t != nil {
		g.line("%s", g.deferredClear(t, "serially"))
	}
	g.forStmt(&serial)
	g.pop()
	g.unsync(nil)
	g.line("}")
	return true
}

// comment emits a comment, its words wrapped at 72 columns.
func (g *gen) comment(text string) {
	line := "//"
	for _, w := range strings.Fields(text) {
		if len(line)+1+len(w) > 72 && line != "//" {
			g.line("%s", line)
			line = "//"
		}
		line += " " + w
	}
	g.line("%s", line)
}

// parMarkString describes a loop's mark as lower.Print does.
func parMarkString(p *lower.Par) string {
	var parts []string
	var sums []string
	for _, t := range p.Tensors {
		sums = append(sums, t.Name)
	}
	for _, v := range p.Reduce {
		sums = append(sums, v.Name)
	}
	names := func(ts []*lower.Tensor) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.Name)
		}
		return strings.Join(s, ", ")
	}
	if len(sums) > 0 {
		parts = append(parts, "adding into "+strings.Join(sums, ", "))
	}
	if len(p.Shared) > 0 {
		parts = append(parts, "writing "+names(p.Shared)+" in place")
	}
	if len(p.Private) > 0 {
		parts = append(parts, "each worker its own "+names(p.Private))
	}
	if len(parts) == 0 {
		return "writing nothing outside it"
	}
	return strings.Join(parts, "; ")
}

// parallelRun emits the body of the branch running the loop s on nw > 1
// workers over lo..hi-1 (Go names).
func (g *gen) parallelRun(s *lower.For, pl *parPlan, lo, hi, nw string) {
	par := s.Par
	work := g.opts.Workspace && g.hasWork()
	if work {
		g.line("ws.Workers = max(ws.Workers, %s)", nw)
	}
	// the structs hold what the workers read: they load their locals
	// from them
	for _, t := range pl.tensors {
		if driftingLocals(t) {
			g.syncOut(g.ts[t])
		}
	}
	// A loop that keeps no copies (it adds into variables, writes in
	// place by key, or reads only) runs in chunks the workers take in
	// turn (PFXRunChunks): nc of them, each with its own sums. So does
	// a loop that adds into copies of tensors of few values (a short
	// gradient's), a copy a chunk, when they are small at run time
	// (PFXSmallCopies); else a chunk a worker, in order.
	chunked := len(par.Private) == 0 && lower.InPlaceRowsOf(s) == nil
	for _, t := range par.Tensors {
		chunked = chunked && !appendedRows(t) && !growable(t)
	}
	nparts := nw
	if chunked {
		nparts = g.loc.name("nc")
		if len(par.Tensors) == 0 {
			g.line("%s := %sChunks(%s, %s, %s) // taken in turn by the workers (parallel.go)", nparts, g.pfx, nw, lo, hi)
		} else {
			var sizes []string
			for _, t := range par.Tensors {
				sizes = append(sizes, "len("+g.ts[t].ptr+".Vals)")
			}
			g.line("%s := %s // a chunk a worker, or, with copies of few values, taken in turn (parallel.go)", nparts, nw)
			g.line("if %s <= %sSmallCopies {\n%s = %sChunks(%s, %s, %s)\n}", strings.Join(sizes, "+"), g.pfx, nparts, g.pfx, nw, lo, hi)
		}
	}
	own := map[*tinfo]bool{}
	copies := map[*lower.Tensor]string{}
	shapes := map[*lower.Tensor]string{}
	for _, t := range par.Tensors {
		ti := g.ts[t]
		own[ti] = true
		shapes[t] = g.loc.name(sanitize(t.Name) + "_shape")
		g.line("%s := *%s // the sizes of the workers' copies", shapes[t], ti.ptr)
		copies[t] = g.workerCopies(ti, nparts)
	}
	for _, t := range par.Private {
		own[g.ts[t]] = true
	}
	ip := g.inPlaceCheck(s, lo, hi, nw)
	var reduce []*lower.Var
	parts := map[*lower.Var]string{}
	for _, v := range par.Reduce {
		if g.read[v] {
			reduce = append(reduce, v)
			parts[v] = g.loc.name(g.vars[v] + "_parts")
			g.line("%s := make([]%s, %s)", parts[v], goKind(v.Kind), nparts)
		}
	}

	// the worker's code: a chunk of the loop over from..to-1
	w, from, to := g.chunkVars()
	pos := "nil"
	if pl.pos != nil {
		pos = g.arrays[pl.pos]
	}
	g.worker = &parWorker{own: own}
	for _, t := range pl.tensors {
		ti := g.ts[t]
		g.synced[ti] = true
		if !own[ti] {
			g.frozen[ti] = true
		}
	}
	body := g.capture(func() {
		g.line("%s, %s := %sSplit(%s, %s, %s, %s, %s), %sSplit(%s, %s, %s+1, %s, %s)", g.vars[from], g.vars[to],
			g.pfx, lo, hi, w, nparts, pos, g.pfx, lo, hi, w, nparts, pos)
		if ip != nil {
			if t := g.deferred.Loop[s]; t != nil {
				g.line("if %s {", ip.inPlace)
				g.regionClear(t, ip, w, nw, g.vars[from], g.vars[to])
				g.line("}")
			}
			g.line("if %s > 0 && %s {\n%s = min(%s+%s, %s)\n}", w, ip.inPlace, g.vars[from], g.vars[from], ip.skip, g.vars[to])
		}
		g.push()
		g.declare(from)
		g.declare(to)
		g.forStmt(&lower.For{V: s.V, Lo: &lower.Ref{V: from}, Hi: &lower.Ref{V: to}, Body: s.Body, Prim: s.Prim})
		g.pop()
		for _, v := range reduce {
			g.line("%s[%s] = %s", parts[v], w, g.vars[v])
		}
		g.unsync(nil)
		for _, t := range pl.tensors {
			if ti := g.ts[t]; own[ti] && driftingLocals(t) {
				g.syncOut(ti)
			}
		}
		g.line("return nil")
	})
	g.worker = nil
	clear(g.frozen)
	g.unsync(nil)

	// what the worker's code reads from outside it
	free, err := freeNames(body)
	if err != nil {
		g.failf("internal error: a parallel loop's worker does not parse: %v\n%s", err, body)
	}
	declared := map[string]bool{} // in the worker's code, before its body
	for _, v := range reduce {
		declared[g.vars[v]] = true
	}
	// a workspace the workers fill, each its own (its copies, when the
	// worker's code uses it)
	for _, t := range par.Private {
		if ti := g.ts[t]; free.used[ti.ptr] {
			copies[t] = g.workerCopies(ti, nw)
		}
	}
	var shadow []string
	for _, n := range free.order {
		if g.reassigned(n) && !declared[n] {
			shadow = append(shadow, n)
		}
	}
	if len(shadow) > 0 {
		g.line("// the workers read copies of these, which nothing reassigns (captured by value)")
		list := strings.Join(shadow, ", ")
		g.line("%s := %s", list, list)
	}
	werr := g.loc.name("werr")
	if chunked {
		g.line("%s := %sRunChunks(%s, %s, func(%s int) error {", werr, g.pfx, nw, nparts, w)
	} else {
		g.line("%s := %sRun(%s, func(%s int) error {", werr, g.pfx, nw, w)
	}
	for _, t := range par.Tensors {
		ti := g.ts[t]
		g.line("%s := %s", ti.ptr, ti.ptr)
		els := ""
		if g.deferred.Loop[s] == t {
			els = "\n} else {\n" + g.deferredClear(t, "on the first worker")
		}
		notInPlace := ""
		if ip != nil {
			notInPlace = " && !" + ip.inPlace
			if els != "" {
				els = "\n} else if !" + ip.inPlace + " {\n" + g.deferredClear(t, "on the first worker")
			}
		}
		g.line("if %s > 0%s {\n%s = &%s[%s-1]\n%s.emptyLike(&%s)%s\n}", w, notInPlace, ti.ptr, copies[t], w, ti.ptr, shapes[t], els)
	}
	for _, t := range par.Private {
		if ti := g.ts[t]; free.used[ti.ptr] {
			g.line("%s := %s", ti.ptr, ti.ptr)
			g.line("if %s > 0 {\n%s = &%s[%s-1]\n}", w, ti.ptr, copies[t], w)
		}
	}
	var unread []string
	for _, ti := range g.order {
		for _, f := range ti.hoist {
			if l := ti.local[f]; free.used[l] {
				g.line("%s := %s.%s", l, ti.ptr, f)
				if !free.read[l] {
					unread = append(unread, l)
				}
			}
		}
	}
	for _, v := range reduce {
		zero := map[lower.Kind]string{lower.Real: "0.0", lower.Int: "0", lower.Bool: "false"}[v.Kind]
		g.line("%s := %s", g.vars[v], zero)
	}
	for _, l := range unread {
		g.line("_ = %s // set, not read, by the worker", l)
	}
	g.w.Write(body)
	g.line("})")
	// the function's locals of what the workers may have changed (worker 0
	// writes the function's own tensors), from their structs
	resync := func() {
		for _, t := range par.Tensors {
			if growable(t) || driftingLocals(t) {
				g.syncIn(g.ts[t])
			}
		}
		for _, t := range par.Private {
			g.syncIn(g.ts[t])
		}
	}
	g.line("if %s != nil {", werr)
	resync()
	g.returnErr(werr)
	g.line("}")
	g.unsync(nil)
	if ip != nil {
		g.line("if !%s {", ip.inPlace)
	}
	for _, t := range par.Tensors {
		ti := g.ts[t]
		if appendedRows(t) {
			if growable(t) || presenceFields(t) != nil {
				g.line("for %s := 1; %s < %s; %s++ {\n%s.markFrom(&%s[%s-1])\n}", w, w, nw, w, ti.ptr, copies[t], w)
			}
			q := g.loc.name("q")
			g.line("if %s := %s.appendAllFrom(%s[:%s-1], %s); %s >= 0 {", q, ti.ptr, copies[t], nw, nw, q)
			resync()
			g.returnErr(g.errorf("internal error: two workers filled the row %d of "+t.Name, q))
			g.line("}")
			g.unsync(nil)
			continue
		}
		if growable(t) || presenceFields(t) != nil {
			g.line("for %s := 1; %s < %s; %s++ {\n%s.markFrom(&%s[%s-1])\n}", w, w, nparts, w, ti.ptr, copies[t], w)
		}
		mlo, mhi := g.loc.name("lo"), g.loc.name("hi")
		g.line("%sRanges(%s, len(%s.Vals), func(%s, %s int) {", g.pfx, nw, ti.ptr, mlo, mhi)
		g.line("for %s := 1; %s < %s; %s++ {\n%s.addFrom(&%s[%s-1], %s, %s)\n}", w, w, nparts, w, ti.ptr, copies[t], w, mlo, mhi)
		g.line("})")
	}
	if ip != nil {
		g.line("}")
		g.unsync(nil)
	}
	resync()
	if ip != nil {
		g.line("if %s {", ip.inPlace)
		g.inPlaceTail(s, ip, lo, hi, nw, pos)
		g.line("}")
		g.unsync(nil)
	}
	for _, v := range reduce {
		x := g.loc.name("x")
		g.line("for _, %s := range %s {", x, parts[v])
		if v.Kind == lower.Bool {
			g.line("if %s {\n%s = true\n}", x, g.vars[v])
		} else {
			g.line("%s += %s", g.vars[v], x)
		}
		g.line("}")
	}
}

// workerCopies emits the slice of the copies of a tensor for the workers
// but the first (in the workspace, grown as needed, with
// Options.Workspace) and returns its name.
func (g *gen) workerCopies(ti *tinfo, nw string) string {
	if g.opts.Workspace && g.hasWork() {
		name := g.copies[ti.t]
		g.line("if len(ws.%s) < %s-1 {\nws.%s = append(ws.%s, make([]%s, %s-1-len(ws.%s))...)\n}", name, nw, name, name, ti.typ, nw, name)
		g.line("%s := ws.%s", name, name)
		return name
	}
	name := g.loc.name(sanitize(ti.t.Name) + "_copies")
	g.line("%s := make([]%s, %s-1)", name, ti.typ, nw)
	return name
}

// reassigned reports whether a local of the function may be assigned
// after its declaration, so that a function literal would capture it by
// reference: a variable of the program (not a scalar parameter), a Temp
// array, or an array parameter resliced at entry (lenFact).
func (g *gen) reassigned(name string) bool {
	for v, n := range g.vars {
		if n == name && v.ID >= 0 {
			return !g.isParam(v) && (g.hoisted[v] || g.sets()[v] != 1)
		}
	}
	for a, n := range g.arrays {
		if n != name {
			continue
		}
		if a.Temp {
			return true
		}
		for _, l := range g.lens {
			if l.a == a {
				return true
			}
		}
		return false
	}
	return false
}

// sets counts the statements of the program that set each variable: a
// variable set once, and not hoisted, is declared where it is set and
// never assigned again.
func (g *gen) sets() map[*lower.Var]int {
	if g.setCounts == nil {
		g.setCounts = map[*lower.Var]int{}
		lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
			for _, v := range lower.BindsOf(s) {
				g.setCounts[v]++
			}
			if a, ok := s.(*lower.Assign); ok {
				g.setCounts[a.V] += 2 // an assignment of a declared variable
			}
		})
	}
	return g.setCounts
}

// presenceFields are the presence slices of a tensor whose positions are
// fixed by init, by level.
func presenceFields(t *lower.Tensor) []string {
	var out []string
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense, lower.Diagonal:
			if l.Marked() {
				out = append(out, presentField(lv))
			}
		case lower.Positions:
			if l.Marked() {
				out = append(out, presentField(lv))
			}
		}
	}
	return out
}

// names are the identifiers a piece of code reads or sets from outside
// it: used, in the order first met, read (not only assigned), and set
// (assigned, added to or incremented), in the order first set.
type names struct {
	order []string
	used  map[string]bool
	read  map[string]bool
	sets  []string
	set   map[string]bool
}

// parseBody parses a function body's statements (generated code) into a
// file of one function, _.
func parseBody(body []byte) (*token.FileSet, *ast.File, error) {
	fset := token.NewFileSet()
	src := "package p\n\nfunc _() {\n" + string(body) + "\n}\n"
	f, err := parser.ParseFile(fset, "", src, 0)
	return fset, f, err
}

// freeNames parses a function body's statements and lists the names they
// use that they do not declare.
func freeNames(body []byte) (*names, error) {
	_, f, err := parseBody(body)
	if err != nil {
		return nil, err
	}
	return freeNamesIn(f), nil
}

// freeNamesIn lists the names the function of f (parseBody) uses that it
// does not declare.
func freeNamesIn(f *ast.File) *names {
	out := &names{used: map[string]bool{}, read: map[string]bool{}, set: map[string]bool{}}
	free := map[string]bool{}
	for _, id := range f.Unresolved {
		free[id.Name] = true
	}
	assigned := map[*ast.Ident]bool{}
	set := func(e ast.Expr) {
		if id, ok := e.(*ast.Ident); ok && id.Obj == nil && free[id.Name] && !out.set[id.Name] {
			out.set[id.Name] = true
			out.sets = append(out.sets, id.Name)
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.AssignStmt:
			if x.Tok == token.ASSIGN {
				for _, l := range x.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						assigned[id] = true
					}
				}
			}
			if x.Tok != token.DEFINE {
				for _, l := range x.Lhs {
					set(l)
				}
			}
		case *ast.IncDecStmt:
			set(x.X)
		case *ast.SelectorExpr:
			ast.Inspect(x.X, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok {
					out.note(id, free, assigned)
				}
				return true
			})
			return false
		case *ast.Ident:
			out.note(x, free, assigned)
		}
		return true
	})
	return out
}

func (ns *names) note(id *ast.Ident, free map[string]bool, assigned map[*ast.Ident]bool) {
	if id.Obj != nil || !free[id.Name] {
		return
	}
	if !ns.used[id.Name] {
		ns.used[id.Name] = true
		ns.order = append(ns.order, id.Name)
	}
	if !assigned[id] {
		ns.read[id.Name] = true
	}
}

// workerReturn returns an error from a worker's code: the locals of its
// own tensors that drift from their structs are stored first, so that a
// reused copy stays consistent.
func (g *gen) workerReturn(err string) {
	for _, ti := range g.order {
		if g.worker.own[ti] && driftingLocals(ti.t) {
			g.syncOut(ti)
		}
	}
	g.line("return %s", err)
}

// parallelDoc documents the threads parameter in the function's doc
// comment.
func (g *gen) parallelDoc() []string {
	if g.threads == "" {
		return nil
	}
	doc := []string{"",
		fmt.Sprintf("It runs the loops lowering marked parallel on up to %s goroutines", g.threads),
		fmt.Sprintf("(%s <= 1: one), each loop when it has enough work (%d iterations and", g.threads, g.minParallel()),
		"entries of the rows they read): each goroutine runs ranges of the",
		"iterations, adding into copies of what the loop adds into, which are",
		"added up after, in order, so a result equals the serial one up to the",
		"order of floating-point additions (the same for a given number of",
		"goroutines and input)."}
	if g.opts.Workspace && g.hasWork() {
		doc = append(doc, "ws.Workers is the most goroutines a loop of the call ran on; the",
			"workers' copies are kept in ws.")
	}
	serial := false
	for _, f := range g.parOrder {
		serial = serial || g.pars[f].why != ""
	}
	if serial {
		doc = append(doc, "Loops the generated code says run on one goroutine do so whatever "+g.threads+" is.")
	}
	return append(doc, "")
}

// parallelEntry emits, at the function's entry, what its parallel loops
// need.
func (g *gen) parallelEntry() {
	if g.threads != "" && g.opts.Workspace && g.hasWork() {
		g.line("ws.Workers = 1")
	}
}

// parallelWork writes the workspace's fields of the parallel loops: the
// workers' copies and Workers.
func (g *gen) parallelWork(w *bytes.Buffer) {
	if g.threads == "" {
		return
	}
	w.WriteString("// Workers is the most goroutines a loop of the last call ran on.\nWorkers int\n")
	for _, ti := range g.order {
		if n, ok := g.copies[ti.t]; ok {
			w.WriteString(fmt.Sprintf("// %s are the copies of %s of the workers of a parallel loop but the first.\n%s []%s\n", n, ti.t.Name, n, ti.typ))
		}
	}
}

// nameCopies names the workspace's fields of the workers' copies: one per
// tensor a parallel loop adds into or fills for each worker.
func (g *gen) nameCopies() {
	g.copies = map[*lower.Tensor]string{}
	if g.threads == "" || !g.opts.Workspace {
		return
	}
	for _, f := range g.parOrder {
		if g.pars[f].why != "" {
			continue
		}
		for _, t := range append(append([]*lower.Tensor(nil), f.Par.Tensors...), f.Par.Private...) {
			if _, ok := g.copies[t]; !ok {
				g.copies[t] = g.loc.name(sanitize(t.Name) + "_copies")
			}
		}
	}
}

// minParallel is the least work a loop is split for (Options.MinParallel,
// at least 2).
func (g *gen) minParallel() int {
	if g.opts.MinParallel == 0 {
		return minParallel
	}
	return max(g.opts.MinParallel, 2)
}

// parallelMethods writes the methods of the tensors parallel loops add
// into: emptyLike, markFrom and addFrom.
func (g *gen) parallelMethods(w *bytes.Buffer) {
	for _, ti := range g.order {
		if g.merged[ti.t] {
			w.WriteString(g.mergeMethods(ti))
		}
	}
}

// mergeMethods are the methods by which a worker's copy of a tensor whose
// positions are fixed by init is made and added into the tensor.
func (g *gen) mergeMethods(ti *tinfo) string {
	t := ti.t
	var b strings.Builder
	// a copy's memory is made with a cache line (64 bytes) on either side
	// that nothing else uses: a small copy (a gradient of a few taps) next
	// to the function's own tensor or another worker's copy in the heap
	// shared its cache lines with them, which each worker's additions
	// then took from the other's core at every iteration
	resize := func(f, elem string) {
		pad := 8
		if elem == "bool" {
			pad = 64
		}
		fmt.Fprintf(&b, "if n := len(u.%s); cap(t.%s) >= n {\nt.%s = t.%s[:n]\nclear(t.%s)\n} else {\nt.%s = make([]%s, n+%d)[%d : %d+n : %d+n] // a cache line apart from the rest\n}\n",
			f, f, f, f, f, f, elem, 2*pad, pad, pad, pad)
	}
	fmt.Fprintf(&b, "// emptyLike makes t an empty tensor of u's sizes, reusing its memory: the\n// copy of u a worker of a parallel loop adds into.\nfunc (t *%s) emptyLike(u *%s) {\n", ti.typ, ti.typ)
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense:
			fmt.Fprintf(&b, "t.%s = u.%s\n", nField(lv), nField(lv))
		case lower.Positions:
			fmt.Fprintf(&b, "t.%s, t.%s = u.%s, u.%s\n", posField(lv), idxField(lv), posField(lv), idxField(lv))
		case lower.Diagonal:
			if !l.Full {
				fmt.Fprintf(&b, "t.%s = false\n", allField(lv))
			}
		}
	}
	for _, f := range presenceFields(t) {
		resize(f, "bool")
	}
	if appendedRows(t) {
		fmt.Fprintf(&b, "t.%s.reset()\nt.Vals = t.Vals[:0]\n", appField(1))
	} else {
		resize(valsField, goKind(t.Leaf))
	}
	b.WriteString("}\n\n")
	if marks := presenceFields(t); growable(t) || len(marks) > 0 {
		fmt.Fprintf(&b, "// markFrom grows t to u's extent and marks present what u has: u is a\n// worker's copy of t (emptyLike), added into t.\nfunc (t *%s) markFrom(u *%s) {\n", ti.typ, ti.typ)
		if growable(t) {
			b.WriteString("if u.N0 > t.N0 {\nt.grow0(u.N0 - 1)\n}\n")
		}
		for _, f := range marks {
			fmt.Fprintf(&b, "for c, p := range u.%s {\nif p {\nt.%s[c] = true\n}\n}\n", f, f)
		}
		b.WriteString("}\n\n")
	}
	if appendedRows(t) {
		a := "A1"
		end := func(x string) string {
			return fmt.Sprintf("if c := %s.%s.Cur; c != 0 { // the burst being filled ends\n%s.%s.End[c-1] = len(%s.%s.Keys)\n%s.%s.Cur = 0\n}\n", x, a, x, a, x, a, x, a)
		}
		fmt.Fprintf(&b, "// appendAllFrom appends the rows of us, the copies of t of the workers but\n"+
			"// the first (emptyLike), to t at once: each worker fills rows of its own,\n"+
			"// so the copies' children and values are appended whole, t's arrays grown\n"+
			"// once and the copies moved on nw goroutines (PFXRanges), and their rows'\n"+
			"// spans moved by their offsets. It returns a row two hold (t unchanged),\n"+
			"// or -1.\nfunc (t *%s) appendAllFrom(us []%s, nw int) int {\n", ti.typ, ti.typ)
		if g.wvals[t] != nil {
			b.WriteString("t.gather()\nfor i := range us {\nus[i].gather()\n}\n")
		}
		b.WriteString(end("t") + "for i := range us {\nu := &us[i]\n" + end("u") + "}\n")
		fmt.Fprintf(&b, "for i := range us {\nfor q, s := range us[i].%s.Start {\nif s == 0 {\ncontinue\n}\n"+
			"if q < len(t.%s.Start) && t.%s.Start[q] != 0 {\nreturn q\n}\n"+
			"for k := range us[:i] {\nif q < len(us[k].%s.Start) && us[k].%s.Start[q] != 0 {\nreturn q\n}\n}\n}\n}\n", a, a, a, a, a)
		fmt.Fprintf(&b, "base := len(t.%s.Keys)\ntotal := base\nfor i := range us {\ntotal += len(us[i].%s.Keys)\n}\n", a, a)
		fmt.Fprintf(&b, "if cap(t.%s.Keys) < total {\nk := make([]int, total, total+total/4)\ncopy(k, t.%s.Keys)\nt.%s.Keys = k\n} else {\nt.%s.Keys = t.%s.Keys[:total]\n}\n", a, a, a, a, a)
		fmt.Fprintf(&b, "if cap(t.Vals) < total {\nv := make([]%s, total, total+total/4)\ncopy(v, t.Vals)\nt.Vals = v\n} else {\nt.Vals = t.Vals[:total]\n}\n", goKind(t.Leaf))
		fmt.Fprintf(&b, "%sRanges(nw, total-base, func(lo, hi int) {\noff := base\nfor i := range us {\nu := &us[i]\n"+
			"if a, e := max(base+lo, off), min(base+hi, off+len(u.%s.Keys)); a < e {\ncopy(t.%s.Keys[a:e], u.%s.Keys[a-off:e-off])\ncopy(t.Vals[a:e], u.Vals[a-off:e-off])\n}\n"+
			"off += len(u.%s.Keys)\n}\n})\n", g.pfx, a, a, a, a)
		fmt.Fprintf(&b, "off := base\nfor i := range us {\nu := &us[i]\nfor q, s := range u.%s.Start {\nif s == 0 {\ncontinue\n}\nif q >= len(t.%s.Start) {\nt.%s.parents(q)\n}\nt.%s.Start[q], t.%s.End[q] = s+off, u.%s.End[q]+off\n}\noff += len(u.%s.Keys)\n}\nreturn -1\n}\n\n", a, a, a, a, a, a, a)
		return b.String()
	}
	add := "dv[c] += v"
	if t.Leaf == lower.Bool {
		add = "if v {\ndv[c] = true\n}"
	}
	fmt.Fprintf(&b, "// addFrom adds the values of u, a worker's copy of t, at the positions\n// lo..hi-1 into t's (t holds every position u has).\nfunc (t *%s) addFrom(u *%s, lo, hi int) {\nhi = min(hi, len(u.Vals))\nif lo >= hi {\nreturn\n}\ndv := t.Vals[lo:hi]\nfor c, v := range u.Vals[lo:hi] {\n%s\n}\n}\n\n", ti.typ, ti.typ, add)
	return b.String()
}

func init() {
	helperSources["parallel"] = parallelHelpers
	helperImports["parallel"] = []string{"sync", "sync/atomic"}
}

// parallelHelpers are the functions parallel loops call (MINPARALLEL is
// replaced by Options.MinParallel).
const parallelHelpers = `// PFXMinParallel is the least work (iterations, and the entries of the rows
// they read) a parallel loop is split for: below it the goroutines cost
// more than they save.
const PFXMinParallel = MINPARALLEL

// PFXWorkers is the number of goroutines a parallel loop over lo..hi-1 runs
// on: up to threads, each with at least PFXMinParallel/2 of the work (the
// iterations, and the entries pos[lo]..pos[hi]-1 of the rows they read
// when pos is not nil; the iterations times trips, an inner loop's, when
// that is more than 1); 1 runs the loop serially.
func PFXWorkers(threads, lo, hi int, pos []int, trips int) int {
	n := hi - lo
	if threads < 2 || n < 2 {
		return 1
	}
	work := n
	if pos != nil && lo >= 0 && hi < len(pos) {
		work += max(pos[hi]-pos[lo], 0)
	}
	if trips > 1 {
		work = n * min(trips, 1<<30)
	}
	if work < PFXMinParallel {
		return 1
	}
	return max(min(threads, work/(PFXMinParallel/2), n), 1)
}

// PFXSplit is the first iteration of worker w of nw over lo..hi-1 (hi for
// w = nw): equal shares of the iterations, or with pos equal shares of
// the entries of the rows they read, so that rows of unequal length
// balance. The bounds never decrease with w, whatever pos holds.
func PFXSplit(lo, hi, w, nw int, pos []int) int {
	if w >= nw {
		return hi
	}
	if pos == nil || lo < 0 || hi >= len(pos) {
		return lo + (hi-lo)*w/nw
	}
	b := lo
	for i := 1; i <= w; i++ {
		target := pos[lo] + (pos[hi]-pos[lo])*i/nw
		l, h := b, hi
		for l < h { // the first row from b on that starts at or past target
			m := int(uint(l+h) >> 1)
			if pos[m] < target {
				l = m + 1
			} else {
				h = m
			}
		}
		b = l
	}
	return b
}

// PFXRun runs f(w) for the workers w = 0..nw-1, each on a goroutine of
// its own (worker 0 on the calling one kept the others waiting for a
// processor: Go steals a goroutine just started only when its processor
// is free), and returns once all have: the first worker in order that
// panicked panics again here, else the first that returned an error
// gives it.
func PFXRun(nw int, f func(w int) error) error {
	errs := make([]error, nw)
	panics := make([]any, nw)
	var wg sync.WaitGroup
	wg.Add(nw)
	for w := 0; w < nw; w++ {
		go func(w int) {
			defer wg.Done()
			defer func() {
				if r := recover(); r != nil {
					panics[w] = r
				}
			}()
			errs[w] = f(w)
		}(w)
	}
	wg.Wait()
	for w := 0; w < nw; w++ {
		if panics[w] != nil {
			panic(panics[w])
		}
		if errs[w] != nil {
			return errs[w]
		}
	}
	return nil
}

// PFXSmallCopies is the most values a parallel loop's tensors may hold
// for it to add into a copy of them a chunk (PFXChunks of them) rather
// than a copy a worker.
const PFXSmallCopies = 1 << 12

// PFXChunks is the number of chunks a parallel loop over lo..hi-1 on nw
// goroutines is cut into, taken in turn by the goroutines (PFXRunChunks):
// 8 a goroutine, at most one an iteration.
func PFXChunks(nw, lo, hi int) int {
	return max(min(8*nw, hi-lo), 1)
}

// PFXRunChunks runs f(c) for the chunks c = 0..nc-1 on nw goroutines, each
// taking the next chunk no other has taken until none is left, so that a
// goroutine whose processor is slow, or busy, runs fewer; it returns once
// all have run. The first chunk in order that panicked panics again here,
// else the first that returned an error gives it; after a failure no
// goroutine takes another chunk, but every chunk before it ran (chunks
// are taken in order).
func PFXRunChunks(nw, nc int, f func(c int) error) error {
	errs := make([]error, nc)
	panics := make([]any, nc)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	wg.Add(nw)
	for w := 0; w < nw; w++ {
		go func() {
			defer wg.Done()
			for !failed.Load() {
				c := int(next.Add(1)) - 1
				if c >= nc {
					return
				}
				func() {
					defer func() {
						if r := recover(); r != nil {
							panics[c] = r
							failed.Store(true)
						}
					}()
					if errs[c] = f(c); errs[c] != nil {
						failed.Store(true)
					}
				}()
			}
		}()
	}
	wg.Wait()
	for c := 0; c < nc; c++ {
		if panics[c] != nil {
			panic(panics[c])
		}
		if errs[c] != nil {
			return errs[c]
		}
	}
	return nil
}

// PFXRanges calls f over 0..n-1: in nw ranges, each on its own goroutine,
// when n is at least 2*PFXMinParallel, else once over all of it.
func PFXRanges(nw, n int, f func(lo, hi int)) {
	if nw < 2 || n < 2*PFXMinParallel {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	wg.Add(nw)
	for r := 0; r < nw; r++ {
		go func(r int) {
			defer wg.Done()
			f(n*r/nw, n*(r+1)/nw)
		}(r)
	}
	wg.Wait()
}
`

// parallelSource is the parallel helpers of the file.
func (g *gen) parallelSource(src string) string {
	return strings.ReplaceAll(src, "MINPARALLEL", strconv.Itoa(g.minParallel()))
}

// chunkVars names a worker's index w and the bounds from..to-1 of its
// chunk of a parallel loop, both ints the body's code may read.
func (g *gen) chunkVars() (w string, from, to *lower.Var) {
	w = g.loc.name("w")
	from = &lower.Var{Name: "from", Kind: lower.Int, ID: -1}
	to = &lower.Var{Name: "to", Kind: lower.Int, ID: -1}
	g.vars[from], g.vars[to] = g.loc.name("from"), g.loc.name("to")
	g.read[from], g.read[to] = true, true
	g.typed(g.vars[from], "int")
	g.typed(g.vars[to], "int")
	return w, from, to
}
