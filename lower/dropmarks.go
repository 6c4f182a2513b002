package lower

import "math"

// DropMarks makes a dense workspace keep no presence (Level.Unmarked)
// where the program cannot observe it: a tensor of one Dense level, not
// the result, that no loop iterates, and whose every lookup reads its
// value into a variable that is zero otherwise,
//
//	x := 0.0
//	if q := locate(t.level0[0], k); found { x = t.val[q] }
//
// A key never inserted then reads its value, which init cleared to zero,
// exactly as its absence read zero: each insert stops marking a presence
// array (a second random write per scattered entry, as Aᵀ r's workspace in
// a gradient has) and each lookup stops testing one. The level still
// grows as before. Run after the passes that may add loops over levels.
func DropMarks(p *Program) {
	for _, t := range p.Tensors {
		if t.Input || t == p.ResultTensor || t.Order() != 1 || t.Leaf == Bool {
			continue
		}
		if l := t.Levels[0]; l.Storage == Dense && !l.Full && !l.Unmarked && marksUnobserved(p.Body, t) {
			l.Unmarked = true
		}
	}
}

// marksUnobserved reports whether no statement of s iterates t and every
// lookup in t is a zero-defaulted read.
func marksUnobserved(s Stmt, t *Tensor) bool {
	ok := true
	var walk func(s Stmt)
	walk = func(s Stmt) {
		if !ok || s == nil {
			return
		}
		switch x := s.(type) {
		case *Block:
			for i, y := range x.List {
				if l, isLoc := y.(*Locate); isLoc && l.T == t {
					if i == 0 || !zeroDefaulted(x.List[i-1], l) {
						ok = false
						return
					}
					walk(l.Body)
					continue
				}
				walk(y)
			}
		case *ForLevel:
			if x.T == t {
				ok = false
				return
			}
			walk(x.Body)
		case *Locate:
			if x.T == t {
				ok = false // a lookup whose default is not known zero
				return
			}
			walk(x.Body)
		case *If:
			walk(x.Then)
			walk(x.Else)
		case *For:
			walk(x.Body)
		case *Search:
			walk(x.Body)
		}
	}
	walk(s)
	return ok
}

// zeroDefaulted reports whether l's body only sets a variable to the
// value found, and prev, the statement before l, sets it to zero.
func zeroDefaulted(prev Stmt, l *Locate) bool {
	body := l.Body
	if b, ok := body.(*Block); ok && len(b.List) == 1 {
		body = b.List[0]
	}
	a, ok := body.(*Assign)
	if !ok || a.Op != Set {
		return false
	}
	v, ok := a.X.(*ValAt)
	if !ok || v.T != l.T || !isRefTo(v.Pos, l.Pos) {
		return false
	}
	let, ok := prev.(*Let)
	if !ok || let.V != a.V {
		return false
	}
	c, ok := let.X.(*Const)
	return ok && isZero(c) && !math.Signbit(c.F) // -0 would read as +0
}
