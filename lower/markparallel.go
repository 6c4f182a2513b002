package lower

// MarkParallel marks the loops whose iterations may run on several
// workers (For.Par): the outermost loops of the program (not inside
// another loop) whose body only adds: into tensors made before the loop
// (Insert and Store with AddTo), into scalar variables declared before it
// (Assign AddTo), and into what the body itself declares and
// initializes (its own variables and workspaces). Each worker then
// accumulates its iterations into its own copies of those tensors and
// variables, which are added into the shared ones after (Merge Sum). A
// body that reads a tensor it writes, or sets a variable declared before
// the loop, keeps the serial order: it is not marked.
func MarkParallel(p *Program) {
	var walk func(s Stmt)
	walk = func(s Stmt) {
		switch s := s.(type) {
		case *Block:
			for _, x := range s.List {
				walk(x)
			}
		case *If:
			walk(s.Then)
			walk(s.Else)
		case *For:
			s.Par = parallel(s)
		}
	}
	walk(p.Body)
}

// parallel returns the mark of a loop whose iterations only add, or nil.
func parallel(f *For) *Par {
	declared := map[*Var]bool{f.V: true}
	inited := map[*Tensor]bool{}
	written := map[*Tensor]bool{}
	read := map[*Tensor]bool{}
	reduce := map[*Var]bool{}
	byOther := map[*Tensor]bool{} // inserted at level 0 under another key than f's variable
	ok := true
	reads := func(e Expr) {
		WalkExpr(e, func(x Expr) {
			if v, isVal := x.(*ValAt); isVal {
				read[v.T] = true
			}
		})
	}
	var walk func(s Stmt)
	walk = func(s Stmt) {
		switch s := s.(type) {
		case nil:
		case *Block:
			for _, x := range s.List {
				walk(x)
			}
		case *Let:
			declared[s.V] = true
			reads(s.X)
		case *Assign:
			reads(s.X)
			if !declared[s.V] {
				if s.Op != AddTo {
					ok = false
				}
				reduce[s.V] = true
			}
		case *If:
			reads(s.Cond)
			walk(s.Then)
			walk(s.Else)
		case *For:
			declared[s.V] = true
			reads(s.Lo)
			reads(s.Hi)
			walk(s.Body)
		case *ForLevel:
			declared[s.Key] = true
			if s.Pos != nil {
				declared[s.Pos] = true
			}
			read[s.T] = true
			reads(s.Parent)
			walk(s.Body)
		case *Search:
			declared[s.Pos] = true
			reads(s.Lo)
			reads(s.Hi)
			reads(s.Key)
			walk(s.Body)
		case *Locate:
			declared[s.Pos] = true
			read[s.T] = true
			reads(s.Parent)
			reads(s.Key)
			walk(s.Body)
		case *Insert:
			if s.Level == 0 && !isRefTo(s.Key, f.V) {
				byOther[s.T] = true
			}
			// a worker's copy starts empty: the loop must insert the
			// whole path, from level 0 or under a position it inserted
			if s.Level > 0 {
				if r, isRef := s.Parent.(*Ref); !isRef || !declared[r.V] {
					ok = false
				}
			}
			declared[s.Pos] = true
			written[s.T] = true
			reads(s.Parent)
			reads(s.Key)
		case *Store:
			written[s.T] = true
			if r, isRef := s.Pos.(*Ref); s.Op != AddTo || !isRef || !declared[r.V] {
				ok = false
			}
			reads(s.Pos)
			reads(s.X)
		case *Init:
			inited[s.T] = true
		case *Fail:
		case *Transpose:
			ok = false // fills arrays the iterations would share
		}
	}
	walk(f.Body)
	if !ok {
		return nil
	}
	par := &Par{Merge: Sum}
	for t := range written {
		if read[t] && !inited[t] {
			return nil // reads what other iterations add
		}
		if inited[t] {
			continue
		}
		if !byOther[t] && FixedAtInit(t) {
			// every iteration writes under its own key of level 0 of a
			// tensor whose positions are fixed at its init (no level
			// grows): the workers write distinct positions (and
			// presence flags) of the shared tensor in place
			par.Shared = append(par.Shared, t)
			continue
		}
		par.Tensors = append(par.Tensors, t)
	}
	if len(par.Tensors) == 0 && len(reduce) == 0 {
		par.Merge = Disjoint
	}
	for t := range inited {
		par.Private = append(par.Private, t)
	}
	for v := range reduce {
		par.Reduce = append(par.Reduce, v)
	}
	sortTensors(par.Private)
	sortTensors(par.Tensors)
	sortTensors(par.Shared)
	sortVars(par.Reduce)
	return par
}

// FixedAtInit reports whether t's positions are fixed when it is
// initialized, so that the workers of a loop writing under distinct keys
// of its level 0 write distinct positions and presence flags of it in
// place (Par.Shared): level 0 dense and full, or sized (lowering proved every
// key below its size: it never grows), and the levels below it dense and
// full, diagonal, or an input's positions (a gradient on a sparse input's
// rows).
func FixedAtInit(t *Tensor) bool {
	for i, l := range t.Levels {
		switch {
		case l.Storage == Dense && l.Full:
		case i == 0 && l.Storage == Dense && l.Size != nil:
		case i > 0 && (l.Storage == Diagonal || l.Storage == Positions):
		default:
			return false
		}
	}
	return true
}

func sortTensors(ts []*Tensor) {
	for i := 1; i < len(ts); i++ {
		for j := i; j > 0 && ts[j].ID < ts[j-1].ID; j-- {
			ts[j], ts[j-1] = ts[j-1], ts[j]
		}
	}
}

func sortVars(vs []*Var) {
	for i := 1; i < len(vs); i++ {
		for j := i; j > 0 && vs[j].ID < vs[j-1].ID; j-- {
			vs[j], vs[j-1] = vs[j-1], vs[j]
		}
	}
}
