package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Appended levels (a last level whose parents each get their children in
// one burst, lower.Appended): a PFXAppended (runtime.go) numbers the
// children in insertion order, so each parent's are consecutive, and
// marks the keys of the parent being filled (Gustavson's workspace, its
// rows appended to a compressed result). An insert is inline: a new
// parent begins its burst (the previous one's marks are cleared), the
// key's mark gives its child, or the key is appended with a zero value.
// Its keys, marks and current parent are locals of the function.

// The hoisted fields of an appended level.
func appKeys(lv int) string  { return appField(lv) + ".Keys" }
func appMark(lv int) string  { return appField(lv) + ".Mark" }
func appCur(lv int) string   { return appField(lv) + ".Cur" }
func appFirst(lv int) string { return appField(lv) + ".First" }
func appW(lv int) string     { return appField(lv) + ".W" }

func (g *gen) appendedInsert(ti *tinfo, s *lower.Insert) {
	lv := s.Level
	q := g.simple(s.Parent, lower.Int, "q")
	k := g.simple(s.Key, lower.Int, "k")
	keys, mark, first := ti.f(appKeys(lv)), ti.f(appMark(lv)), ti.f(appFirst(lv))
	if !g.begun[s] {
		g.appendedBegin(ti, lv, q)
	}
	if !g.grownBefore[s] { // else grown before the loop (pregrow.go)
		g.line("if uint(%s) >= uint(len(%s)) {", k, mark)
		g.line("if %s < 0 {", k)
		g.returnErr(g.errorf("key %d of an appended level is negative", k))
		g.line("}")
		g.line("%s = %s.%s.grown(%s, %s)", mark, ti.ptr, appField(lv), mark, k)
		if g.wvals[s.T] != nil {
			w := ti.f(appW(lv))
			g.line("%s = %s.%s.grownW(%s, len(%s))", w, ti.ptr, appField(lv), w, mark)
		}
		g.line("}")
	}
	if g.wvals[s.T] != nil {
		// the key is the position in the workspace; the mark says the
		// current parent has it
		w, cur := ti.f(appW(lv)), ti.f(appCur(lv))
		g.line("if %s[%s] != int32(%s) {", mark, k, cur)
		g.line("%s[%s] = int32(%s)", mark, k, cur)
		g.line("%s[%s] = 0", w, k)
		g.room(keys, "1")
		g.line("%s = append(%s, %s)", keys, keys, k)
		g.line("}")
		g.segStore[s.Pos] = w + "[" + k + "]" // the position is read by stores only (file)
		return
	}
	c := g.loc.name("c")
	g.line("%s := int(%s[%s]) - 1", c, mark, k)
	g.line("if %s < %s {", c, first)
	g.line("%s = len(%s)", c, keys)
	g.room(keys, "1")
	g.line("%s = append(%s, %s)", keys, keys, k)
	g.line("%s[%s] = int32(%s + 1)", mark, k, c)
	if lv == s.T.Order()-1 {
		vals := ti.f(valsField)
		g.room(vals, "1")
		g.line("%s = append(%s, %s)", vals, vals, zeroOf(s.T.Leaf))
	}
	g.line("}")
	g.bind(s.Pos, c)
}

// room emits the growth of an appended level's keys or values s before
// an append of n entries: by doubling (PFXRoom), where append would grow
// a large slice by a quarter.
func (g *gen) room(s, n string) {
	if n == "1" {
		g.line("if len(%s) == cap(%s) {", s, s)
	} else {
		g.line("if cap(%s)-len(%s) < %s {", s, s, n)
	}
	g.line("%s = %sRoom(%s, %s)", s, g.pfx, s, n)
	g.line("}")
}

// appendedBegin emits the start of parent q's burst in the appended level
// lv, unless it is the current one: the current burst ends, q's begins.
func (g *gen) appendedBegin(ti *tinfo, lv int, q string) {
	keys, cur, first := ti.f(appKeys(lv)), ti.f(appCur(lv)), ti.f(appFirst(lv))
	// Start and End stay in the struct: only a new burst reads them, and
	// parents, which grows them, touches nothing else
	lvl := ti.ptr + "." + appField(lv)
	start, end := lvl+".Start", lvl+".End"
	g.line("if %s != %s+1 {", cur, q)
	g.line("if %s != 0 {", cur)
	if g.wvals[ti.t] != nil {
		// the burst's values, from the workspace
		vals, w := ti.f(valsField), ti.f(appW(lv))
		g.room(vals, "len("+keys+")-len("+vals+")")
		g.line("for _, k := range %s[len(%s):] {\n%s = append(%s, %s[k])\n}", keys, vals, vals, vals, w)
	}
	g.line("%s[%s-1] = len(%s)\n}", end, cur, keys)
	g.line("if uint(%s) >= uint(len(%s)) {", q, start)
	g.line("if %s < 0 {", q)
	g.returnErr(g.errorf("internal error: the parent %d of an appended level is negative", q))
	g.line("}")
	g.line("%s.parents(%s)", lvl, q)
	g.line("}")
	g.line("if %s[%s] != 0 {", start, q)
	g.returnErr(g.errorf("internal error: the parent %d of an appended level is filled twice", q))
	g.line("}")
	g.line("%s[%s] = len(%s) + 1", start, q, keys)
	g.line("%s, %s = len(%s), %s+1", first, cur, keys, q)
	g.line("}")
}

// bursts maps, for each appended level of a tensor the program builds,
// the insert of its parent to the level's insert, where the level has one
// insert whose parent is a position that one insert binds: lowering chose
// the level appended because its parents' inserts run in distinct
// iterations of one loop, each followed by all its children's
// (lower.ChooseAppended), so each parent's burst may begin where the
// parent is inserted, once, rather than be tested for at every child. A
// parent that then gets no child holds an empty burst, as it holds no
// child.
func bursts(p *lower.Program) map[*lower.Insert]*lower.Insert {
	out := map[*lower.Insert]*lower.Insert{}
	for _, t := range p.Tensors {
		if t.Input {
			continue
		}
		for lv := 1; lv < t.Order(); lv++ {
			if t.Levels[lv].Storage != lower.Appended {
				continue
			}
			var children []*lower.Insert
			parents := map[*lower.Var][]*lower.Insert{}
			lower.WalkStmts(p.Body, func(s lower.Stmt) {
				if x, ok := s.(*lower.Insert); ok && x.T == t {
					switch x.Level {
					case lv:
						children = append(children, x)
					case lv - 1:
						parents[x.Pos] = append(parents[x.Pos], x)
					}
				}
			})
			if len(children) != 1 {
				continue
			}
			if r, ok := children[0].Parent.(*lower.Ref); ok && len(parents[r.V]) == 1 {
				out[parents[r.V][0]] = children[0]
			}
		}
	}
	return out
}

// workspaceRows lists the result tensors whose appended last level of
// reals adds into a dense workspace by key (PFXAppended.W), Gustavson's
// accumulator: its one insert binds the key as the position, the stores
// add at it, and the burst's values are appended when it ends (the next
// burst's start, appendAllFrom, the function's end: gather). A store's
// address then comes from the key alone rather than through the mark
// (the child's number), one dependent load less per entry. The program
// must not read the tensor (the values of the burst being filled are in
// the workspace), and every store into it is at that insert's position.
func workspaceRows(p *lower.Program) map[*lower.Tensor]*lower.Insert {
	out := map[*lower.Tensor]*lower.Insert{}
	t := p.ResultTensor
	if t == nil || t.Leaf != lower.Real || t.Order() < 2 || t.Levels[t.Order()-1].Storage != lower.Appended {
		return out
	}
	last := t.Order() - 1
	var inserts []*lower.Insert
	var stores []*lower.Store
	read := false
	lower.WalkStmts(p.Body, func(s lower.Stmt) {
		switch x := s.(type) {
		case *lower.Insert:
			if x.T == t && x.Level == last {
				inserts = append(inserts, x)
			}
		case *lower.Store:
			if x.T == t {
				stores = append(stores, x)
			}
		case *lower.Locate:
			read = read || x.T == t
		case *lower.ForLevel:
			read = read || x.T == t
		}
	})
	lower.WalkStmtExprs(p.Body, func(e lower.Expr) {
		if v, ok := e.(*lower.ValAt); ok && v.T == t {
			read = true
		}
	})
	if read || len(inserts) != 1 {
		return out
	}
	for _, st := range stores {
		if r, ok := st.Pos.(*lower.Ref); !ok || r.V != inserts[0].Pos {
			return out
		}
	}
	out[t] = inserts[0]
	return out
}

func (g *gen) appendedLocate(ti *tinfo, s *lower.Locate) {
	q := g.exprAs(s.Parent, lower.Int)
	k := g.exprAs(s.Key, lower.Int)
	g.syncOut(ti)
	c := g.posName(s.Pos)
	g.line("if %s, ok := %s.%s.find(%s, %s); ok {", c, ti.ptr, appField(s.Level), q, k)
	g.body(s.Body, func() { g.bind(s.Pos, c) })
	g.line("}")
}

func (g *gen) appendedForLevel(ti *tinfo, s *lower.ForLevel) {
	q := g.exprAs(s.Parent, lower.Int)
	g.syncOut(ti)
	lo, hi := g.loc.name("lo"), g.loc.name("hi")
	g.line("%s, %s := %s.%s.span(%s)", lo, hi, ti.ptr, appField(s.Level), q)
	c := g.loc.name("c")
	keys := ti.f(appKeys(s.Level))
	g.line("for %s := %s; %s < %s; %s++ {", c, lo, c, hi, c)
	g.body(s.Body, func() {
		g.bind(s.Key, keys+"["+c+"]")
		g.bind(s.Pos, c)
	})
	g.line("}")
}
