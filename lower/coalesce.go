package lower

// Coalesce flattens a loop over a range of a compressed level's parents
// whose body only loops over each parent's segment and never reads which
// parent it is in:
//
//	for i := lo0; i < hi0; i++ {
//	  lo := pos[i]; hi := pos[i+1]
//	  for p := lo; p < hi; p++ { body }   // body reads neither i, lo nor hi
//	}
//
// becomes one loop over all their positions,
//
//	if lo0 < hi0 { for p := pos[lo0]; p < pos[hi0]; p++ { body } }
//
// since a format's pos array is monotone (validated when the input is
// bound), its segments are consecutive: pos[i+1] ends segment i and
// starts segment i+1. It is the column sums of a CSR matrix run over its
// entries, with no per-row work left (TACO's iteration over all nonzeros).
func Coalesce(p *Program) {
	p.Body = coalesceStmt(p.Body)
}

func coalesceStmt(s Stmt) Stmt {
	mapBodies(s, coalesceStmt)
	if f, ok := s.(*For); ok {
		if out := coalesce(f); out != nil {
			return out
		}
	}
	return s
}

func coalesce(f *For) Stmt {
	body, ok := f.Body.(*Block)
	if !ok || len(body.List) == 0 {
		return nil
	}
	inner, ok := body.List[len(body.List)-1].(*For)
	if !ok {
		return nil
	}
	prefix := body.List[:len(body.List)-1]
	lets := map[*Var]Expr{}
	var defined []*Var
	for _, s := range prefix {
		let, ok := s.(*Let)
		if !ok {
			return nil
		}
		lets[let.V] = let.X
		defined = append(defined, let.V)
	}
	deref := func(e Expr) Expr {
		if r, ok := e.(*Ref); ok {
			if x, ok := lets[r.V]; ok {
				return x
			}
		}
		return e
	}
	lo, ok1 := deref(inner.Lo).(*Load)
	hi, ok2 := deref(inner.Hi).(*Load)
	if !ok1 || !ok2 || lo.A != hi.A || !isRefTo(lo.Index, f.V) ||
		CanonString(hi.Index) != CanonString(&Binary{Op: Add, X: &Ref{V: f.V}, Y: intConst(1)}) {
		return nil
	}
	// the pos array of a format's compressed level below the top: its
	// monotonicity is validated
	pos := lo.A
	if pos.Level == nil || pos.Level.Pos != pos.Name {
		return nil
	}
	readsAny := false
	WalkStmtExprs(inner.Body, func(e Expr) {
		if r, ok := e.(*Ref); ok {
			if r.V == f.V {
				readsAny = true
			}
			for _, v := range defined {
				if r.V == v {
					readsAny = true
				}
			}
		}
	})
	if readsAny {
		return nil
	}
	flat := &For{V: inner.V, Lo: &Load{A: pos, Index: f.Lo}, Hi: &Load{A: pos, Index: f.Hi}, Body: inner.Body}
	return &If{Cond: &Binary{Op: Lt, X: f.Lo, Y: f.Hi}, Then: &Block{List: []Stmt{flat}}}
}
