package lower

import (
	"github.com/nablasd/nablasd/sdql"
)

// lookupScalar lowers a lookup with a scalar value: a load, a located
// tensor entry, or the key located in a view's source; 0 when the key is
// not there.
func (l *lowerer) lookupScalar(e *sdql.LookupExpr, env *scope) Expr {
	key := l.scalar(e.Key, env)
	return l.lookupScalarD(l.dvalOf(e.X, env), key)
}

// lookupScalarD is d(key) for a dictionary d of scalars.
func (l *lowerer) lookupScalarD(d dval, key Expr) Expr {
	switch d := d.(type) {
	case emptyD:
		return realConst(0)
	case arrayD:
		return l.load(d.a, key)
	case scaledD:
		return mul(d.c, l.lookupScalarD(d.d, key))
	case tensorD:
		k := d.t.Leaf
		v := l.newVar("x", k)
		l.emit(&Let{V: v, X: zeroOf(k)})
		pos := l.newVar("q", Int)
		l.nonneg[pos] = true
		l.emit(&Locate{Pos: pos, T: d.t, Level: d.level, Parent: d.parent, Key: key,
			Body: &Block{List: []Stmt{&Assign{V: v, Op: Set, X: &ValAt{T: d.t, Pos: &Ref{V: pos}}}}}})
		return &Ref{V: v}
	case lookupD:
		return l.guarded(func(set func(Expr)) {
			l.resolve(d, func(sub dval) { set(l.lookupScalarD(sub, key)) })
		})
	case viewD:
		return l.lookupView(d.e, d.env, key)
	}
	panic("internal error: lookupScalarD")
}

// guarded lowers a value computed under conditions: f emits its code and
// calls set with the value wherever it is found (possibly in several
// branches, or not at all: then the value is 0). A value found with no
// statement before it is returned as is.
func (l *lowerer) guarded(f func(set func(Expr))) Expr {
	var found []Expr
	var v *Var
	var first Stmt
	body := l.nested(func() {
		f(func(x Expr) {
			found = append(found, x)
			if v == nil {
				v = l.newVar("x", x.Kind())
			}
			a := &Assign{V: v, Op: AddTo, X: x}
			if first == nil {
				first = a
			}
			l.emit(a)
		})
	})
	if len(found) == 0 {
		return realConst(0)
	}
	// a single value reached without any condition or statement
	if len(found) == 1 && len(body.List) == 1 && body.List[0] == first {
		return found[0]
	}
	// a single value reached under conditions only: a lazy select, which
	// the executors evaluate without splitting their loops
	if len(found) == 1 {
		if x, ok := selectOf(body.List, first); ok {
			return x
		}
	}
	l.emit(&Let{V: v, X: zeroOf(v.Kind)})
	l.out.List = append(l.out.List, body.List...)
	return &Ref{V: v}
}

// lookupView is e(key) for an SDQL dictionary expression e, without
// building e when its source can locate the key.
func (l *lowerer) lookupView(e sdql.Expr, env *scope, key Expr) Expr {
	switch x := e.(type) {
	case *sdql.Ident, *sdql.LookupExpr, *sdql.ZeroExpr:
		return l.lookupScalarD(l.dvalOf(e, env), key)
	case *sdql.LetExpr:
		return l.lookupView(x.Body, l.let(x, env), key)
	case *sdql.DictExpr:
		var sum Expr
		for _, en := range x.Entries {
			k := l.scalar(stripUnique(en.Key), env)
			term := l.guarded(func(set func(Expr)) {
				then := l.nested(func() { set(l.scalar(en.Val, env)) })
				l.emitIf(&Binary{Op: Eq, X: k, Y: key}, then, nil)
			})
			sum = addExpr(sum, term)
		}
		if sum == nil {
			return realConst(0)
		}
		return sum
	case *sdql.BinaryExpr:
		switch x.Op {
		case sdql.ADD, sdql.SUB:
			a := l.lookupView(x.X, env, key)
			b := l.lookupView(x.Y, env, key)
			if x.Op == sdql.SUB {
				return &Binary{Op: Sub, X: l.real(a), Y: l.real(b)}
			}
			return addExpr(a, b)
		case sdql.MUL, sdql.QUO:
			if c, d, ok := l.scaling(x, env); ok {
				return mul(c, l.lookupView(d, env, key))
			}
		}
	case *sdql.UnaryExpr:
		if x.Op == sdql.SUB {
			return &Unary{Op: Neg, X: l.lookupView(x.X, env, key)}
		}
	case *sdql.IfExpr:
		return l.guarded(func(set func(Expr)) {
			cond := l.condition(x.Cond, env)
			then := l.nested(func() { set(l.lookupView(x.Then, l.assume(env, cond), key)) })
			var els Stmt
			if x.Else != nil {
				els = l.nested(func() { set(l.lookupView(x.Else, env, key)) })
			}
			l.emitIf(cond, then, els)
		})
	case *sdql.SumExpr:
		if k, v, ok := singleton(x.Body); ok {
			if r, ok := l.locateIn(x, stripUnique(k), env, key, func(inner *scope) Expr { return l.scalar(v, inner) }); ok {
				return r
			}
		}
	}
	return l.lookupScalarD(l.materialize(e, env, "t"), key)
}

func addExpr(a, b Expr) Expr {
	if a == nil {
		return b
	}
	if b == nil {
		return a
	}
	if a.Kind() != b.Kind() {
		if a.Kind() == Int {
			a = &Unary{Op: ToReal, X: a}
		}
		if b.Kind() == Int {
			b = &Unary{Op: ToReal, X: b}
		}
	}
	if a.Kind() == Bool {
		return &Binary{Op: Or, X: a, Y: b}
	}
	return &Binary{Op: Add, X: a, Y: b}
}

// locateIn finds key among the keys of sum(<a, b> in S) { k -> ... }
// without iterating S, when k is a or (over a range or a unique sorted
// array segment) b and S can locate it: it returns the sum of value(env
// with a and b bound) over the matches (at most one), 0 when none.
func (l *lowerer) locateIn(s *sdql.SumExpr, k sdql.Expr, env *scope, key Expr, value func(*scope) Expr) (Expr, bool) {
	id, ok := k.(*sdql.Ident)
	if !ok || id.Name == "_" {
		return nil, false
	}
	byKey := id.Name == s.Key.Name
	byVal := id.Name == s.Val.Name
	if !byKey && !byVal {
		return nil, false
	}
	bind := func(kb Expr, vb binding) *scope {
		return env.bind(s.Key.Name, scalarB{kb}).bind(s.Val.Name, vb)
	}
	src, senv := l.arrayView(s.Src, env)
	switch src := src.(type) {
	case *sdql.RangeExpr:
		lo, hi := l.scalar(src.Lo, senv), l.scalar(src.Hi, senv)
		return l.guarded(func(set func(Expr)) {
			k := l.keyVar(key)
			in := inRangeCond(k, lo, hi)
			then := l.nested(func() {
				l.assume(env, in)
				set(value(bind(k, scalarB{k})))
			})
			l.emitIf(in, then, nil)
		}), true
	case *sdql.SliceExpr:
		ab := l.arrayOf(src.X, senv).(arrayB)
		lo, hi := l.hoist(l.scalar(src.Lo, senv), "lo"), l.hoist(l.scalar(src.Hi, senv), "hi")
		if byKey {
			return l.guarded(func(set func(Expr)) {
				l.checkSlice(src, ab.a, lo, hi)
				then := l.nested(func() {
					p := l.hoist(key, "p")
					set(value(bind(p, scalarB{l.load(ab.a, p)})))
				})
				l.emitIf(inRangeCond(key, lo, hi), then, nil)
			}), true
		}
		if li := ab.a.Level; li != nil && li.Search && li.Idx == ab.a.Name {
			return l.guarded(func(set func(Expr)) {
				l.checkSlice(src, ab.a, lo, hi)
				p := l.newVar("p", Int)
				l.nonneg[p] = true
				l.inRange[p] = append(l.inRange[p], ab.a)
				body := l.nested(func() { set(value(bind(&Ref{V: p}, scalarB{key}))) })
				l.emit(&Search{Pos: p, A: ab.a, Lo: lo, Hi: hi, Key: key, Body: body})
			}), true
		}
	case *sdql.Ident, *sdql.LookupExpr:
		if !byKey {
			return nil, false
		}
		d := l.dvalOf(src, env)
		return l.guarded(func(set func(Expr)) {
			l.locateD(d, key, func(val binding) { set(value(bind(key, val))) })
		}), true
	}
	return nil, false
}

// inRangeCond is lo <= key && key < hi.
func inRangeCond(key, lo, hi Expr) Expr {
	return &Binary{Op: And, X: &Binary{Op: Le, X: lo, Y: key}, Y: &Binary{Op: Lt, X: key, Y: hi}}
}

// locateD finds key in a symbolic dictionary and calls f with its value
// where it is found.
func (l *lowerer) locateD(d dval, key Expr, f func(val binding)) {
	switch d := d.(type) {
	case emptyD:
	case arrayD:
		then := l.nested(func() { f(scalarB{&Load{A: d.a, Index: key}}) })
		l.emitIf(inRangeCond(key, intConst(0), &Len{A: d.a}), then, nil)
	case scaledD:
		c := l.hoist(d.c, "c")
		l.locateD(d.d, key, func(v binding) { f(scaleB(v, c)) })
	case tensorD:
		pos := l.newVar("q", Int)
		l.nonneg[pos] = true
		body := l.nested(func() { f(l.childOf(d.t, d.level, &Ref{V: pos})) })
		l.emit(&Locate{Pos: pos, T: d.t, Level: d.level, Parent: d.parent, Key: key, Body: body})
	case lookupD:
		l.resolve(d, func(sub dval) { l.locateD(sub, key, f) })
	case viewD:
		l.locateView(d.e, d.env, key, f)
	}
}

// resolve finds the entry of a lookupD and calls f with it, a dictionary,
// where the key is found (not at all when it is missing: its value is {}).
func (l *lowerer) resolve(d lookupD, f func(sub dval)) {
	switch x := d.d.(type) {
	case emptyD:
	case tensorD:
		pos := l.newVar("q", Int)
		l.nonneg[pos] = true
		body := l.nested(func() { f(tensorD{t: x.t, level: x.level + 1, parent: &Ref{V: pos}}) })
		l.emit(&Locate{Pos: pos, T: x.t, Level: x.level, Parent: x.parent, Key: d.key, Body: body})
	case scaledD:
		c := l.hoist(x.c, "c")
		l.resolve(lookupD{x.d, d.key}, func(sub dval) { f(scaledD{sub, c}) })
	case lookupD:
		l.resolve(x, func(sub dval) { l.resolve(lookupD{sub, d.key}, f) })
	case viewD:
		l.locateView(x.e, x.env, d.key, func(v binding) { f(v.(dictB).d) })
	default:
		panic("internal error: resolve")
	}
}

// locateView finds key in the SDQL dictionary expression e and calls f
// with the value there, only where the key is present (its value may be
// 0 or {}; a missing key is not a zero entry): a range check, a binary
// search or a tensor lookup in e's source when e builds its keys from
// one, else e built (materialize) and looked up.
func (l *lowerer) locateView(e sdql.Expr, env *scope, key Expr, f func(val binding)) {
	switch x := e.(type) {
	case *sdql.Ident, *sdql.LookupExpr, *sdql.ZeroExpr:
		l.locateD(l.dvalOf(e, env), key, f)
		return
	case *sdql.LetExpr:
		l.locateView(x.Body, l.let(x, env), key, f)
		return
	case *sdql.IfExpr:
		cond := l.condition(x.Cond, env)
		then := l.nested(func() { l.locateView(x.Then, l.assume(env, cond), key, f) })
		var els Stmt
		if x.Else != nil {
			els = l.nested(func() { l.locateView(x.Else, env, key, f) })
		}
		l.emitIf(cond, then, els)
		return
	case *sdql.BinaryExpr:
		if x.Op == sdql.MUL || x.Op == sdql.QUO {
			if c, d, ok := l.scaling(x, env); ok {
				l.locateView(d, env, key, func(v binding) { f(scaleB(v, c)) })
				return
			}
		}
	case *sdql.UnaryExpr:
		if x.Op == sdql.SUB {
			l.locateView(x.X, env, key, func(v binding) { f(scaleB(v, realConst(-1))) })
			return
		}
	case *sdql.DictExpr:
		if len(x.Entries) == 1 {
			k := l.scalar(stripUnique(x.Entries[0].Key), env)
			then := l.nested(func() { f(l.valueOf(x.Entries[0].Val, env)) })
			l.emitIf(&Binary{Op: Eq, X: k, Y: key}, then, nil)
			return
		}
	case *sdql.SumExpr:
		if k, v, ok := singleton(x.Body); ok {
			if l.locateInDict(x, stripUnique(k), env, key, func(inner *scope) { f(l.valueOf(v, inner)) }) {
				return
			}
		}
	}
	l.locateD(l.materialize(e, env, "t"), key, f)
}

// locateInDict is locateIn for a sum whose values are dictionaries: f
// runs where the key is found, with the sum's names bound.
func (l *lowerer) locateInDict(s *sdql.SumExpr, k sdql.Expr, env *scope, key Expr, f func(*scope)) bool {
	id, ok := k.(*sdql.Ident)
	if !ok || id.Name == "_" {
		return false
	}
	byKey := id.Name == s.Key.Name
	byVal := id.Name == s.Val.Name
	if !byKey && !byVal {
		return false
	}
	bind := func(kb Expr, vb binding) *scope {
		return env.bind(s.Key.Name, scalarB{kb}).bind(s.Val.Name, vb)
	}
	src, senv := l.arrayView(s.Src, env)
	switch src := src.(type) {
	case *sdql.RangeExpr:
		lo, hi := l.scalar(src.Lo, senv), l.scalar(src.Hi, senv)
		k := l.keyVar(key)
		in := inRangeCond(k, lo, hi)
		then := l.nested(func() {
			l.assume(env, in)
			f(bind(k, scalarB{k}))
		})
		l.emitIf(in, then, nil)
		return true
	case *sdql.SliceExpr:
		ab := l.arrayOf(src.X, senv).(arrayB)
		lo, hi := l.hoist(l.scalar(src.Lo, senv), "lo"), l.hoist(l.scalar(src.Hi, senv), "hi")
		if byKey {
			l.checkSlice(src, ab.a, lo, hi)
			then := l.nested(func() {
				p := l.hoist(key, "p")
				f(bind(p, scalarB{l.load(ab.a, p)}))
			})
			l.emitIf(inRangeCond(key, lo, hi), then, nil)
			return true
		}
		if li := ab.a.Level; li != nil && li.Search && li.Idx == ab.a.Name {
			l.checkSlice(src, ab.a, lo, hi)
			p := l.newVar("p", Int)
			l.nonneg[p] = true
			l.inRange[p] = append(l.inRange[p], ab.a)
			body := l.nested(func() { f(bind(&Ref{V: p}, scalarB{key})) })
			l.emit(&Search{Pos: p, A: ab.a, Lo: lo, Hi: hi, Key: key, Body: body})
			return true
		}
	case *sdql.Ident, *sdql.LookupExpr:
		if !byKey {
			return false
		}
		l.locateD(l.dvalOf(src, env), key, func(val binding) { f(bind(key, val)) })
		return true
	}
	return false
}

// selectOf turns statements that only test conditions on the way to one
// accumulation, the first statement a guarded value emits (if c1 { if c2
// { v += x } }), into the lazy select(c1 && c2, x, 0): equal, since v
// starts at 0 and x is evaluated only where the conditions hold. An inner
// condition joins the outer one by && only when it reads no array or
// tensor (so evaluating it where the outer one fails is harmless);
// otherwise the selects nest.
func selectOf(list []Stmt, first Stmt) (Expr, bool) {
	if len(list) != 1 {
		return nil, false
	}
	switch s := list[0].(type) {
	case *Assign:
		if s != first {
			return nil, false
		}
		return s.X, true
	case *Block:
		return selectOf(s.List, first)
	case *If:
		if s.Else != nil {
			return nil, false
		}
		then, ok := s.Then.(*Block)
		if !ok {
			return nil, false
		}
		x, ok := selectOf(then.List, first)
		if !ok {
			return nil, false
		}
		zero := zeroOf(x.Kind())
		if in, ok := x.(*Select); ok && isZero(in.Else) && !ReadsMemory(in.Cond) {
			return &Select{Cond: &Binary{Op: And, X: s.Cond, Y: in.Cond}, Then: in.Then, Else: zero}, true
		}
		return &Select{Cond: s.Cond, Then: x, Else: zero}, true
	}
	return nil, false
}

// isZero reports whether e is the constant 0 (or false).
func isZero(e Expr) bool {
	c, ok := e.(*Const)
	return ok && c.I == 0 && c.F == 0
}

// ReadsMemory reports whether e loads from an array or a tensor (a read
// that may fall past its end, or see a write).
func ReadsMemory(e Expr) bool {
	reads := false
	WalkExpr(e, func(x Expr) {
		switch x.(type) {
		case *Load, *ValAt:
			reads = true
		}
	})
	return reads
}
