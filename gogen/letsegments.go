package gogen

import "github.com/nablasd/nablasd/lower"

// Segments read through index lets. Lowering binds index arithmetic to
// lets (e := c + j, then U[e - 1], U[e + 1], U[e]: a stencil's row), so a
// load's index is often a let's variable plus a constant, not the loop's
// variable plus an offset, or the offset is spelled around the variable
// (x[i + k - b] in the loop over k). Read through the program's int lets, such an
// index is j + off (off = c - 1, c + 1, c) with off the same in every
// iteration: the load is a segment of U like U[c + j], sliced before the
// loop and read without a bounds check. A let whose every read is then a
// segment's is not emitted (Go rejects an unused variable).

// indexLets maps each int variable a Let binds once, and that nothing
// assigns, to its expression, when that reads no variable an Assign
// changes and no memory: read anywhere in its scope, the expression has
// the let's value.
func indexLets(p *lower.Program) map[*lower.Var]lower.Expr {
	lets := map[*lower.Var]lower.Expr{}
	twice := map[*lower.Var]bool{}
	assigned := map[*lower.Var]bool{}
	lower.WalkStmts(p.Body, func(s lower.Stmt) {
		switch s := s.(type) {
		case *lower.Let:
			if s.V.Kind != lower.Int {
				return
			}
			if _, seen := lets[s.V]; seen {
				twice[s.V] = true
			}
			lets[s.V] = s.X
		case *lower.Assign:
			assigned[s.V] = true
		}
	})
	for v, x := range lets {
		stable := !twice[v] && !assigned[v] && !lower.ReadsMemory(x)
		lower.WalkExpr(x, func(e lower.Expr) {
			if r, ok := e.(*lower.Ref); ok && assigned[r.V] {
				stable = false
			}
		})
		if !stable {
			delete(lets, v)
		}
	}
	return lets
}

// throughLets is e with the variables of the index lets whose
// expressions read v (a loop's body's index arithmetic) replaced by those
// expressions, a few lets deep, and whether it replaced one. Lets that do
// not read v (a row's offset, computed outside the loop) stay: the
// segment's offset reads them, so they stay read.
func (g *gen) throughLets(e lower.Expr, v *lower.Var, depth int) (lower.Expr, bool) {
	switch x := e.(type) {
	case *lower.Ref:
		if d, ok := g.idxLets[x.V]; ok && depth > 0 {
			if out, _ := g.throughLets(d, v, depth-1); readsVar(out, v) {
				return out, true
			}
		}
	case *lower.Binary:
		a, ra := g.throughLets(x.X, v, depth)
		b, rb := g.throughLets(x.Y, v, depth)
		if ra || rb {
			return &lower.Binary{Op: x.Op, X: a, Y: b}, true
		}
	}
	return e, false
}

// readsVar reports whether e reads v.
func readsVar(e lower.Expr, v *lower.Var) bool {
	found := false
	lower.WalkExpr(e, func(x lower.Expr) {
		if r, ok := x.(*lower.Ref); ok && r.V == v {
			found = true
		}
	})
	return found
}

// loadOffset reports whether a load's index is v + off, off not reading
// v, as written (lower.OffsetIndex), in another spelling (i + k - b is k
// + (i - b): lower.OffsetOf) or through the index lets, and returns off
// (nil for v alone).
func (g *gen) loadOffset(index lower.Expr, v *lower.Var) (lower.Expr, bool) {
	if w, off := lower.OffsetIndex(index); w != nil {
		if w == v {
			return off, true
		}
	}
	e, _ := g.throughLets(index, v, 4)
	if e.Kind() != lower.Int {
		return nil, false
	}
	off, ok := lower.OffsetOf(e, v)
	if !ok {
		return nil, false
	}
	if c, isConst := off.(*lower.Const); isConst && c.K == lower.Int && c.I == 0 {
		off = nil
	}
	return off, true
}

// segmentOnlyLets lists the index lets at body's top level whose every
// read in body is the index of a load from one of the segments segs of
// the loop of v, the key of an insert that stores through a segment
// (excluded: the stencil's t9 := i1 - 1 in out(i)(t9)), or the
// expression of another such let: they are not emitted while the loop
// is.
func (g *gen) segmentOnlyLets(v *lower.Var, body lower.Stmt, segs []segRef, excluded map[*lower.Insert]bool) []*lower.Var {
	inSeg := map[loadKey]bool{}
	for _, sg := range segs {
		inSeg[sg.key(v)] = true
	}
	dropped := map[*lower.Var]bool{}
	for _, s := range topLevel(body) {
		if let, ok := s.(*lower.Let); ok && g.idxLets[let.V] != nil && g.live(let) {
			dropped[let.V] = true
		}
	}
	for len(dropped) > 0 {
		other := map[*lower.Var]bool{} // read other than as a segment's index
		var walk func(e lower.Expr)
		walk = func(e lower.Expr) {
			switch x := e.(type) {
			case *lower.Ref:
				other[x.V] = true
			case *lower.Load:
				if off, ok := g.loadOffset(x.Index, v); ok && inSeg[segRef{x.A, off}.key(v)] {
					return // read from the segment: the index is not emitted
				}
				if g.isBackSeg(x, v) {
					return // read from a backward segment (backsegments.go)
				}
				walk(x.Index)
			case *lower.Unary:
				walk(x.X)
			case *lower.Binary:
				walk(x.X)
				walk(x.Y)
			case *lower.Call:
				for _, a := range x.Args {
					walk(a)
				}
			case *lower.Select:
				walk(x.Cond)
				walk(x.Then)
				walk(x.Else)
			case *lower.ValAt:
				if g.isBackSeg(x, v) {
					return
				}
				walk(x.Pos)
			}
		}
		lower.WalkStmts(body, func(s lower.Stmt) {
			if let, ok := s.(*lower.Let); ok && dropped[let.V] {
				return
			}
			if x, ok := s.(*lower.Insert); ok && excluded[x] {
				walk(x.Parent) // its key is the segment's (readOutside)
				return
			}
			if g.live(s) {
				topExprs(s, walk)
			}
		})
		changed := false
		for x := range dropped {
			if other[x] {
				delete(dropped, x)
				changed = true
			}
		}
		if !changed {
			break
		}
	}
	var out []*lower.Var
	for _, s := range topLevel(body) {
		if let, ok := s.(*lower.Let); ok && dropped[let.V] {
			out = append(out, let.V)
		}
	}
	return out
}
