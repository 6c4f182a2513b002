package gogen

import (
	"bytes"

	"github.com/nablasd/nablasd/lower"
)

// Range loops. A For is a Go for loop, with two rewrites that Go's
// compiler cannot make itself and that hand-written loops make:
//
//   - Segments. A loop over positions p in lo..hi whose body reads arrays
//     at p on every iteration runs over the segments A[lo:hi] instead,
//     with one index: Go then checks no bounds in the loop but the
//     gathers' and scatters' (a CSR row: for k := range idx { j :=
//     idx[k]; v := val[k] ... }).
//   - Segment stores. A positions insert at the loop's position p (a
//     result stored on an input's positions, lower.Insert.At) whose
//     values are stored only at the inserted position marks and stores
//     through segments of the tensor's Present and Vals too.
//   - Flattening. A loop over the rows i of a compressed level whose body
//     is only the loop over the row's positions pos[i]..pos[i+1], not
//     reading i, is one loop over pos[lo]..pos[hi]: the format's pos
//     array grows monotonically.

func (g *gen) forStmt(s *lower.For) {
	if g.parallelFor(s) {
		return // on several goroutines, or serially when not worth it (parallel.go)
	}
	if t := g.deferred.Loop[s]; t != nil {
		// not run in parallel here (inside another parallel loop's
		// worker)
		g.line("%s", g.deferredClear(t, "before the loop"))
	}
	if t := g.unswitchOn(s); t != nil {
		// the loop twice, as Go does not unswitch loops: one where every
		// row of t's diagonal level is known present (its All), one
		// marking the rows
		g.line("if %s {", g.ts[t].f(allField(1)))
		for _, all := range []bool{true, false} {
			if !all {
				g.line("} else {")
			}
			g.all[t] = all
			g.unsync(nil)
			g.push()
			g.forLoop(s)
			g.pop()
		}
		delete(g.all, t)
		g.unsync(nil)
		g.line("}")
		return
	}
	g.forLoop(s)
}

// unswitchOn returns a tensor whose diagonal level's All the loop's
// inserts test (a level not full under an Init that may be Covered), or
// nil.
func (g *gen) unswitchOn(s *lower.For) *lower.Tensor {
	var found *lower.Tensor
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		in, ok := x.(*lower.Insert)
		if !ok || found != nil {
			return
		}
		if l := in.T.Levels[in.Level]; l.Storage == lower.Diagonal && !l.Full && g.covered(in.T) {
			if _, known := g.all[in.T]; !known {
				found = in.T
			}
		}
	})
	return found
}

func (g *gen) forLoop(s *lower.For) {
	if g.flatten(s) || g.copyLoop(s) {
		return
	}
	lo := g.exprAs(s.Lo, lower.Int)
	hi := g.bound(s.Hi, s.Body)
	g.loop(s.V, lo, hi, s.Body, s)
}

// bound returns a loop's upper bound as a Go expression evaluated once:
// the expression itself when the body cannot change it, else a
// temporary.
func (g *gen) bound(e lower.Expr, body lower.Stmt) string {
	c := g.code(e, lower.Int)
	invariant := false
	switch x := e.(type) {
	case *lower.Const, *lower.Len:
		invariant = true
	case *lower.Ref:
		invariant = !writes(body, x.V)
	}
	if invariant && c.prec == precPrimary {
		return c.s
	}
	t := g.loc.name("n")
	g.line("%s := %s", t, c.s)
	return t
}

// writes reports whether a statement sets v.
func writes(s lower.Stmt, v *lower.Var) bool {
	found := false
	lower.WalkStmts(s, func(x lower.Stmt) {
		switch x := x.(type) {
		case *lower.Let:
			found = found || x.V == v
		case *lower.Assign:
			found = found || x.V == v
		case *lower.For:
			found = found || x.V == v
		case *lower.ForLevel:
			found = found || x.Key == v || x.Pos == v
		case *lower.Search:
			found = found || x.Pos == v
		case *lower.Insert:
			found = found || x.Pos == v
		case *lower.Locate:
			found = found || x.Pos == v
		}
	})
	return found
}

// loop emits the loop of v over lo..hi (Go expressions, hi evaluated
// once) running body; f is the For it writes when lo and hi are its
// bounds (nil otherwise): a fact may say its range runs (facts.go), and
// its segments may have been sliced before an enclosing loop (rowseg.go).
func (g *gen) loop(v *lower.Var, lo, hi string, body lower.Stmt, f *lower.For) {
	var segs []segRef
	var stores []*lower.Insert
	var dsegs []denseSeg
	var back []backRef // backsegments.go
	if !g.hoisted[v] && !g.visible(v) && !writes(body, v) {
		stores = g.segmentStores(v, body)
		dsegs = g.denseStores(v, body)
		if len(stores) == 0 && len(dsegs) == 0 {
			back = g.backReads(v, body)
		}
	}
	for _, sg := range g.segmentArrays(v, body) {
		// from 0, the arrays' lengths (lenFact) serve as well, unless a
		// row is stored through a segment or read backward: then all are
		// the row's length
		if lo != "0" || sg.off != nil || len(dsegs) > 0 || len(back) > 0 {
			segs = append(segs, sg)
		}
	}
	if len(segs) == 0 && len(stores) == 0 && len(dsegs) == 0 && len(back) == 0 {
		name := g.vars[v]
		bind := func() { g.declare(v) }
		if g.visible(v) {
			name = g.loc.name(v.Name)
			bind = func() { g.bind(v, name) }
		}
		g.line("for %s := %s; %s < %s; %s++ {", name, lo, name, hi, name)
		g.loopBodies = append(g.loopBodies, body)
		g.body(body, bind)
		g.loopBodies = g.loopBodies[:len(g.loopBodies)-1]
		g.line("}")
		return
	}
	outline := g.outlineWanted(segs, back, dsegs, body)
	if !isSimple(lo) {
		t := g.loc.name("lo")
		g.line("%s := %s", t, lo)
		g.typed(t, "int")
		lo = t
	}
	if !isSimple(hi) {
		t := g.loc.name("hi")
		g.line("%s := %s", t, hi)
		g.typed(t, "int")
		hi = t
	}
	if f != nil && g.holdsFact(lower.RangeCond(f)) {
		g.line("{ // %s < %s: a fact (facts.go)", lo, hi)
	} else {
		g.line("if %s < %s {", lo, hi)
	}
	var carried []carry // carry.go
	if !outline && len(back) == 0 {
		carried = g.carries(v, lo, segs, body)
	}
	growths := g.preGrowths(v, body, f)
	wide := &widePlan{} // widerows.go
	if !outline && len(back) == 0 {
		own := map[*lower.Array]bool{}
		for _, c := range carried {
			own[c.a] = true
		}
		for _, p := range growths {
			own[p.a] = true
		}
		wide = g.wideRows(f, segs, dsegs, own)
	}
	var names []string
	offs := map[string]string{} // an offset's Go name, by its canonical form
	for i, sg := range segs {
		a := sg.a
		if wide.spread > 0 && wide.segGroup[i] >= 0 {
			w := wide.groups[wide.segGroup[i]]
			if w.name == "" {
				w.name = g.loc.name(g.arrays[a] + "Wide")
				g.typed(w.name, "[]"+goKind(a.Kind))
				o := ""
				if sg.off != nil {
					if rest, _ := lower.SplitConstant(sg.off); rest != nil {
						o = g.offsetName(rest, offs)
					}
				}
				first, last := w.bounds(o, lo, hi, wide.spread)
				g.line("%s := %s[%s : %s : len(%s)] // wide row (widerows.go)", w.name, g.arrays[a], first, last, g.arrays[a])
			}
			names = append(names, w.name)
			continue
		}
		n := g.loc.name(g.arrays[a] + "Seg")
		g.typed(n, "[]"+goKind(a.Kind))
		names = append(names, n)
		if sg.off == nil {
			g.line("%s := %s[%s:%s]", n, g.arrays[a], lo, hi)
			continue
		}
		if r := g.rowSegName(f, a, sg.off); r != "" {
			g.line("%s := %s // sliced before the enclosing loop (rowseg.go)", n, r)
			continue
		}
		o := g.offsetName(sg.off, offs)
		// the capacity is the length: a segment past it fails here, as
		// the load would
		g.line("%s := %s[%s+%s : %s+%s : len(%s)]", n, g.arrays[a], o, lo, o, hi, g.arrays[a])
	}
	backNames := g.backSegStart(back, lo, hi, offs)
	names = append(names, backNames...) // after the segments' (preGrow reads names[i] as segs[i]'s)
	k := g.loc.name("k")
	excluded := map[*lower.Insert]bool{} // their keys and At read v through a segment
	for _, x := range stores {
		ti := g.ts[x.T]
		g.segInsert[x] = "" // a full level: no marks (segmentStores)
		if x.T.Levels[x.Level].Marked() {
			pres := g.loc.name(ti.local[presentField(x.Level)] + "Seg")
			g.typed(pres, "[]bool")
			names = append(names, pres)
			g.line("%s := %s[%s:%s]", pres, ti.f(presentField(x.Level)), lo, hi)
			g.segInsert[x] = pres + "[" + k + "]"
		}
		excluded[x] = true
		if x.Pos != nil && g.read[x.Pos] {
			vals := g.loc.name(ti.local[valsField] + "Seg")
			g.typed(vals, "[]"+goKind(x.T.Leaf))
			names = append(names, vals)
			g.line("%s := %s[%s:%s]", vals, ti.f(valsField), lo, hi)
			g.segStore[x.Pos] = vals + "[" + k + "]"
		}
	}
	dsegOffs := g.denseSegChecks(dsegs, lo, hi)
	for i, d := range dsegs {
		if wide.spread > 0 && wide.dGroup[i] >= 0 {
			names = append(names, g.denseWideStart(d, wide.groups[wide.dGroup[i]], wide.spread, wide.dConst[i], lo, hi, k, offs))
		} else {
			names = append(names, g.denseSegStart(d, dsegOffs[d.x], lo, hi, k))
		}
		excluded[d.x] = true
		if d.diag != nil {
			excluded[d.diag] = true // its key is its parent's
		}
	}
	forget := g.preGrow(growths, segs, names)
	defer forget()
	// the loop, from here to its end, may become a function (outline.go)
	var outer *bytes.Buffer
	if outline {
		outer, g.w = g.w, &bytes.Buffer{}
	}
	// every segment is hi-lo long: saying so lets Go drop the bounds
	// checks of the others, indexed by the first's index (or, with wide
	// rows, by a count Go knows below each: widerows.go)
	count := ""
	if wide.spread > 0 {
		count = g.wideLengths(wide, names)
	} else {
		for _, n := range names[1:] {
			g.line("%s = %s[:len(%s)]", n, n, names[0])
		}
	}
	var rowKeys []rowSegKey // rowseg.go
	if !outline {
		rowKeys = g.sliceRowSegs(g.alwaysSegments(v, body))
	}
	g.carryStart(carried)
	if len(segs) == 0 && len(stores) == 0 && len(dsegs) == 1 && len(back) == 0 && len(carried) == 0 && !outline &&
		(g.copyDefault(f, lo, dsegs[0], names[0]) || g.fillCall(f, names[0])) {
		// the loop over the one row segment is a call (fill.go)
		g.denseSegEnd(dsegs[0])
		g.unsync(nil)
		g.dropRowSegs(rowKeys)
		g.line("}")
		return
	}
	switch {
	case count != "":
		g.line("for %s := 0; %s < %s; %s++ {", k, k, count, k)
	case len(back) == 0:
		g.line("for %s := range %s {", k, names[0])
	default:
		g.line("for %s := len(%s) - 1; %s >= 0; %s-- {", k, names[0], k, k)
	}
	g.loopBodies = append(g.loopBodies, body)
	for i, sg := range segs {
		g.override[sg.key(v)] = names[i] + "[" + k + "]"
		if wide.spread > 0 && wide.segGroup[i] >= 0 {
			g.override[sg.key(v)] = wide.groups[wide.segGroup[i]].at(k, wide.segConst[i])
		}
		if len(back) > 0 {
			g.override[sg.key(v)] = names[i] + "[len(" + names[i] + ")-1-" + k + "]"
		}
	}
	for i, b := range back {
		g.backSegs[b.key(v)] = backNames[i] + "[" + k + "]"
	}
	g.segVars = append(g.segVars, v)
	dropped := g.segmentOnlyLets(v, body, segs, excluded)
	for _, x := range dropped {
		g.read[x] = false
	}
	g.unsync(nil)
	g.push()
	g.carryStep(v, carried, names, k)
	read := segs
	for _, c := range carried {
		read = append(read[:len(read):len(read)], segRef{c.a, c.lo})
	}
	if g.readOutside(v, body, read, excluded) {
		if len(back) == 0 {
			g.bind(v, lo+" + "+k)
		} else {
			g.bind(v, hi+" - 1 - "+k) // backward (backsegments.go)
		}
	}
	g.stmt(body)
	g.carryEnd(v, carried)
	g.pop()
	for _, x := range dropped {
		g.read[x] = true
	}
	g.segVars = g.segVars[:len(g.segVars)-1]
	for _, sg := range segs {
		delete(g.override, sg.key(v))
	}
	for _, b := range back {
		delete(g.backSegs, b.key(v))
	}
	for _, x := range stores {
		delete(g.segInsert, x)
		if x.Pos != nil {
			delete(g.segStore, x.Pos)
		}
	}
	for _, d := range dsegs {
		g.denseSegEnd(d)
	}
	g.unsync(nil)
	g.dropRowSegs(rowKeys)
	g.loopBodies = g.loopBodies[:len(g.loopBodies)-1]
	g.line("}")
	if outline {
		text := g.w.String()
		g.w = outer
		own := map[string]bool{}
		for _, n := range names {
			own[n] = true
		}
		if !g.emitOutlined(text, own) {
			g.w.WriteString(text)
		}
	}
	g.line("}")
}

// segRef is an array a loop reads at off + v (off nil: at v).
type segRef struct {
	a   *lower.Array
	off lower.Expr
}

func (sg segRef) key(v *lower.Var) loadKey {
	if sg.off == nil {
		return loadKey{sg.a, v, ""}
	}
	return loadKey{sg.a, v, lower.CanonString(sg.off)}
}

// segmentArrays lists the arrays body reads at v, or at an offset from v
// the loop does not change (a dense matrix's row: U[c + k]), on every
// iteration (in a statement of its top level, evaluated eagerly, before
// any statement that may fail), in the order first read.
func (g *gen) segmentArrays(v *lower.Var, body lower.Stmt) []segRef {
	if g.hoisted[v] || g.visible(v) || writes(body, v) {
		return nil
	}
	var out []segRef
	seen := map[loadKey]bool{}
	add := func(e lower.Expr) {
		g.eagerLoads(e, v, func(a *lower.Array, off lower.Expr) {
			if off != nil && !invariantIn(off, v, body) {
				return
			}
			sg := segRef{a, off}
			if k := sg.key(v); !seen[k] {
				seen[k] = true
				out = append(out, sg)
			}
		})
	}
	for _, s := range topLevel(body) {
		if !g.live(s) || lower.Holds[*lower.Fail](s) {
			if lower.Holds[*lower.Fail](s) {
				break
			}
			continue
		}
		switch s := s.(type) {
		case *lower.Let:
			add(s.X)
		case *lower.Assign:
			add(s.X)
		case *lower.Store:
			add(s.Pos)
			add(s.X)
		case *lower.Insert:
			for _, e := range insertExprs(s) {
				add(e)
			}
		case *lower.If:
			add(s.Cond)
		case *lower.Locate:
			add(s.Parent)
			add(s.Key)
		case *lower.Search:
			add(s.Lo)
			add(s.Hi)
			add(s.Key)
		case *lower.ForLevel:
			add(s.Parent)
		case *lower.For:
			add(s.Lo)
			add(s.Hi)
		}
	}
	return out
}

// invariantIn reports whether the loop of v over body leaves e's value
// unchanged: e reads neither v nor a variable body sets, and no memory.
func invariantIn(e lower.Expr, v *lower.Var, body lower.Stmt) bool {
	ok := true
	lower.WalkExpr(e, func(x lower.Expr) {
		switch x := x.(type) {
		case *lower.Ref:
			ok = ok && x.V != v && !writes(body, x.V)
		case *lower.Load, *lower.ValAt:
			ok = false
		}
	})
	return ok
}

// topLevel lists the statements of a block, flattening nested blocks.
func topLevel(s lower.Stmt) []lower.Stmt {
	switch s := s.(type) {
	case nil:
		return nil
	case *lower.Block:
		var out []lower.Stmt
		for _, x := range s.List {
			out = append(out, topLevel(x)...)
		}
		return out
	}
	return []lower.Stmt{s}
}

// eagerLoads calls add for every array e reads at v (or off + v, also
// through the index lets: g.loadOffset) whenever e is evaluated (not in a
// Select's branches or the right side of && and ||).
func (g *gen) eagerLoads(e lower.Expr, v *lower.Var, add func(*lower.Array, lower.Expr)) {
	eagerLoads := g.eagerLoads
	switch x := e.(type) {
	case *lower.Load:
		if off, ok := g.loadOffset(x.Index, v); ok {
			add(x.A, off)
		}
		eagerLoads(x.Index, v, add)
	case *lower.Unary:
		eagerLoads(x.X, v, add)
	case *lower.Binary:
		eagerLoads(x.X, v, add)
		if x.Op != lower.And && x.Op != lower.Or {
			eagerLoads(x.Y, v, add)
		}
	case *lower.Call:
		for _, a := range x.Args {
			eagerLoads(a, v, add)
		}
	case *lower.Select:
		eagerLoads(x.Cond, v, add)
	case *lower.ValAt:
		eagerLoads(x.Pos, v, add)
	}
}

// segmentStores lists the positions inserts of body at v that can mark
// and store through segments: at the top level of body (so run on every
// iteration, before anything that may fail), into a tensor the function
// builds, the only statement of body inserting into or initializing that
// tensor, with the inserted position read only as the position of
// stores into its last level (not after the loop).
func (g *gen) segmentStores(v *lower.Var, body lower.Stmt) []*lower.Insert {
	var out []*lower.Insert
	for _, s := range topLevel(body) {
		if lower.Holds[*lower.Fail](s) {
			break
		}
		x, ok := s.(*lower.Insert)
		if !ok || x.At == nil || !isRefTo(x.At, v) || x.T.Input || x.T.Levels[x.Level].Storage != lower.Positions {
			continue
		}
		if x.T.Levels[x.Level].Marked() {
			if _, ok := g.ts[x.T].local[presentField(x.Level)]; !ok {
				continue
			}
		} else if x.Pos == nil || !g.read[x.Pos] {
			continue // a full level's insert marks nothing: a segment would serve no store
		}
		if g.segmentable(x, body) {
			out = append(out, x)
		}
	}
	return out
}

// segmentable checks the conditions of segmentStores on body's
// statements other than the insert x.
func (g *gen) segmentable(x *lower.Insert, body lower.Stmt) bool {
	q := x.Pos
	if !g.ownPos(x, body) {
		return false
	}
	last := x.Level == x.T.Order()-1
	ok := true
	lower.WalkStmts(body, func(s lower.Stmt) {
		switch s := s.(type) {
		case *lower.Insert:
			if s != x && s.T == x.T {
				ok = false
			}
		case *lower.Init:
			if s.T == x.T {
				ok = false
			}
		case *lower.Store:
			if q != nil && isRefTo(s.Pos, q) && (s.T != x.T || !last) {
				ok = false
			}
		}
	})
	if !ok || q == nil || !g.read[q] {
		return ok
	}
	// q is read only as the position of those stores
	return g.refCounts(body)[q] == storesAt(body, q)
}

// ownPos reports whether x's position (if it binds one) is bound by x
// alone in body and not hoisted: a segment may then stand for it.
func (g *gen) ownPos(x *lower.Insert, body lower.Stmt) bool {
	q := x.Pos
	return q == nil || !g.hoisted[q] && (!writes(body, q) || writesOnly(body, q, x))
}

// refCounts counts the reads of each variable in the live statements of
// body.
func (g *gen) refCounts(body lower.Stmt) map[*lower.Var]int {
	reads := map[*lower.Var]int{}
	g.walkLive(body, func(e lower.Expr) {
		lower.WalkExpr(e, func(y lower.Expr) {
			if r, ok := y.(*lower.Ref); ok {
				reads[r.V]++
			}
		})
	})
	return reads
}

// storesAt counts the stores of body at position q.
func storesAt(body lower.Stmt, q *lower.Var) int {
	n := 0
	lower.WalkStmts(body, func(s lower.Stmt) {
		if st, ok := s.(*lower.Store); ok && isRefTo(st.Pos, q) {
			n++
		}
	})
	return n
}

// writesOnly reports whether x is the only statement of body setting v.
func writesOnly(body lower.Stmt, v *lower.Var, x *lower.Insert) bool {
	n := 0
	lower.WalkStmts(body, func(s lower.Stmt) {
		switch s := s.(type) {
		case *lower.Let:
			if s.V == v {
				n++
			}
		case *lower.Assign:
			if s.V == v {
				n++
			}
		case *lower.For:
			if s.V == v {
				n++
			}
		case *lower.ForLevel:
			if s.Key == v || s.Pos == v {
				n++
			}
		case *lower.Search:
			if s.Pos == v {
				n++
			}
		case *lower.Locate:
			if s.Pos == v {
				n++
			}
		case *lower.Insert:
			if s.Pos == v && s != x {
				n++
			}
		}
	})
	return n == 0
}

// readOutside reports whether the live statements of body read v other
// than as the index of a load from one of the segments or in the key or
// position of an excluded insert (one stored through a segment).
func (g *gen) readOutside(v *lower.Var, body lower.Stmt, segs []segRef, excluded map[*lower.Insert]bool) bool {
	inSeg := map[loadKey]bool{}
	for _, sg := range segs {
		inSeg[sg.key(v)] = true
	}
	var reads func(e lower.Expr) bool
	reads = func(e lower.Expr) bool {
		switch x := e.(type) {
		case *lower.Ref:
			return x.V == v
		case *lower.Load:
			if off, ok := g.loadOffset(x.Index, v); ok && inSeg[segRef{x.A, off}.key(v)] {
				return off != nil && reads(off)
			}
			if g.isBackSeg(x, v) {
				return false // its offset does not read v (backsegments.go)
			}
			return reads(x.Index)
		case *lower.Unary:
			return reads(x.X)
		case *lower.Binary:
			return reads(x.X) || reads(x.Y)
		case *lower.Call:
			for _, a := range x.Args {
				if reads(a) {
					return true
				}
			}
		case *lower.Select:
			return reads(x.Cond) || reads(x.Then) || reads(x.Else)
		case *lower.ValAt:
			if g.isBackSeg(x, v) {
				return false
			}
			return reads(x.Pos)
		}
		return false
	}
	found := false
	lower.WalkStmts(body, func(s lower.Stmt) {
		if x, ok := s.(*lower.Insert); ok && excluded[x] {
			found = found || reads(x.Parent)
			return
		}
		if g.live(s) {
			topExprs(s, func(e lower.Expr) {
				found = found || reads(e)
			})
		}
	})
	return found
}

// flatten emits a loop over the rows of a compressed level that only
// loops over each row's positions as one loop over all their positions,
// and reports whether it did.
func (g *gen) flatten(s *lower.For) bool {
	if g.hoisted[s.V] {
		return false
	}
	stmts := topLevel(s.Body)
	if len(stmts) == 0 {
		return false
	}
	inner, ok := stmts[len(stmts)-1].(*lower.For)
	if !ok {
		return false
	}
	lets := map[*lower.Var]lower.Expr{}
	for _, x := range stmts[:len(stmts)-1] {
		let, ok := x.(*lower.Let)
		if !ok {
			return false
		}
		if g.read[let.V] {
			if g.hoisted[let.V] {
				return false
			}
			lets[let.V] = let.X
		}
	}
	resolve := func(e lower.Expr) lower.Expr {
		if r, ok := e.(*lower.Ref); ok {
			if x, ok := lets[r.V]; ok {
				return x
			}
		}
		return e
	}
	lo, ok1 := resolve(inner.Lo).(*lower.Load)
	hi, ok2 := resolve(inner.Hi).(*lower.Load)
	if !ok1 || !ok2 || lo.A != hi.A || !isRefTo(lo.Index, s.V) || !lower.IsNext(hi.Index, s.V) {
		return false
	}
	p := lo.A
	if p.Level == nil || p.Level.Pos != p.Name {
		return false
	}
	// the lets serve the bounds only, and the body reads neither them nor
	// the row
	for v := range lets {
		if !isRefTo(inner.Lo, v) && !isRefTo(inner.Hi, v) || g.readIn(inner.Body, v) {
			return false
		}
	}
	if g.readIn(inner.Body, s.V) || writes(inner.Body, s.V) {
		return false
	}
	first := g.simple(s.Lo, lower.Int, "lo")
	last := g.bound(s.Hi, s.Body)
	g.line("if %s < %s {", first, last)
	a := g.arrays[p]
	l, h := g.loc.name("lo"), g.loc.name("hi")
	g.line("%s, %s := %s[%s], %s[%s]", l, h, a, first, a, last)
	g.loop(inner.V, l, h, inner.Body, nil) // over all the rows' positions, not inner's range
	g.unsync(nil)
	g.line("}")
	return true
}

// readIn reports whether the live statements of s read v.
func (g *gen) readIn(s lower.Stmt, v *lower.Var) bool {
	found := false
	g.walkLive(s, func(e lower.Expr) {
		lower.WalkExpr(e, func(x lower.Expr) {
			if r, ok := x.(*lower.Ref); ok && r.V == v {
				found = true
			}
		})
	})
	return found
}

func isRefTo(e lower.Expr, v *lower.Var) bool {
	r, ok := e.(*lower.Ref)
	return ok && r.V == v
}
