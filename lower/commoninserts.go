package lower

// CommonInserts reuses the position of an insert for a later insert of
// the same key under the same parent into the same dense level, in the
// same block:
//
//	q4 := insert(out.level0[0], i)
//	q6 := insert(out.level0[0], i)      // dropped: q6's reads read q4
//
// An insert into a dense level is its parent's row times the level's
// size plus the key, and marks the key present (once is enough): the
// second computes the position the first did, checks the key the first
// checked, and marks nothing new. Hoisting leaves such copies behind: the
// stencil's gradient adds into out(i)(j - 1), out(i)(j) and out(i)(j + 1),
// each an insert of row i in the inner loop, all three hoisted before it.
// One position lets a back end see the three as one row read at three
// offsets (gogen's wide rows) instead of three rows.
//
// The two must mean the same: parent and key equal in canonical form,
// neither reading a variable that is assigned (Assign) anywhere, and no
// Init of the tensor between them (which would empty it: the second
// insert would mark again). Other storages are left alone: an appended
// level's insert adds an entry each time.
func CommonInserts(p *Program) {
	assigned := assignedVars(p.Body)
	stable := func(e Expr) bool { return !readsAny(e, assigned) }
	same := map[*Var]Expr{}
	WalkStmts(p.Body, func(s Stmt) {
		b, ok := s.(*Block)
		if !ok {
			return
		}
		type key struct {
			t             *Tensor
			level         int
			parent, index string
		}
		first := map[key]*Var{}
		kept := b.List[:0]
		for _, y := range b.List {
			// an Init of a tensor (anywhere in y) forgets its inserts
			WalkStmts(y, func(z Stmt) {
				if in, isInit := z.(*Init); isInit {
					for k := range first {
						if k.t == in.T {
							delete(first, k)
						}
					}
				}
			})
			x, isIns := y.(*Insert)
			if !isIns || x.At != nil || x.T.Levels[x.Level].Storage != Dense || !stable(x.Parent) || !stable(x.Key) {
				kept = append(kept, y)
				continue
			}
			k := key{x.T, x.Level, CanonString(substLets(x.Parent, same)), CanonString(x.Key)}
			if q, seen := first[k]; seen {
				same[x.Pos] = &Ref{V: q}
				continue
			}
			first[k] = x.Pos
			kept = append(kept, y)
		}
		b.List = kept
	})
	if len(same) > 0 {
		mapStmtExprs(p.Body, func(e Expr) Expr { return substLets(e, same) })
	}
}
