package lower

import (
	"math"

	"github.com/nablasd/nablasd/formats"
)

// What a result completed to an input's stored positions allows
// (Options.CompletedOn): the caller adds every stored position of that
// input the kernel leaves out, with a zero value (ad.OnStoredPositions,
// the gradient of a scalar program), so a kernel whose every store lands
// on one of those positions may store zeros at more of them than the
// program builds. Two passes use that freedom, both only when the
// result's levels can hold nothing else (onPositionsOf):
//
//   - ZeroExtend runs a lookup's body also where the key is missing, with
//     the zero value it then reads, when the body's only effect is to
//     store that value into the result: the workspace looked up then
//     needs no presence (DropMarks), SMMM's column sums among them;
//   - FullRows makes the result's dense level 0 full where a loop over
//     all its keys inserts every row that has positions: a row it skips
//     has none, and holds none after the completion either.

// onPositionsOf reports whether every key the result tensor t can hold
// is a stored position of the input whose levels are ls (level i of t
// keyed as mode i of the input): each level of t reuses the input's level
// i (Positions), or is dense over the extent of the input's dense level i.
func onPositionsOf(p *Program, t *Tensor, ls []formats.LevelInfo) bool {
	if t == nil || len(ls) != t.Order() {
		return false
	}
	vars := map[string]*Var{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			vars[pa.Name] = pa.Var
		}
	}
	for i, l := range t.Levels {
		in := ls[i]
		if in.Mode != i {
			return false
		}
		switch l.Storage {
		case Positions:
			if l.Of == nil || l.Of.Idx == nil || l.Of.Idx.Name != in.Idx || (in.Pos != "" && (l.Of.Pos == nil || l.Of.Pos.Name != in.Pos)) {
				return false
			}
		case Dense:
			n := vars[in.Extent]
			if in.Kind != "dense" || n == nil || l.Size == nil || !isRefTo(l.Size, n) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

// completedLevels returns the levels of the input the result is completed
// to, when the result's levels hold only its stored positions; nil else.
func completedLevels(p *Program, opts Options) []formats.LevelInfo {
	if opts.CompletedOn == "" || p.ResultTensor == nil {
		return nil
	}
	f, ok := opts.Formats[opts.CompletedOn]
	if !ok {
		return nil
	}
	ls, err := formats.Levels(f.Format, opts.CompletedOn, f.Order)
	if err != nil || !onPositionsOf(p, p.ResultTensor, ls) {
		return nil
	}
	return ls
}

// ZeroExtend rewrites, in a program whose result is completed to an
// input's stored positions and holds nothing else, a lookup in a
// workspace w (an intermediate of one Dense level of reals) keyed by a
// loop's variable,
//
//	if q := locate(w.level0[0], k); found { B }      // B reads w.val[q]
//
// into a read of the value, zero where the key is missing, and B run for
// every key:
//
//	x := 0.0
//	if q := locate(w.level0[0], k); found { x = w.val[q] }
//	B                                               // x for w.val[q]
//
// when B is zeroSafe: with x zero it stores zeros into the result, at its
// positions, and does nothing else. The result then differs only by
// zeros at positions the completion would add, and the lookup becomes
// DropMarks' zero-defaulted read, so w keeps no presence.
func ZeroExtend(p *Program, opts Options) {
	if completedLevels(p, opts) == nil {
		return
	}
	p.Body = spliceBlocks(p.Body, true, func(y Stmt, loops []*For) (keep, rest []Stmt, ok bool) {
		l, isLocate := y.(*Locate)
		if !isLocate || !extendable(p, l, loops) {
			return nil, nil, false
		}
		v := p.NewVar("x", Real)
		keep = []Stmt{&Let{V: v, X: realConst(0)},
			&Locate{Pos: l.Pos, T: l.T, Level: l.Level, Parent: l.Parent, Key: l.Key,
				Body: &Assign{V: v, Op: Set, X: &ValAt{T: l.T, Pos: &Ref{V: l.Pos}}}}}
		body := substValAt(l.Body, l.T, l.Pos, &Ref{V: v})
		if b, isBlock := body.(*Block); isBlock {
			return keep, b.List, true
		}
		return keep, []Stmt{body}, true
	})
}

// extendable reports whether ZeroExtend may rewrite l: a lookup, by an
// enclosing For loop's variable, in a real workspace of one Dense level,
// whose body is zeroSafe.
func extendable(p *Program, l *Locate, loops []*For) bool {
	t := l.T
	if t.Input || t == p.ResultTensor || t.Order() != 1 || t.Leaf != Real || t.Levels[0].Storage != Dense || l.Level != 0 {
		return false
	}
	k, ok := l.Key.(*Ref)
	if !ok {
		return false
	}
	inLoop := false
	for _, f := range loops {
		inLoop = inLoop || f.V == k.V
	}
	return inLoop && zeroSafe(l.Body, p.ResultTensor, t, l.Pos)
}

// zeroSafe reports whether body, run with w.val[q] zero, only inserts
// into the result r and stores zeros into it: its statements are lets,
// conditions, loops over ranges and input levels, inserts into r and
// stores into r of a value that is +0 with w.val[q] (prop: the value,
// sums of such, products with a positive constant; not a product with
// anything else, which could be infinite: 0 * inf is nan). Nothing in it fails,
// assigns a variable declared outside it, or writes another tensor; q is
// read only as w.val[q]. Keys and loads in body were safe for every
// iteration of the loops around it (the lowering checks what the loops'
// bounds do not promise), so running it for more keys reads nothing
// outside the inputs.
func zeroSafe(body Stmt, r, w *Tensor, q *Var) bool {
	declared := map[*Var]bool{}
	prop := map[*Var]bool{} // variables whose value is zero with w.val[q]
	var isProp func(e Expr) bool
	isProp = func(e Expr) bool {
		switch x := e.(type) {
		case *ValAt:
			return x.T == w && isRefTo(x.Pos, q)
		case *Ref:
			return prop[x.V]
		case *Binary:
			switch x.Op {
			case Add:
				return isProp(x.X) && isProp(x.Y)
			case Mul: // by a positive finite constant: +0 stays +0
				return isProp(x.X) && positiveConst(x.Y) || positiveConst(x.X) && isProp(x.Y)
			}
		}
		return false
	}
	ok := true
	var st func(s Stmt)
	st = func(s Stmt) {
		if !ok || s == nil {
			return
		}
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				st(y)
			}
		case *Let:
			declared[x.V] = true
			if isProp(x.X) {
				prop[x.V] = true
			}
		case *Assign:
			ok = declared[x.V] && !prop[x.V]
		case *If:
			st(x.Then)
			st(x.Else)
		case *For:
			declared[x.V] = true
			st(x.Body)
		case *ForLevel:
			ok = x.T != w
			declared[x.Key] = true
			if x.Pos != nil {
				declared[x.Pos] = true
			}
			st(x.Body)
		case *Search:
			declared[x.Pos] = true
			st(x.Body)
		case *Locate:
			ok = x.T != w
			declared[x.Pos] = true
			st(x.Body)
		case *Insert:
			ok = x.T == r
			declared[x.Pos] = true
		case *Store:
			ok = x.T == r && isProp(x.X)
		default: // Init, Transpose, Fail
			ok = false
		}
	}
	st(body)
	if !ok {
		return false
	}
	// q is read only as w.val[q]: each Ref to q is the position of one
	// (WalkStmtExprs visits a ValAt, then its position)
	refs, vals := 0, 0
	WalkStmtExprs(body, func(e Expr) {
		switch x := e.(type) {
		case *ValAt:
			if x.T == w {
				if !isRefTo(x.Pos, q) {
					ok = false
				}
				vals++
			}
		case *Ref:
			if x.V == q {
				refs++
			}
		}
	})
	return ok && refs == vals
}

// positiveConst reports whether e is a real or int constant above zero
// and finite.
func positiveConst(e Expr) bool {
	c, ok := e.(*Const)
	if !ok {
		return false
	}
	switch c.K {
	case Real:
		return c.F > 0 && !math.IsInf(c.F, 1)
	case Int:
		return c.I > 0
	}
	return false
}

// substValAt returns s with every w.val[q] replaced by e (s is changed in
// place).
func substValAt(s Stmt, w *Tensor, q *Var, e Expr) Stmt {
	mapStmtExprs(s, func(x Expr) Expr {
		return replaceExpr(x, func(y Expr) Expr {
			if v, ok := y.(*ValAt); ok && v.T == w && isRefTo(v.Pos, q) {
				return e
			}
			return nil
		})
	})
	return s
}

// FullRows makes the dense level 0 of a result on an input's positions
// (a Positions level 1 that FullPositions made full) full, in a program
// whose result is completed to that input's stored positions and holds
// nothing else, where one loop at the top of the program inserts every
// row that has positions:
//
//	for k := 0; k < n; k++ {                   // n: level 0's size
//	  ...
//	  if Pos[k] < Pos[k+1] {                   // only: the row is not empty
//	    q := insert(T.level0[0], k)            // the only insert into level 0
//	    ...                                    // fills the row (FullPositions)
//
// A row it skips has no positions, so the level keeps no presence: the
// back ends stop clearing and setting one flag per row, and the result
// holds every stored position of the input, as its completion does.
func FullRows(p *Program, opts Options) {
	t := p.ResultTensor
	if completedLevels(p, opts) == nil || t.Order() != 2 {
		return
	}
	l0, l1 := t.Levels[0], t.Levels[1]
	if l0.Storage != Dense || !l0.Marked() || l0.Size == nil || l1.Storage != Positions || !l1.Full || l1.Of.Pos == nil {
		return
	}
	var i0 *Insert
	n := 0
	WalkStmts(p.Body, func(s Stmt) {
		if x, ok := s.(*Insert); ok && x.T == t && x.Level == 0 {
			i0 = x
			n++
		}
	})
	top, ok := p.Body.(*Block)
	if n != 1 || !ok {
		return
	}
	lets := letsOf(p.Body)
	for _, s := range top.List {
		if f, ok := s.(*For); ok && coversRows(f, i0, t, lets) {
			l0.Full = true
			return
		}
	}
}

// coversRows reports whether the loop f runs over every key of t's dense
// level 0 (from 0 to its size) and inserts each key whose row in t's
// Positions level is not empty: the insert u is reached from f's body
// through blocks and tests that the row is not empty alone.
func coversRows(f *For, u *Insert, t *Tensor, lets map[*Var]Expr) bool {
	l0, pos := t.Levels[0], t.Levels[1].Of.Pos
	if !isConst(f.Lo, 0) || l0.Size == nil || CanonString(f.Hi) != CanonString(l0.Size) ||
		!isConst(u.Parent, 0) || !isRefTo(u.Key, f.V) {
		return false
	}
	deref := func(e Expr) Expr {
		if r, ok := e.(*Ref); ok && lets[r.V] != nil {
			return lets[r.V]
		}
		return e
	}
	rowTest := func(c Expr) bool {
		b, ok := c.(*Binary)
		if !ok || b.Op != Lt {
			return false
		}
		lo, ok1 := deref(b.X).(*Load)
		hi, ok2 := deref(b.Y).(*Load)
		return ok1 && ok2 && lo.A == pos && hi.A == pos && isRefTo(lo.Index, f.V) && IsNext(hi.Index, f.V)
	}
	var reach func(s Stmt) bool
	reach = func(s Stmt) bool {
		switch x := s.(type) {
		case *Block:
			for _, y := range x.List {
				if reach(y) {
					return true
				}
			}
		case *If:
			return x.Else == nil && rowTest(x.Cond) && reach(x.Then)
		}
		return s == u
	}
	return reach(f.Body)
}

// letsOf maps each variable a Let binds in s, and that no Assign changes,
// to its expression.
func letsOf(s Stmt) map[*Var]Expr {
	lets, assigned := map[*Var]Expr{}, map[*Var]bool{}
	WalkStmts(s, func(s Stmt) {
		switch x := s.(type) {
		case *Let:
			lets[x.V] = x.X
		case *Assign:
			assigned[x.V] = true
		}
	})
	for v := range assigned {
		delete(lets, v)
	}
	return lets
}
