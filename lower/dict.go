package lower

import (
	"github.com/nablasd/nablasd/sdql"
)

// dval is a dictionary while lowering: symbolic until something needs it
// built. A sum iterates it (iterateD), a lookup locates a key in it
// (lookupScalarD, lookupD), a destination receives its entries (intoD).
type dval interface{ isDval() }

type (
	// tensorD is the sub-dictionary of a tensor at position parent of
	// the level above level (level 0: the whole tensor, parent 0).
	tensorD struct {
		t      *Tensor
		level  int
		parent Expr
	}
	// viewD is an SDQL expression, lowered where it is used: a view.
	viewD struct {
		e   sdql.Expr
		env *scope
	}
	// scaledD is c * d.
	scaledD struct {
		d dval
		c Expr
	}
	// lookupD is d(key): the entry of d at key, or {} when key is not
	// there; it is resolved (the key located) where it is used.
	lookupD struct {
		d   dval
		key Expr
	}
	// arrayD is a physical array as a dictionary: its indices to its
	// elements.
	arrayD struct{ a *Array }
	// emptyD is {}.
	emptyD struct{}
)

func (tensorD) isDval() {}
func (viewD) isDval()   {}
func (scaledD) isDval() {}
func (lookupD) isDval() {}
func (arrayD) isDval()  {}
func (emptyD) isDval()  {}

// target is a destination: the entries a dictionary adds go under
// position parent of the level above level of t.
type target struct {
	t      *Tensor
	level  int
	parent Expr
}

// mul is a * b, a nil factor standing for 1.
func mul(a, b Expr) Expr {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	case isConst(a, 1):
		return b
	case isConst(b, 1):
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
	return &Binary{Op: Mul, X: a, Y: b}
}

// neg is -s, s nil standing for 1.
func neg(s Expr) Expr {
	if s == nil {
		return realConst(-1)
	}
	return &Unary{Op: Neg, X: s}
}

// hoist binds a non-trivial expression to a variable, so that a loop that
// reads it does not compute it again in every iteration.
func (l *lowerer) hoist(x Expr, base string) Expr {
	switch x.(type) {
	case *Const, *Ref, nil:
		return x
	}
	v := l.newVar(base, x.Kind())
	l.emit(&Let{V: v, X: x})
	l.letOf[v] = x
	if l.nonnegExpr(x) {
		l.nonneg[v] = true
	}
	return &Ref{V: v}
}

// keyVar binds a key read from an array (a coordinate) to a variable, so
// that its uses share it and what is known of it (a guard's bounds).
func (l *lowerer) keyVar(k Expr) Expr {
	if _, ok := k.(*Load); ok {
		v := l.newVar("j", Int)
		l.emit(&Let{V: v, X: k})
		l.letOf[v] = k
		if l.nonnegExpr(k) {
			l.nonneg[v] = true
		}
		l.keyBelow(v, k.(*Load).A)
		return &Ref{V: v}
	}
	return k
}

// scaleB is a binding scaled by c.
func scaleB(b binding, c Expr) binding {
	switch b := b.(type) {
	case scalarB:
		return scalarB{mul(b.x, c)}
	case dictB:
		return dictB{scaledD{b.d, c}}
	}
	return b
}

// valueOf is the binding of a sum's value or a singleton's value: a
// scalar lowered now (bound to a variable unless trivial), or a view.
func (l *lowerer) valueOf(v sdql.Expr, env *scope) binding {
	switch l.vkindOf(v) {
	case kDict:
		return dictB{l.dvalOf(v, env)}
	case kArray:
		return l.arrayOf(v, env)
	}
	return scalarB{l.valueExpr(l.scalar(v, env))}
}

// valueExpr is a sum's or a singleton's scalar value as it is used: a
// constant, a variable or a load where it is written, anything else
// bound to a variable first. A negation is written where it is used, its
// operand bound (reverse mode's adjoint of a subtraction's right side,
// { j -> -t }): a store or an accumulator then adds -t, which every back
// end does as a subtraction, rather than a let and a pass for the
// negation.
func (l *lowerer) valueExpr(x Expr) Expr {
	switch y := x.(type) {
	case *Const, *Ref, *Load, *ValAt:
		return x
	case *Unary:
		if y.Op == Neg {
			return &Unary{Op: Neg, X: l.valueExpr(y.X)}
		}
	}
	return l.hoist(x, "v")
}

// dvalOf is the dictionary an expression denotes, symbolically.
func (l *lowerer) dvalOf(e sdql.Expr, env *scope) dval {
	switch x := e.(type) {
	case *sdql.Ident:
		b, ok := env.lookup(x.Name)
		if !ok {
			l.failf(e, "undefined: %s", x.Name)
		}
		switch b := b.(type) {
		case dictB:
			return b.d
		case arrayB:
			return arrayD{b.a}
		}
		l.failf(e, "%s is not a dictionary", x.Name)
	case *sdql.ZeroExpr:
		return emptyD{}
	case *sdql.DictExpr:
		if len(x.Entries) == 0 {
			return emptyD{}
		}
	case *sdql.LookupExpr:
		return lookupD{l.dvalOf(x.X, env), l.scalar(x.Key, env)}
	}
	return viewD{e, env}
}

// arrayView resolves a name let-bound to a range or a sub-array to that
// expression and the scope it was bound in, so that a source written
// through a let is lowered as the same source written in place: let t =
// (1:3) in sum(<i, _> in t) ... is sum(<i, _> in (1:3)) .... Any other
// expression is returned as it is.
func (l *lowerer) arrayView(e sdql.Expr, env *scope) (sdql.Expr, *scope) {
	for {
		id, ok := e.(*sdql.Ident)
		if !ok {
			return e, env
		}
		b, _ := env.lookup(id.Name)
		d, ok := b.(dictB)
		if !ok {
			return e, env
		}
		v, ok := d.d.(viewD)
		if !ok || l.vkindOf(v.e) != kArray {
			return e, env
		}
		e, env = v.e, v.env
	}
}

func (l *lowerer) arrayOf(e sdql.Expr, env *scope) binding {
	if id, ok := e.(*sdql.Ident); ok {
		if b, ok := env.lookup(id.Name); ok {
			if ab, ok := b.(arrayB); ok {
				return ab
			}
		}
	}
	l.failf(e, "%s is not an array", sdql.PrintFlat(e))
	return nil
}

// ---- iteration

// iterate emits the loops that visit the entries of a sum's source and
// calls f with each key and value inside them. lin says the consumer is
// additive in the value (linearIn): then a source whose keys may repeat
// (a sum of dictionaries, a union) can be visited piece by piece,
// duplicates and all, instead of being built first.
func (l *lowerer) iterate(src sdql.Expr, env *scope, lin bool, f func(key Expr, val binding)) {
	switch s := src.(type) {
	case *sdql.RangeExpr:
		lo, hi := l.scalar(s.Lo, env), l.scalar(s.Hi, env)
		i := l.newVar("i", Int)
		l.loopVar(i, lo, hi)
		l.rangeLoop[i] = true
		body := l.loopBody(func() { f(&Ref{V: i}, scalarB{&Ref{V: i}}) })
		l.emit(&For{V: i, Lo: lo, Hi: hi, Body: body})
		return
	case *sdql.SliceExpr:
		ab := l.arrayOf(s.X, env).(arrayB)
		lo, hi := l.hoist(l.scalar(s.Lo, env), "lo"), l.hoist(l.scalar(s.Hi, env), "hi")
		l.checkSlice(s, ab.a, lo, hi)
		p := l.newVar("p", Int)
		l.loopVar(p, lo, hi)
		l.inRange[p] = append(l.inRange[p], ab.a)
		if pos, q := l.segmentOf(ab.a, lo, hi); q != nil {
			l.segOf[p] = segLoop{idx: ab.a, pos: pos, parent: q}
		}
		body := l.loopBody(func() {
			val := l.load(ab.a, &Ref{V: p})
			if ab.a.Kind == Int {
				val = l.keyVar(val) // a coordinate: one variable for its uses and guards
			}
			f(&Ref{V: p}, scalarB{val})
		})
		l.emit(&For{V: p, Lo: lo, Hi: hi, Body: body})
		return
	case *sdql.LetExpr:
		l.iterate(s.Body, l.let(s, env), lin, f)
		return
	case *sdql.IfExpr:
		cond := l.condition(s.Cond, env)
		then := l.nested(func() { l.iterate(s.Then, l.assume(env, cond), lin, f) })
		var els Stmt
		if s.Else != nil {
			els = l.nested(func() { l.iterate(s.Else, env, lin, f) })
		}
		l.emitIf(cond, then, els)
		return
	case *sdql.SumExpr:
		// a sum of singletons: its loops, each entry handed on (fusion);
		// keys may repeat unless unique, so only an additive consumer
		// takes them piecewise
		if k, v, ok := singleton(s.Body); ok && (lin || l.uniqueKey(s, k, env)) {
			l.iterate(s.Src, env, lin && l.piecewise(v, s.Val.Name), func(key Expr, val binding) {
				inner := env.bind(s.Key.Name, scalarB{key}).bind(s.Val.Name, val)
				f(l.keyVar(l.scalar(stripUnique(k), inner)), l.valueOf(v, inner))
			})
			return
		}
		if lin {
			// every body's entries handed on: the consumer adds them up
			// as the sum would; the source itself visited piecewise only
			// where the body is additive in its value
			l.iterate(s.Src, env, l.piecewise(s.Body, s.Val.Name), func(key Expr, val binding) {
				inner := env.bind(s.Key.Name, scalarB{key}).bind(s.Val.Name, val)
				l.iterate(s.Body, inner, true, f)
			})
			return
		}
	case *sdql.BinaryExpr:
		if lin && l.doubled(s) {
			// d + d: one pass, each value doubled
			l.iterate(s.X, env, true, func(k Expr, v binding) { f(k, scaleB(v, realConst(2))) })
			return
		}
		if !lin && (s.Op == sdql.ADD || s.Op == sdql.SUB) {
			if n1, ok1 := l.denseRange(s.X, env); ok1 {
				if n2, ok2 := l.denseRange(s.Y, env); ok2 {
					l.coiterate(s, env, n1, n2, f)
					return
				}
			}
		}
		if lin && (s.Op == sdql.ADD || s.Op == sdql.SUB) {
			l.iterate(s.X, env, true, f)
			if s.Op == sdql.SUB {
				l.iterate(s.Y, env, true, func(k Expr, v binding) { f(k, scaleB(v, realConst(-1))) })
			} else {
				l.iterate(s.Y, env, true, f)
			}
			return
		}
		if s.Op == sdql.MUL || s.Op == sdql.QUO {
			if c, d, ok := l.scaling(s, env); ok {
				l.iterate(d, env, lin, func(k Expr, v binding) { f(k, scaleB(v, c)) })
				return
			}
		}
		if s.Op == sdql.MUL && l.outerOfScalars(s) {
			// an outer product x * y, y cheap to read in place: every
			// entry k -> a of x is k -> a * y, y scaled as a view
			_, lit := s.Y.(*sdql.DictExpr)
			l.iterate(s.X, env, lin && lit, func(k Expr, v binding) {
				a := v.(scalarB)
				f(k, dictB{scaledD{l.dvalOf(s.Y, env), l.real(a.x)}})
			})
			return
		}
	case *sdql.UnaryExpr:
		if s.Op == sdql.SUB {
			l.iterate(s.X, env, lin, func(k Expr, v binding) { f(k, scaleB(v, realConst(-1))) })
			return
		}
	case *sdql.DictExpr:
		if lin || len(s.Entries) == 1 || distinctConstKeys(s) {
			for _, en := range s.Entries {
				f(l.scalar(stripUnique(en.Key), env), l.valueOf(en.Val, env))
			}
			return
		}
	case *sdql.Ident, *sdql.LookupExpr, *sdql.ZeroExpr:
		l.iterateD(l.dvalOf(src, env), lin, f)
		return
	}
	l.iterateD(l.materialize(src, env, "t"), lin, f)
}

// iterateD iterates a symbolic dictionary.
func (l *lowerer) iterateD(d dval, lin bool, f func(key Expr, val binding)) {
	switch d := d.(type) {
	case emptyD:
	case viewD:
		l.iterate(d.e, d.env, lin, f)
	case scaledD:
		c := l.hoist(d.c, "c")
		l.iterateD(d.d, lin, func(k Expr, v binding) { f(k, scaleB(v, c)) })
	case arrayD:
		p := l.newVar("p", Int)
		l.loopVar(p, intConst(0), &Len{A: d.a})
		l.inRange[p] = append(l.inRange[p], d.a)
		body := l.loopBody(func() { f(&Ref{V: p}, scalarB{&Load{A: d.a, Index: &Ref{V: p}}}) })
		l.emit(&For{V: p, Lo: intConst(0), Hi: &Len{A: d.a}, Body: body})
	case tensorD:
		key, pos := l.newVar("k", Int), l.newVar("q", Int)
		l.nonneg[pos] = true
		if d.t.Levels[d.level].Storage != Hash {
			l.nonneg[key] = true
		}
		body := l.loopBody(func() { f(&Ref{V: key}, l.childOf(d.t, d.level, &Ref{V: pos})) })
		l.emit(&ForLevel{T: d.t, Level: d.level, Parent: d.parent, Key: key, Pos: pos, Body: body})
	case lookupD:
		l.resolve(d, func(sub dval) { l.iterateD(sub, lin, f) })
	}
}

// childOf is the value at position pos of level lv of t: a leaf or the
// sub-dictionary below.
func (l *lowerer) childOf(t *Tensor, lv int, pos Expr) binding {
	if lv == len(t.Levels)-1 {
		return scalarB{&ValAt{T: t, Pos: pos}}
	}
	return dictB{tensorD{t: t, level: lv + 1, parent: pos}}
}

// scaling matches c * d, d * c and d / c with c a scalar and d a
// dictionary; c is lowered (and hoisted) now.
func (l *lowerer) scaling(e *sdql.BinaryExpr, env *scope) (Expr, sdql.Expr, bool) {
	c, d, ok := l.scalingOf(e)
	if !ok {
		return nil, nil, false
	}
	x := l.real(l.scalar(c, env))
	if e.Op == sdql.QUO {
		x = &Binary{Op: Div, X: realConst(1), Y: x}
	}
	return l.hoist(x, "c"), d, true
}

// scalingOf is scaling without lowering the factor: the dictionary
// operand of c * d, d * c or d / c.
func (l *lowerer) scalingOf(e *sdql.BinaryExpr) (sdql.Expr, sdql.Expr, bool) {
	xd, yd := l.vkindOf(e.X) == kDict, l.vkindOf(e.Y) == kDict
	switch {
	case e.Op == sdql.MUL && !xd && yd:
		return e.X, e.Y, true
	case e.Op == sdql.MUL && xd && !yd, e.Op == sdql.QUO && xd && !yd:
		return e.Y, e.X, true
	}
	return nil, nil, false
}

// sameExpr reports whether two expressions are written the same (and so,
// the language being pure, denote the same value).
func sameExpr(a, b sdql.Expr) bool { return sdql.PrintFlat(a) == sdql.PrintFlat(b) }

// doubled reports whether e is d + d over real values, which is d scaled
// by 2 (over booleans + is "or" and d + d is d; integers keep their kind).
func (l *lowerer) doubled(e *sdql.BinaryExpr) bool {
	if e.Op != sdql.ADD || !sameExpr(e.X, e.Y) {
		return false
	}
	t := l.typeOf(e)
	for {
		d, ok := t.(*sdql.DictType)
		if !ok {
			break
		}
		t = d.Val
	}
	return t == sdql.RealType
}

// outerOfScalars reports whether e is an outer product x * y of a
// dictionary of scalars x and a dictionary y that reading in place costs
// no more than reading built (cheapView).
func (l *lowerer) outerOfScalars(e *sdql.BinaryExpr) bool {
	xt, ok := l.typeOf(e.X).(*sdql.DictType)
	if !ok || kindOf(xt.Val) == kDict || l.vkindOf(e.Y) != kDict {
		return false
	}
	return cheapView(e.Y)
}

// singleton matches a body { K -> V } of one entry.
func singleton(e sdql.Expr) (sdql.Expr, sdql.Expr, bool) {
	d, ok := e.(*sdql.DictExpr)
	if !ok || len(d.Entries) != 1 {
		return nil, nil, false
	}
	return d.Entries[0].Key, d.Entries[0].Val, true
}

func stripUnique(k sdql.Expr) sdql.Expr {
	if u, ok := k.(*sdql.UniqueExpr); ok {
		return u.X
	}
	return k
}

// uniqueKey reports whether the key k of the singleton body of s is
// distinct in every iteration of s: marked unique(...), the sum's own key
// over a source with unique keys (a range, an array's indices, a tensor),
// a range's value, or the coordinate read from one parent's segment of a
// format level whose coordinates are unique and validated ascending.
func (l *lowerer) uniqueKey(s *sdql.SumExpr, k sdql.Expr, env *scope) bool {
	if _, ok := k.(*sdql.UniqueExpr); ok {
		return true
	}
	id, ok := k.(*sdql.Ident)
	if !ok {
		return false
	}
	if id.Name == s.Key.Name {
		return true // the keys of any dictionary are distinct
	}
	src, senv := l.arrayView(s.Src, env)
	if _, isRange := src.(*sdql.RangeExpr); isRange && id.Name == s.Val.Name {
		return true // a range's values are its keys
	}
	if sl, ok := src.(*sdql.SliceExpr); ok && id.Name == s.Val.Name {
		return l.uniqueSegment(sl, senv)
	}
	return false
}

// uniqueSegment reports whether a slice is idx(pos(e):pos(e + 1)) of a
// format level whose coordinates are unique within a parent and validated
// strictly ascending before a run (LevelInfo.Search): its values are
// distinct. e must be index arithmetic (lowering it emits nothing).
func (l *lowerer) uniqueSegment(sl *sdql.SliceExpr, env *scope) bool {
	id, ok := sl.X.(*sdql.Ident)
	if !ok {
		return false
	}
	b, ok := env.lookup(id.Name)
	ab, isArr := b.(arrayB)
	if !ok || !isArr || ab.a.Level == nil || !ab.a.Level.Search || ab.a.Level.Idx != ab.a.Name {
		return false
	}
	lo, ok1 := sl.Lo.(*sdql.LookupExpr)
	hi, ok2 := sl.Hi.(*sdql.LookupExpr)
	if !ok1 || !ok2 || !indexArith(lo.Key) || !indexArith(hi.Key) {
		return false
	}
	for _, x := range []sdql.Expr{lo.X, hi.X} {
		pid, ok := x.(*sdql.Ident)
		if !ok {
			return false
		}
		pb, ok := env.lookup(pid.Name)
		pa, isArr := pb.(arrayB)
		if !ok || !isArr || pa.a.Name != ab.a.Level.Pos {
			return false
		}
	}
	q := l.scalar(lo.Key, env)
	if CanonString(l.scalar(hi.Key, env)) != CanonString(&Binary{Op: Add, X: q, Y: intConst(1)}) {
		return false
	}
	l.ordered[ab.a] = true
	return true
}

// indexArith reports whether e is integer arithmetic on names and
// literals.
func indexArith(e sdql.Expr) bool {
	switch x := e.(type) {
	case *sdql.Ident, *sdql.IntLit:
		return true
	case *sdql.BinaryExpr:
		return (x.Op == sdql.ADD || x.Op == sdql.SUB || x.Op == sdql.MUL) && indexArith(x.X) && indexArith(x.Y)
	}
	return false
}

// distinctConstKeys reports whether a dictionary literal's keys are
// distinct integer literals.
func distinctConstKeys(d *sdql.DictExpr) bool {
	seen := map[int]bool{}
	for _, en := range d.Entries {
		c, ok := stripUnique(en.Key).(*sdql.IntLit)
		if !ok || seen[c.Value] {
			return false
		}
		seen[c.Value] = true
	}
	return true
}

// emitIf emits an If, dropping empty branches; a condition the facts
// decide (decide: a key of a level below an extent the shape check made
// equal to the range it is tested against) is not tested.
func (l *lowerer) emitIf(cond Expr, then *Block, els Stmt) {
	cond = l.decide(cond)
	if b, ok := els.(*Block); ok && len(b.List) == 0 {
		els = nil
	}
	if c, ok := cond.(*Const); ok {
		if c.I != 0 {
			l.out.List = append(l.out.List, then.List...)
		} else if els != nil {
			l.emit(els)
		}
		return
	}
	if len(then.List) == 0 && els == nil {
		return
	}
	if len(then.List) == 0 {
		l.emit(&If{Cond: &Unary{Op: Not, X: cond}, Then: els})
		return
	}
	l.emit(&If{Cond: cond, Then: then, Else: els})
}

// denseRange reports whether e is a dictionary of reals whose keys are
// exactly 0..n-1, each present once, and whose values can be read at a
// key in place (lookupView): a sum over a range from 0 of singletons
// keyed by the range's variable (a dense vector's entries, a CSR
// matrix's rows reduced), such a dictionary negated, scaled or let-bound
// as a view, or a sum or difference of two such.
func (l *lowerer) denseRange(e sdql.Expr, env *scope) (Expr, bool) {
	if l.opts.NoViews {
		return nil, false
	}
	t, ok := l.typeOf(e).(*sdql.DictType)
	if !ok || t.Val != sdql.RealType {
		return nil, false
	}
	switch x := e.(type) {
	case *sdql.Ident:
		// a let-bound view: the expression it stands for
		if b, ok := env.lookup(x.Name); ok {
			if d, ok := b.(dictB); ok {
				if v, ok := d.d.(viewD); ok {
					return l.denseRange(v.e, v.env)
				}
			}
		}
		return nil, false
	case *sdql.SumExpr:
		src, senv := l.arrayView(x.Src, env)
		rg, ok := src.(*sdql.RangeExpr)
		if !ok {
			return nil, false
		}
		k, _, ok := singleton(x.Body)
		if !ok {
			return nil, false
		}
		id, ok := stripUnique(k).(*sdql.Ident)
		if !ok || id.Name == "_" || id.Name != x.Key.Name && id.Name != x.Val.Name {
			return nil, false
		}
		if hasSum(rg.Lo) || hasSum(rg.Hi) || !isConst(l.scalar(rg.Lo, senv), 0) {
			return nil, false
		}
		return l.scalar(rg.Hi, senv), true
	case *sdql.UnaryExpr:
		if x.Op == sdql.SUB {
			return l.denseRange(x.X, env)
		}
		return nil, false
	case *sdql.BinaryExpr:
		if x.Op == sdql.MUL || x.Op == sdql.QUO {
			if _, d, ok := l.scalingOf(x); ok {
				return l.denseRange(d, env)
			}
			return nil, false
		}
		if x.Op != sdql.ADD && x.Op != sdql.SUB {
			return nil, false
		}
		n1, ok1 := l.denseRange(x.X, env)
		n2, ok2 := l.denseRange(x.Y, env)
		if !ok1 || !ok2 {
			return nil, false
		}
		return maxExpr(n1, n2), true
	}
	return nil, false
}

// maxExpr is max(a, b) of two ints.
func maxExpr(a, b Expr) Expr {
	if CanonString(a) == CanonString(b) {
		return a
	}
	return &Select{Cond: &Binary{Op: Lt, X: a, Y: b}, Then: b, Else: a}
}

// coiterate visits the entries of x ± y, both dense ranges of n1 and n2
// keys (denseRange): one loop over the keys of either, each side's value
// read in place, instead of building the sum first. Every key in
// 0..max(n1, n2) is a key of x or of y, so every key visited is one of
// the result's, once.
func (l *lowerer) coiterate(s *sdql.BinaryExpr, env *scope, n1, n2 Expr, f func(key Expr, val binding)) {
	hi := l.hoist(maxExpr(n1, n2), "n")
	i := l.newVar("i", Int)
	l.loopVar(i, intConst(0), hi)
	body := l.loopBody(func() {
		a := l.real(l.lookupView(s.X, env, &Ref{V: i}))
		b := l.real(l.lookupView(s.Y, env, &Ref{V: i}))
		op := Add
		if s.Op == sdql.SUB {
			op = Sub
		}
		f(&Ref{V: i}, scalarB{&Binary{Op: op, X: a, Y: b}})
	})
	l.emit(&For{V: i, Lo: intConst(0), Hi: hi, Body: body})
}
