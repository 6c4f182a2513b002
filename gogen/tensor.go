package gogen

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/lower"
)

// A tensor of the program becomes a generated struct type mirroring its
// levels (a field or two per level, named after the level's index) and
// its values (Vals). In the kernel's function the fields a hot loop reads
// (the values, a dense level's extent and presence, a sparse level's
// marks and keys) are held in locals, loaded from the struct at entry
// and after each call of one of its methods (init, grow), and stored back
// before such a call and before the function returns: the struct is
// where the tensor lives between calls and what its methods see.

// tinfo is what the generator knows of one tensor.
type tinfo struct {
	t      *lower.Tensor
	typ    string // the Go type
	ptr    string // in the function: the pointer to it
	result bool
	local  map[string]string // a hoisted field -> its local
	hoist  []string          // the hoisted fields, in order
}

// The fields of a tensor's levels, by storage.
func nField(lv int) string       { return fmt.Sprintf("N%d", lv) }
func presentField(lv int) string { return fmt.Sprintf("Present%d", lv) }
func allField(lv int) string     { return fmt.Sprintf("All%d", lv) }
func markField(lv int) string    { return fmt.Sprintf("Mark%d", lv) }
func listField(lv int) string    { return fmt.Sprintf("List%d", lv) }
func hashField(lv int) string    { return fmt.Sprintf("L%d", lv) }
func posField(lv int) string     { return fmt.Sprintf("Pos%d", lv) }
func appField(lv int) string     { return fmt.Sprintf("A%d", lv) }
func idxField(lv int) string     { return fmt.Sprintf("Idx%d", lv) }

const valsField = "Vals"

// newTensor names a tensor's type and its locals, after checking that its
// levels nest in a way the generator supports.
func (g *gen) newTensor(t *lower.Tensor) {
	if len(t.Levels) == 0 {
		g.failf("internal error: the tensor %s has no levels", t.Name)
	}
	fixed := true // every level so far has a number of positions set by init
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense:
			if !fixed {
				g.failf("the tensor %s has a dense level %d under a hashed or sparse one, which this generator does not support", t.Name, lv)
			}
		case lower.Sparse:
			if lv > 0 {
				g.failf("the tensor %s has a sparse level %d below the top, which this generator does not support", t.Name, lv)
			}
			fixed = false
		case lower.Hash:
			fixed = false
		case lower.Positions:
			if l.Of == nil || l.Of.Idx == nil || !fixed {
				g.failf("the tensor %s has a positions level %d without its input level's arrays", t.Name, lv)
			}
		case lower.Appended:
			if lv != len(t.Levels)-1 {
				g.failf("the tensor %s has an appended level %d above its last, which this generator does not support", t.Name, lv)
			}
			fixed = false
		case lower.Diagonal:
			if lv != 1 || t.Levels[0].Storage != lower.Dense {
				g.failf("the tensor %s has a diagonal level %d not under a dense level 0", t.Name, lv)
			}
		default:
			g.failf("the tensor %s has a level of storage %s, which this generator does not support", t.Name, l.Storage)
		}
	}
	ti := &tinfo{t: t, local: map[string]string{}, result: t == g.p.ResultTensor}
	if ti.result {
		ti.typ, ti.ptr = g.fn+"Result", "dst"
	} else {
		ti.typ = g.typeNames[t]
		ti.ptr = g.loc.name(t.Name)
	}
	g.ts[t] = ti
	g.order = append(g.order, ti)
	if t.Input {
		return // read only, through its struct
	}
	base := sanitize(t.Name)
	hoist := func(f string) {
		ti.hoist = append(ti.hoist, f)
		ti.local[f] = g.loc.name(base + "_" + strings.ToLower(f))
	}
	hoist(valsField)
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense:
			hoist(nField(lv))
			if l.Marked() {
				hoist(presentField(lv))
			}
		case lower.Sparse:
			hoist(markField(lv))
			hoist(listField(lv))
		case lower.Positions:
			if l.Marked() {
				hoist(presentField(lv))
			}
		case lower.Diagonal:
			if !l.Full {
				hoist(presentField(lv))
				hoist(allField(lv))
			}
		case lower.Appended:
			if g.wvals[t] == nil {
				hoist(appKeys(lv))
			}
			// else the keys stay in the struct, appended through it as a
			// hand-written Gustavson loop does: one slice fewer live in
			// the row's loop, where the workspace, its marks and the
			// input's segments already take the registers (pregrow.go)
			for _, f := range []string{appMark(lv), appCur(lv), appFirst(lv)} {
				hoist(f)
			}
			if g.wvals[t] != nil {
				hoist(appW(lv))
			}
		}
	}
}

// fixedPositions reports whether the number of positions of level lv is
// set by init (dense levels under dense or positions levels, positions
// levels), so the values of a last such level are one array sized once.
func fixedPositions(t *lower.Tensor, lv int) bool {
	for i := 0; i <= lv; i++ {
		if s := t.Levels[i].Storage; s != lower.Dense && s != lower.Positions && s != lower.Diagonal {
			return false
		}
	}
	return true
}

// count is the number of positions of level lv as a Go expression over
// the receiver t (in the type's methods): 1 above the top.
func count(t *lower.Tensor, lv int) string {
	if lv < 0 {
		return "1"
	}
	switch l := t.Levels[lv]; l.Storage {
	case lower.Dense:
		up := count(t, lv-1)
		if up == "1" {
			return "t." + nField(lv)
		}
		return up + "*t." + nField(lv)
	case lower.Sparse:
		return "len(t." + markField(lv) + ")"
	case lower.Positions:
		return "len(t." + idxField(lv) + ")"
	case lower.Appended:
		return "len(t." + appKeys(lv) + ")"
	case lower.Diagonal:
		return count(t, lv-1)
	}
	return "len(t." + hashField(lv) + ".Keys)"
}

// f returns the Go expression of a field of the tensor in the function:
// its local when hoisted.
func (ti *tinfo) f(field string) string {
	if l, ok := ti.local[field]; ok {
		return l
	}
	return ti.ptr + "." + field
}

// syncOut stores the tensor's locals into its struct, unless they are
// known to be there already.
func (g *gen) syncOut(ti *tinfo) {
	if g.synced[ti] || g.frozen[ti] {
		return
	}
	for _, f := range ti.hoist {
		g.line("%s.%s = %s", ti.ptr, f, ti.local[f])
	}
}

// syncIn loads the tensor's locals from its struct.
func (g *gen) syncIn(ti *tinfo) {
	for _, f := range ti.hoist {
		g.line("%s = %s.%s", ti.local[f], ti.ptr, f)
	}
	g.synced[ti] = true
}

// unsync forgets which tensors' locals are in their structs: at the
// boundaries of loops and branches, and where a tensor's locals change.
func (g *gen) unsync(ti *tinfo) {
	if ti == nil {
		clear(g.synced)
		return
	}
	delete(g.synced, ti)
}

// driftingLocals reports whether a tensor's locals may differ from its
// struct's fields between syncs: a level that appends (sparse, hashed,
// appended) changes them in place. Dense, diagonal and positions levels
// change them only in init and grow0, which sync both ways, so their
// structs always hold what their locals do.
func driftingLocals(t *lower.Tensor) bool {
	for _, l := range t.Levels {
		switch l.Storage {
		case lower.Dense, lower.Diagonal, lower.Positions:
		default:
			return true
		}
	}
	return false
}

// syncOutDrifting stores the locals of the tensors whose locals drift,
// before the function returns. The others' are not stored: a store at
// every return kept them live to the end of the function, taking
// registers from every loop (Go's register allocator then spilled inner
// loops' counters).
func (g *gen) syncOutDrifting() {
	for _, ti := range g.order {
		if driftingLocals(ti.t) {
			g.syncOut(ti)
		}
	}
}

// declareTensors makes the tensors' pointers and locals at the top of the
// function, converting the dictionary inputs.
func (g *gen) declareTensors() {
	for _, ti := range g.order {
		if ti.result {
			continue
		}
		if g.opts.Workspace {
			g.line("%s := &ws.%s", ti.ptr, ti.ptr)
		} else {
			g.line("%s := new(%s)", ti.ptr, ti.typ)
		}
	}
	for _, pa := range g.p.Params {
		if pa.Tensor != nil {
			g.line("%s.load(%s)", g.ts[pa.Tensor].ptr, g.paramGoName(pa.Name))
		}
	}
	for _, ti := range g.order {
		for _, f := range ti.hoist {
			g.line("%s := %s.%s", ti.local[f], ti.ptr, f)
		}
		g.synced[ti] = true
	}
	for _, a := range g.temps {
		if g.opts.Workspace {
			g.line("%s := ws.%s", g.arrays[a], g.arrays[a])
		} else {
			g.line("var %s []int", g.arrays[a])
		}
	}
}

// memoField is the workspace's field keeping what the transposition
// into the Temp array tpos sorted (PFXTransposeMemo).
func memoField(tpos string) string { return tpos + "Memo" }

// workType writes FUNCWork, the intermediates kept across calls.
func (g *gen) workType(w *bytes.Buffer) {
	if !g.opts.Workspace || !g.hasWork() {
		return
	}
	fmt.Fprintf(w, "// %sWork holds %s's intermediate tensors across calls, so that their\n// memory is reused; the zero value is ready.\ntype %sWork struct {\n", g.fn, g.fn, g.fn)
	for _, ti := range g.order {
		if !ti.result {
			fmt.Fprintf(w, "%s %s\n", ti.ptr, ti.typ)
		}
	}
	for _, a := range g.temps {
		fmt.Fprintf(w, "%s []int\n", g.arrays[a])
	}
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		if x, ok := s.(*lower.Transpose); ok {
			fmt.Fprintf(w, "%s %sTransposed\n", memoField(g.arrays[x.TPos]), g.pfx)
		}
	})
	g.parallelWork(w)
	w.WriteString("}\n\n")
}

// levelDoc describes a level for the doc comments, e.g. "dense, keys
// 0..N0-1 (Present0 says which exist)".
func levelDoc(t *lower.Tensor, lv int) string {
	l := t.Levels[lv]
	switch l.Storage {
	case lower.Dense:
		s := fmt.Sprintf("dense: keys 0..N%d-1, key k of parent position q at position q*N%d + k", lv, lv)
		if l.Marked() {
			s += fmt.Sprintf(", present where Present%d is true", lv)
		} else if l.Unmarked {
			s += ", every key present (zero until written)"
		}
		return s
	case lower.Sparse:
		return fmt.Sprintf("sparse: the keys List%d in insertion order (Mark%d[k] says whether k is one), key k at position k", lv, lv)
	case lower.Hash:
		return fmt.Sprintf("hashed: L%d maps (parent position, key) to child positions numbered in insertion order", lv)
	case lower.Positions:
		present := fmt.Sprintf(", present where Present%d is true", lv)
		if !l.Marked() {
			present = ", all present with their parent (full)"
		}
		if l.Of.Pos == nil {
			return fmt.Sprintf("an input's positions: the children of parent position 0 are the positions c of Idx%d, key Idx%d[c]", lv, lv) + present
		}
		return fmt.Sprintf("an input's positions: the children of parent position q are the positions c in Pos%d[q]..Pos%d[q+1]-1, key Idx%d[c]", lv, lv, lv) + present
	case lower.Appended:
		return fmt.Sprintf("appended: each parent's children consecutive, in insertion order (A%d.span(q) gives them, A%d.Keys[c] the key of child c)", lv, lv)
	case lower.Diagonal:
		return "diagonal: the one child of parent position q is at key q and position q"
	}
	return l.Storage.String()
}

// tensorType writes a tensor's struct type and its methods.
func (g *gen) tensorType(w *bytes.Buffer, ti *tinfo) {
	t := ti.t
	leaf := goKind(t.Leaf)
	if ti.result {
		fmt.Fprintf(w, "// %s is the result of %s, a dictionary of type %s stored in %d level(s):\n", ti.typ, g.fn, t.Type, t.Order())
	} else {
		fmt.Fprintf(w, "// %s is the tensor %s of %s, of type %s, stored in %d level(s):\n", ti.typ, t.Name, g.fn, t.Type, t.Order())
	}
	for lv := range t.Levels {
		fmt.Fprintf(w, "//   - level %d, %s;\n", lv, levelDoc(t, lv))
	}
	fmt.Fprintf(w, "//\n// Vals[c] is the value at position c of the last level.")
	if ti.result {
		fmt.Fprintf(w, " The zero value is empty;\n// %s refills it on every call, reusing its memory.", g.fn)
	}
	fmt.Fprintf(w, "\ntype %s struct {\n", ti.typ)
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense:
			fmt.Fprintf(w, "%s int\n", nField(lv))
			if l.Marked() {
				fmt.Fprintf(w, "%s []bool\n", presentField(lv))
			}
		case lower.Sparse:
			fmt.Fprintf(w, "%s []bool\n%s []int\n", markField(lv), listField(lv))
		case lower.Hash:
			fmt.Fprintf(w, "%s %sHash\n", hashField(lv), g.pfx)
			g.helpers["hash"] = true
		case lower.Positions:
			fmt.Fprintf(w, "%s, %s []int\n", posField(lv), idxField(lv))
			if l.Marked() {
				fmt.Fprintf(w, "%s []bool\n", presentField(lv))
			}
		case lower.Appended:
			fmt.Fprintf(w, "%s %sAppended\n", appField(lv), g.pfx)
			g.helpers["appended"] = true
		case lower.Diagonal:
			if !l.Full {
				fmt.Fprintf(w, "%s []bool\n%s bool\n", presentField(lv), allField(lv))
			}
		}
	}
	fmt.Fprintf(w, "Vals []%s\n}\n\n", leaf)
	g.initMethod(w, ti)
	g.growMethod(w, ti)
	if g.wvals[ti.t] != nil {
		a := appField(ti.t.Order() - 1)
		fmt.Fprintf(w, "// gather appends the values of the burst being filled, from the\n// workspace its children add into: Vals then has a value per child.\nfunc (t *%s) gather() {\nt.Vals = %sRoom(t.Vals, len(t.%s.Keys)-len(t.Vals))\nfor _, k := range t.%s.Keys[len(t.Vals):] {\nt.Vals = append(t.Vals, t.%s.W[k])\n}\n}\n\n", ti.typ, g.pfx, a, a, a)
	}
	if ti.result {
		g.resultMethods(w, ti)
	}
	if ti.t.Input {
		g.loadMethod(w, ti)
	}
}

// initArgs are the arguments of a tensor's init method, as Go
// expressions in the function (sizes evaluated by the caller).
func (g *gen) initArgs(t *lower.Tensor) []string {
	var args []string
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense, lower.Sparse:
			if size := g.resultSize(t, lv); size != "" {
				args = append(args, size)
			} else if l.Size == nil {
				args = append(args, "0")
			} else {
				args = append(args, g.exprAs(l.Size, lower.Int))
			}
		case lower.Positions:
			pos := "nil"
			if l.Of.Pos != nil {
				pos = g.arrays[l.Of.Pos]
			}
			args = append(args, pos, g.arrays[l.Of.Idx])
		}
	}
	return args
}

// resultSize is the parameter giving the size of level lv of t at run
// time (Options.ResultSizes), or "".
func (g *gen) resultSize(t *lower.Tensor, lv int) string {
	l := t.Levels[lv]
	if t != g.p.ResultTensor || lv >= len(g.opts.ResultSizes) || g.opts.ResultSizes[lv] == "" || l.Storage != lower.Dense || !l.Full {
		return ""
	}
	name := g.opts.ResultSizes[lv]
	for _, pa := range g.p.Params {
		if pa.Name == name && pa.Var != nil && pa.Var.Kind == lower.Int {
			return g.vars[pa.Var]
		}
	}
	return "" // not a parameter: the lowered size stays
}

// covered reports whether an Init of t has a Covered condition: its init
// method then takes keep, which skips clearing what the program sets.
func (g *gen) covered(t *lower.Tensor) bool {
	if g.coveredInit == nil {
		g.coveredInit = map[*lower.Tensor]bool{}
		lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
			if in, ok := s.(*lower.Init); ok && in.Covered != nil {
				g.coveredInit[in.T] = true
			}
		})
	}
	return g.coveredInit[t]
}

// setFirst reports whether every Init of t says its values are set
// before they are read (lower.Init.SetFirst): init then does not zero
// them.
func (g *gen) setFirst(t *lower.Tensor) bool {
	n, set := 0, 0
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		if in, ok := s.(*lower.Init); ok && in.T == t {
			n++
			if in.SetFirst {
				set++
			}
		}
	})
	return n > 0 && n == set
}

// initMethod writes init: empty the tensor, size its levels, reuse its
// memory.
func (g *gen) initMethod(w *bytes.Buffer, ti *tinfo) {
	t := ti.t
	leaf := goKind(t.Leaf)
	keep := g.covered(t)
	setFirst := g.setFirst(t)
	clearIf := func(x string) string {
		if keep {
			return "if !keep {\nclear(" + x + ")\n}"
		}
		return "clear(" + x + ")"
	}
	var params []string
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense, lower.Sparse:
			params = append(params, fmt.Sprintf("n%d int", lv))
		case lower.Positions:
			params = append(params, fmt.Sprintf("pos%d, idx%d []int", lv, lv))
		}
	}
	if keep {
		params = append(params, "keep bool")
	}
	fmt.Fprintf(w, "// init empties t and sizes its levels, reusing its memory.\nfunc (t *%s) init(%s) {\n", ti.typ, strings.Join(params, ", "))
	for lv, l := range t.Levels {
		switch l.Storage {
		case lower.Dense:
			if lv == 0 && !l.Full {
				// a level that grows keeps the extent it grew to, so
				// that repeated calls do not grow it again
				fmt.Fprintf(w, "t.%s = max(n%d, t.%s)\n", nField(lv), lv, nField(lv))
			} else {
				fmt.Fprintf(w, "t.%s = max(n%d, 0)\n", nField(lv), lv)
			}
			if l.Marked() {
				p := "t." + presentField(lv)
				fmt.Fprintf(w, "if n := %s; cap(%s) >= n {\n%s = %s[:n]\n%s\n} else {\n%s = make([]bool, n)\n}\n", count(t, lv), p, p, p, clearIf(p), p)
			}
		case lower.Sparse:
			m, ls := "t."+markField(lv), "t."+listField(lv)
			fmt.Fprintf(w, "if len(%s) < n%d {\n%s = make([]bool, n%d)\n} else {\nfor _, k := range %s {\n%s[k] = false\n}\n}\n%s = %s[:0]\n",
				m, lv, m, lv, ls, m, ls, ls)
		case lower.Hash:
			fmt.Fprintf(w, "t.%s.reset()\n", hashField(lv))
		case lower.Appended:
			fmt.Fprintf(w, "t.%s.reset()\n", appField(lv))
		case lower.Positions:
			fmt.Fprintf(w, "t.%s, t.%s = pos%d, idx%d\n", posField(lv), idxField(lv), lv, lv)
			if l.Marked() {
				p := "t." + presentField(lv)
				fmt.Fprintf(w, "if n := len(idx%d); cap(%s) >= n {\n%s = %s[:n]\nclear(%s)\n} else {\n%s = make([]bool, n)\n}\n", lv, p, p, p, p, p)
			}
		case lower.Diagonal:
			if !l.Full {
				// every row's child is inserted when the init is kept
				// (Covered): All says so, and Present is not used
				all := "false"
				if keep {
					all = "keep"
				}
				p := "t." + presentField(lv)
				fmt.Fprintf(w, "t.%s = %s\nif !t.%s {\nif n := %s; cap(%s) >= n {\n%s = %s[:n]\nclear(%s)\n} else {\n%s = make([]bool, n)\n}\n}\n",
					allField(lv), all, allField(lv), count(t, lv), p, p, p, p, p)
			}
		}
	}
	last := t.Order() - 1
	switch {
	case fixedPositions(t, last) && setFirst:
		// every value read is set first (lower.Init.SetFirst)
		fmt.Fprintf(w, "if n := %s; cap(t.Vals) >= n {\nt.Vals = t.Vals[:n]\n} else {\nt.Vals = make([]%s, n)\n}\n", count(t, last), leaf)
	case fixedPositions(t, last):
		fmt.Fprintf(w, "if n := %s; cap(t.Vals) >= n {\nt.Vals = t.Vals[:n]\n%s\n} else {\nt.Vals = make([]%s, n)\n}\n", count(t, last), clearIf("t.Vals"), leaf)
	case t.Levels[last].Storage == lower.Sparse:
		fmt.Fprintf(w, "if len(t.Vals) < len(t.%s) {\nt.Vals = make([]%s, len(t.%s))\n}\n", markField(last), leaf, markField(last))
	default:
		w.WriteString("t.Vals = t.Vals[:0]\n")
	}
	w.WriteString("}\n\n")
}

// growable reports whether level 0 of t grows when a key past its extent
// arrives (a dense level not full, a sparse level).
func growable(t *lower.Tensor) bool {
	l := t.Levels[0]
	return l.Storage == lower.Sparse || l.Storage == lower.Dense && !l.Full
}

// growMethod writes grow0: level 0 grows to hold key (at least
// doubling), and the levels under it with it.
func (g *gen) growMethod(w *bytes.Buffer, ti *tinfo) {
	t := ti.t
	if !growable(t) {
		return
	}
	leaf := goKind(t.Leaf)
	// go:noinline: growing is the cold path of an insert in a hot loop;
	// inlined, its calls make Go keep the loop's counters in memory.
	fmt.Fprintf(w, "// grow0 grows level 0 of t to hold the key k >= 0 (not inlined: it\n// is the cold path of inserts in loops).\n//\n//go:noinline\nfunc (t *%s) grow0(k int) {\n", ti.typ)
	last := t.Order() - 1
	switch t.Levels[0].Storage {
	case lower.Dense:
		fmt.Fprintf(w, "t.N0 = max(k+1, 2*t.N0, 8)\n")
		for lv := 0; lv <= last && fixedPositions(t, lv); lv++ {
			if l := t.Levels[lv]; (l.Storage == lower.Dense || l.Storage == lower.Diagonal) && l.Marked() {
				p := "t." + presentField(lv)
				fmt.Fprintf(w, "%s = append(%s, make([]bool, %s-len(%s))...)\n", p, p, count(t, lv), p)
			}
		}
		if fixedPositions(t, last) {
			fmt.Fprintf(w, "t.Vals = append(t.Vals, make([]%s, %s-len(t.Vals))...)\n", leaf, count(t, last))
		}
	case lower.Sparse:
		fmt.Fprintf(w, "n := max(2*len(t.Mark0), k+1, 8)\nt.Mark0 = append(t.Mark0, make([]bool, n-len(t.Mark0))...)\n")
		if last == 0 {
			fmt.Fprintf(w, "if len(t.Vals) < n {\nt.Vals = append(t.Vals, make([]%s, n-len(t.Vals))...)\n}\n", leaf)
		}
	}
	w.WriteString("}\n\n")
}
