package lower

// directLocate is the position of a locate's child when the key is
// certainly found (AffineLocates): a dense level that is full or keeps
// no presence (every key below its extent reads as present), the key
// known to lie in 0..Size-1; the child is then parent·Size + key (a
// dense level only grows at level 0, where the parent is 0).
func (an *affineAnalysis) directLocate(x *Locate) (Expr, bool) {
	if !an.locates || x.T.Input {
		return nil, false
	}
	lv := x.T.Levels[x.Level]
	if lv.Storage != Dense || !lv.Full && !lv.Unmarked || lv.Size == nil {
		return nil, false
	}
	size, ok := an.linOf(lv.Size)
	if !ok || !an.stable(size) {
		return nil, false
	}
	for _, t := range size.ts {
		if _, isLen := an.atoms.exprs[t.a].(*Len); !isLen {
			if r, isRef := an.atoms.exprs[t.a].(*Ref); !isRef || !an.params[r.V] {
				return nil, false // sized by what a loop computes
			}
		}
	}
	key, ok := an.linOf(x.Key)
	if !ok || !an.implied(key) || !an.implied(size.plus(key, -1).plus(constLin(1), -1)) {
		return nil, false
	}
	if x.Level == 0 {
		if !isConst(x.Parent, 0) {
			return nil, false
		}
		return x.Key, true
	}
	return Canon(&Binary{Op: Add, X: &Binary{Op: Mul, X: x.Parent, Y: lv.Size}, Y: x.Key}), true
}

// AffineLocates turns the locates whose key is certainly found into the
// child's position (directLocate), once the storages and their marks are
// final (after DropMarks): a gradient's lookup of its tape, ybar(i) over
// i < n with ybar dense(n), is a read.
//
// It continues AffineGuards' analysis: what the partitions made known of
// their steady states (every test held there) is true of those loops
// still, the passes between having kept each variable's value.
func AffineLocates(p *Program) {
	an := p.affine
	if an == nil {
		an = newAffineAnalysis(p)
	} else {
		an.relearn(p)
	}
	an.locates = true
	p.Body = an.stmt(p.Body, false)
	an.locates = false
}

// relearn reads the variables' definitions again from the program as
// the passes left it: the facts and atoms stay.
func (an *affineAnalysis) relearn(p *Program) {
	an.p = p
	an.mutable = map[*Var]bool{}
	an.intDef = map[*Var]Expr{}
	an.boolDef = map[*Var]Expr{}
	an.lets = map[*Var]int{}
	an.live = map[*Var]bool{}
	an.scoped = nil
	an.epoch++
	an.learn(p.Body)
}
