package lower

import (
	"math"

	"github.com/nablasd/nablasd/formats"
)

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
//
// A loop over the keys of such a workspace,
//
//	for k, q := range w.level0[0] { B }             // B reads w.val[q]
//
// becomes, on the same condition on B and when w's size n reads only
// parameters, a loop over every key below n that reads each as above:
//
//	for k := 0; k < n; k++ { x := 0.0; if q := locate(w.level0[0], k); found { x = w.val[q] }; B }
//
// (the order of the keys is the same, ascending), so that a gradient's
// rows are all written (WriteOnce: SMMM w.r.t. a dense B in reverse mode
// loops over A's column sums). Keys of w past n, which only inputs of
// mismatched shapes give (the shape check refuses them), are then left
// out, where B would have written them outside the completed input's
// positions.
func ZeroExtend(p *Program, opts Options) {
	ls := completedLevels(p, opts)
	if ls == nil {
		return
	}
	params := map[*Var]bool{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			params[pa.Var] = true
		}
	}
	p.Body = spliceBlocks(p.Body, true, func(y Stmt, loops []*For) (keep, rest []Stmt, ok bool) {
		if fl, isLoop := y.(*ForLevel); isLoop && extendableLoop(p, fl, params, ls) {
			k := p.NewVar(fl.Key.Name, Int)
			return nil, []Stmt{&For{V: k, Lo: intConst(0), Hi: fl.T.Levels[0].Size,
				Body: zeroRead(p, fl.T, fl.Pos, &Ref{V: k}, substVar(fl.Body, fl.Key, &Ref{V: k}))}}, true
		}
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

// isExtentRef reports whether n is the extent parameter of level i of the
// input the result is completed to.
func isExtentRef(n Expr, ls []formats.LevelInfo, i int) bool {
	r, ok := n.(*Ref)
	return ok && i < len(ls) && ls[i].Extent != "" && r.V.Name == ls[i].Extent
}

// zeroRead is body (reading w's value at q) run after a read of w's value
// at key into a new variable, zero where the key is missing: the
// variable stands for w.val[q] in body. A nil q: body reads no value.
func zeroRead(p *Program, w *Tensor, q *Var, key Expr, body Stmt) Stmt {
	if q == nil {
		return body
	}
	v := p.NewVar("x", Real)
	out := []Stmt{&Let{V: v, X: realConst(0)},
		&Locate{Pos: q, T: w, Level: 0, Parent: intConst(0), Key: key,
			Body: &Assign{V: v, Op: Set, X: &ValAt{T: w, Pos: &Ref{V: q}}}}}
	body = substValAt(body, w, q, &Ref{V: v})
	if b, isBlock := body.(*Block); isBlock {
		return &Block{List: append(out, b.List...)}
	}
	return &Block{List: append(out, body)}
}

// substVar returns s with every read of v replaced by e (s is changed in
// place).
func substVar(s Stmt, v *Var, e Expr) Stmt {
	mapStmtExprs(s, func(x Expr) Expr {
		return replaceExpr(x, func(y Expr) Expr {
			if isRefTo(y, v) {
				return e
			}
			return nil
		})
	})
	return s
}

// extendableLoop reports whether ZeroExtend may rewrite fl: a loop over
// the keys of a real workspace of one Dense level sized by parameters,
// whose body is zeroSafe.
func extendableLoop(p *Program, fl *ForLevel, params map[*Var]bool, ls []formats.LevelInfo) bool {
	t := fl.T
	if t.Input || t == p.ResultTensor || t.Order() != 1 || t.Leaf != Real || t.Levels[0].Storage != Dense || fl.Level != 0 ||
		!isConst(fl.Parent, 0) || t.Levels[0].Size == nil || !onlyParams(t.Levels[0].Size, params) {
		return false
	}
	if !keysWithinResult(fl.Body, p.ResultTensor, fl.Key, t.Levels[0].Size, ls) {
		return false
	}
	q := fl.Pos
	if q == nil {
		q = &Var{Name: "unused", Kind: Int, ID: -1}
	}
	return zeroSafe(fl.Body, p.ResultTensor, t, q)
}

// keysWithinResult reports whether the keys 0..n-1 the rewritten loop
// runs over stay within the result's extent where body inserts into the
// result at the loop's key k: n is that level's size, or the completed
// input's extent there (the result's size is then the caller's shape,
// which is that input's), or both are constants and n the smaller. A workspace wider than the result (a
// lookup past an input's extent, with the shape check off or a constant
// key it cannot see) would otherwise write zeros past the result's last
// key, which a full dense result refuses. An insert at another key is
// left to zeroSafe.
func keysWithinResult(body Stmt, r *Tensor, k *Var, n Expr, ls []formats.LevelInfo) bool {
	ok := true
	WalkStmts(body, func(s Stmt) {
		in, isInsert := s.(*Insert)
		if !isInsert || in.T != r {
			return
		}
		if key, isRef := in.Key.(*Ref); !isRef || key.V != k {
			return
		}
		m := r.Levels[in.Level].Size
		cn, nConst := n.(*Const)
		cm, mConst := m.(*Const)
		switch {
		case m == nil:
			ok = false
		case ExprString(m) == ExprString(n):
		case isExtentRef(n, ls, in.Level):
		case nConst && mConst && cn.K == Int && cm.K == Int && cn.I <= cm.I:
		default:
			ok = false
		}
	})
	return ok
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
