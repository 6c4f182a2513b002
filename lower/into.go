package lower

import (
	"github.com/nablasd/nablasd/sdql"
)

// into lowers a dictionary-valued expression in destination-passing
// style: its entries, times scale (nil: 1), are added into dst. Nothing
// is built on the way: a sum's body adds into dst from inside its loops,
// a scaled dictionary scales what it adds, a let-bound dictionary is a
// view unless it must be built (bindDict).
func (l *lowerer) into(e sdql.Expr, env *scope, dst target, scale Expr) {
	switch x := e.(type) {
	case *sdql.DictExpr:
		for _, en := range x.Entries {
			key := l.scalar(stripUnique(en.Key), env)
			l.store(dst, key, l.valueOf(en.Val, env), scale)
		}
	case *sdql.SumExpr:
		l.iterate(x.Src, env, l.piecewise(x.Body, x.Val.Name), func(key Expr, val binding) {
			l.into(x.Body, env.bind(x.Key.Name, scalarB{key}).bind(x.Val.Name, val), dst, scale)
		})
	case *sdql.BinaryExpr:
		switch x.Op {
		case sdql.ADD:
			if l.doubled(x) {
				l.into(x.X, env, dst, l.hoist(mul(scale, realConst(2)), "c"))
				return
			}
			l.into(x.X, env, dst, scale)
			l.into(x.Y, env, dst, scale)
			return
		case sdql.SUB:
			l.into(x.X, env, dst, scale)
			l.into(x.Y, env, dst, neg(scale))
			return
		case sdql.MUL, sdql.QUO:
			if c, d, ok := l.scaling(x, env); ok {
				l.into(d, env, dst, l.hoist(mul(scale, c), "c"))
				return
			}
			if x.Op == sdql.MUL {
				l.outer(x, env, dst, scale)
				return
			}
		}
		l.failf(e, "cannot lower %s", sdql.PrintFlat(e))
	case *sdql.UnaryExpr:
		l.into(x.X, env, dst, neg(scale))
	case *sdql.IfExpr:
		cond := l.condition(x.Cond, env)
		then := l.nested(func() { l.into(x.Then, l.assume(env, cond), dst, scale) })
		var els Stmt
		if x.Else != nil {
			els = l.nested(func() { l.into(x.Else, env, dst, scale) })
		}
		l.emitIf(cond, then, els)
	case *sdql.LetExpr:
		l.into(x.Body, l.let(x, env), dst, scale)
	case *sdql.ZeroExpr:
	case *sdql.OneHotExpr:
		l.oneHot(x, env, dst, scale)
	case *sdql.Ident, *sdql.LookupExpr:
		l.intoD(l.dvalOf(e, env), dst, scale)
	default:
		l.failf(e, "cannot lower %s as a dictionary", sdql.PrintFlat(e))
	}
}

// store adds the entry key -> val (times scale) into dst: the key's
// position is inserted, then a scalar is added at it or a dictionary
// added below it.
func (l *lowerer) store(dst target, key Expr, val binding, scale Expr) {
	pos := l.insert(dst, key)
	if dst.level == len(dst.t.Levels)-1 {
		sb, ok := val.(scalarB)
		if !ok {
			panic("internal error: a dictionary stored at a leaf")
		}
		x := mul(scale, sb.x)
		if dst.t.Leaf == Real {
			x = l.real(x)
		}
		l.emit(&Store{T: dst.t, Pos: pos, Op: AddTo, X: x})
		return
	}
	db, ok := val.(dictB)
	if !ok {
		panic("internal error: a scalar stored above the leaves")
	}
	l.intoD(db.d, target{t: dst.t, level: dst.level + 1, parent: pos}, scale)
}

// insert emits the insertion of key under dst and returns its position.
func (l *lowerer) insert(dst target, key Expr) Expr {
	pos := l.newVar("q", Int)
	l.nonneg[pos] = true
	l.recordKey(dst.t, dst.level, key)
	ins := &Insert{Pos: pos, T: dst.t, Level: dst.level, Parent: dst.parent, Key: key}
	l.inserts[dst.t] = append(l.inserts[dst.t], ins)
	l.insertOf[pos] = ins
	l.emit(ins)
	return &Ref{V: pos}
}

// intoD adds a symbolic dictionary into dst.
func (l *lowerer) intoD(d dval, dst target, scale Expr) {
	switch d := d.(type) {
	case emptyD:
	case viewD:
		l.into(d.e, d.env, dst, scale)
	case scaledD:
		l.intoD(d.d, dst, l.hoist(mul(scale, d.c), "c"))
	case lookupD:
		l.resolve(d, func(sub dval) { l.intoD(sub, dst, scale) })
	default:
		l.iterateD(d, true, func(key Expr, val binding) { l.store(dst, key, val, scale) })
	}
}

// outer lowers the outer product x * y of two dictionaries: every entry
// k -> v of x adds v * y under k.
func (l *lowerer) outer(e *sdql.BinaryExpr, env *scope, dst target, scale Expr) {
	// every entry of x reads y whole: x's entries piecewise only when
	// reading y costs nothing per entry (a literal), else x is built
	// first if its keys may repeat
	_, lit := e.Y.(*sdql.DictExpr)
	l.iterate(e.X, env, lit && !hasSum(e.Y), func(key Expr, val binding) {
		pos := l.insert(dst, key)
		sub := target{t: dst.t, level: dst.level + 1, parent: pos}
		switch v := val.(type) {
		case scalarB:
			c := l.hoist(mul(scale, l.real(v.x)), "c")
			l.into(e.Y, env, sub, c)
		case dictB:
			// (x(k) * y) under k: the outer product one level down
			l.outerD(v.d, e.Y, env, sub, scale)
		}
	})
}

// outerD adds d * y (d a dictionary, y an SDQL dictionary) into dst.
func (l *lowerer) outerD(d dval, y sdql.Expr, env *scope, dst target, scale Expr) {
	l.iterateD(d, true, func(key Expr, val binding) {
		pos := l.insert(dst, key)
		sub := target{t: dst.t, level: dst.level + 1, parent: pos}
		switch v := val.(type) {
		case scalarB:
			l.into(y, env, sub, l.hoist(mul(scale, l.real(v.x)), "c"))
		case dictB:
			l.outerD(v.d, y, env, sub, scale)
		}
	})
}

// oneHot lowers onehot[tensor n] x (Fig. 7): for every stored position
// (i1, ..., in) of x, 1 at (i1, ..., in, i1, ..., in). Keys are inserted
// at the positions only: an empty row of x gives no key.
func (l *lowerer) oneHot(e *sdql.OneHotExpr, env *scope, dst target, scale Expr) {
	n := sdql.Order(e.T)
	one := scale
	if one == nil {
		one = realConst(1)
	}
	var walk func(d dval, keys []Expr)
	walk = func(d dval, keys []Expr) {
		l.iterateD(d, true, func(key Expr, val binding) {
			ks := append(append([]Expr(nil), keys...), key)
			if len(ks) < n {
				walk(val.(dictB).d, ks)
				return
			}
			// the position, then the diagonal: the same keys again, then 1
			cur := dst
			path := append(append([]Expr(nil), ks...), ks...)
			for i, k := range path {
				p := l.insert(cur, k)
				if i == len(path)-1 {
					l.emit(&Store{T: cur.t, Pos: p, Op: AddTo, X: one})
				} else {
					cur = target{t: cur.t, level: cur.level + 1, parent: p}
				}
			}
		})
	}
	walk(l.dvalOf(e.X, env), nil)
}

// materialize builds a dictionary expression into a new tensor, here,
// and returns it: for a source that cannot be iterated in place or a
// lookup that cannot locate its key in the expression's own source.
func (l *lowerer) materialize(e sdql.Expr, env *scope, base string) dval {
	t := l.newTensor(base, l.typeOf(e))
	l.initTensor(t)
	l.into(e, env, target{t: t, level: 0, parent: intConst(0)}, nil)
	return tensorD{t: t, level: 0, parent: intConst(0)}
}

// initTensor emits the tensor's initialization here, noting whether it
// is refilled in a loop (a workspace).
func (l *lowerer) initTensor(t *Tensor) {
	if l.loopDepth > 0 {
		l.workspace[t] = true
	}
	l.emit(&Init{T: t})
}

// bindDict binds a let's dictionary: a view (lowered where it is used)
// when reading it where it is used costs no more than reading it built:
// it is used once outside any loop of the let's body, or it is cheap to
// read in place (a loop over a range or an array segment building
// singletons of values without reductions); otherwise it is built here.
func (l *lowerer) bindDict(name string, v sdql.Expr, let *sdql.LetExpr, i int, env *scope) dval {
	if !l.opts.NoViews {
		if cheapView(v) {
			return l.dvalOf(v, env)
		}
		uses, inLoop := usesOf(let, i, name)
		if uses <= 1 && !inLoop {
			return l.dvalOf(v, env)
		}
	}
	return l.materialize(v, env, name)
}
