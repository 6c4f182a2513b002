package lower

// keyFact is what is known of a key inserted at a level of a tensor.
type keyFact struct {
	level  int
	nonneg bool
	hi     Expr // an exclusive bound made of parameters and constants, nil when unknown
}

// recordKey notes what is known of a key inserted into level lv of t.
func (l *lowerer) recordKey(t *Tensor, lv int, key Expr) {
	l.keys[t] = append(l.keys[t], keyFact{level: lv, nonneg: l.nonnegExpr(key), hi: l.upperBound(key)})
}

// nonnegExpr reports whether an int expression is known to be >= 0.
func (l *lowerer) nonnegExpr(e Expr) bool {
	switch x := e.(type) {
	case *Const:
		return x.K == Int && x.I >= 0
	case *Ref:
		if d, ok := l.letOf[x.V]; ok && !l.nonneg[x.V] && len(l.below[x.V]) == 0 {
			return l.nonnegExpr(d) // t := i + 1
		}
		return l.nonneg[x.V] || len(l.below[x.V]) > 0
	case *Load:
		// a validated format's coordinates and positions
		return x.A.Kind == Int && x.A.Level != nil
	case *Len:
		return true
	case *Binary:
		if c, ok := l.constLower(x); ok && c >= 0 {
			return true // i - 1 in a loop from 1
		}
		return (x.Op == Add || x.Op == Mul) && l.nonnegExpr(x.X) && l.nonnegExpr(x.Y)
	case *Select:
		return l.nonnegExpr(x.Then) && l.nonnegExpr(x.Else)
	}
	return false
}

// constLower is a constant lower bound of an int expression, from the
// loops' constant starts: i - 1 >= 0 for i from 1.
func (l *lowerer) constLower(e Expr) (int, bool) {
	switch x := e.(type) {
	case *Const:
		return x.I, x.K == Int
	case *Ref:
		if c, ok := l.loOf[x.V]; ok {
			return c, true
		}
		if d, ok := l.letOf[x.V]; ok {
			return l.constLower(d)
		}
		if l.nonneg[x.V] {
			return 0, true
		}
	case *Binary:
		a, ok1 := l.constLower(x.X)
		switch x.Op {
		case Add:
			b, ok2 := l.constLower(x.Y)
			return a + b, ok1 && ok2
		case Sub:
			if c, ok := x.Y.(*Const); ok && c.K == Int {
				return a - c.I, ok1
			}
		}
	}
	return 0, false
}

// upperBound is an exclusive bound on an int expression made only of
// parameters and constants (so it can size a tensor before any loop), or
// nil.
func (l *lowerer) upperBound(e Expr) Expr {
	switch x := e.(type) {
	case *Const:
		if x.K == Int {
			return intConst(x.I + 1)
		}
	case *Ref:
		if bs := l.below[x.V]; len(bs) > 0 {
			return &Ref{V: bs[0]}
		}
		if hi, ok := l.hiOf[x.V]; ok {
			return hi
		}
		if d, ok := l.letOf[x.V]; ok {
			return l.upperBound(d) // t := i + 1
		}
		if l.isParam(x.V) {
			return nil
		}
	case *Binary:
		switch x.Op {
		case Add:
			if c, ok := x.Y.(*Const); ok && c.K == Int && c.I >= 0 {
				if b := l.upperBound(x.X); b != nil {
					return &Binary{Op: Add, X: b, Y: intConst(c.I)}
				}
			}
			// a < A and b < B: a + b < A + B - 1 (the keys of a
			// convolution's scatter, i + k)
			if a := l.upperBound(x.X); a != nil {
				if b := l.upperBound(x.Y); b != nil {
					return Canon(&Binary{Op: Sub, X: &Binary{Op: Add, X: a, Y: b}, Y: intConst(1)})
				}
			}
		case Sub:
			// a - b < A where b >= 0
			if l.nonnegExpr(x.Y) {
				return l.upperBound(x.X)
			}
		case Mul:
			// c * a < c * (A - 1) + 1 for a constant c >= 0
			for _, pair := range [][2]Expr{{x.X, x.Y}, {x.Y, x.X}} {
				if c, ok := pair[0].(*Const); ok && c.K == Int && c.I >= 0 {
					if a := l.upperBound(pair[1]); a != nil {
						return Canon(&Binary{Op: Add, X: &Binary{Op: Mul, X: intConst(c.I), Y: &Binary{Op: Sub, X: a, Y: intConst(1)}}, Y: intConst(1)})
					}
				}
			}
		}
	}
	return nil
}

// positionsFor returns the input level whose positions level lv of t can
// reuse, setting each insert's At, or nil. Every insert into the level
// must have as key the coordinate idx[p] read by a loop over one parent's
// segment of a format level whose coordinates are unique (validated
// ascending: LevelInfo.Search), and as parent the position, in t's level
// above, that equals the segment's parent: the key of a dense or sparse
// level 0 (whose child is its key) or the position of a positions level.
// Then (parent, key) and the input position p determine each other, and
// the child is p.
func (l *lowerer) positionsFor(t *Tensor, lv int) *PositionsOf {
	ins := l.inserts[t]
	var of *PositionsOf
	var ats []Expr
	for _, in := range ins {
		if in.Level != lv {
			continue
		}
		j, ok := in.Key.(*Ref)
		if !ok {
			return nil
		}
		ld, ok := l.letOf[j.V].(*Load)
		if !ok || ld.A.Level == nil || !ld.A.Level.Search || ld.A.Level.Idx != ld.A.Name {
			return nil
		}
		p, ok := ld.Index.(*Ref)
		if !ok {
			return nil
		}
		seg, ok := l.segOf[p.V]
		if !ok || seg.idx != ld.A {
			return nil
		}
		q, ok := in.Parent.(*Ref)
		if !ok {
			return nil
		}
		up := l.insertOf[q.V]
		if up == nil || up.T != t || up.Level != lv-1 {
			return nil
		}
		var parentPos Expr
		switch s := t.Levels[lv-1].Storage; {
		case (s == Dense || s == Sparse) && lv-1 == 0:
			parentPos = up.Key
		case s == Positions:
			parentPos = up.At
		default:
			return nil
		}
		if CanonString(parentPos) != CanonString(seg.parent) {
			return nil
		}
		if of == nil {
			of = &PositionsOf{Pos: seg.pos, Idx: seg.idx}
		} else if of.Pos != seg.pos || of.Idx != seg.idx {
			return nil
		}
		ats = append(ats, p)
	}
	if of == nil {
		return nil
	}
	k := 0
	for _, in := range ins {
		if in.Level == lv {
			in.At = ats[k]
			k++
		}
	}
	return of
}

// rangeKeys reports whether every key inserted at level lv of t is
// index arithmetic of range loops' variables and parameters (followed
// through their lets): keys a dense iteration computes, as many as its
// iterations, not coordinates of a sparse input.
func (l *lowerer) rangeKeys(t *Tensor, lv int) bool {
	seen := false
	for _, in := range l.inserts[t] {
		if in.Level != lv {
			continue
		}
		seen = true
		ok := true
		var check func(e Expr, depth int)
		check = func(e Expr, depth int) {
			WalkExpr(e, func(x Expr) {
				switch x := x.(type) {
				case *Ref:
					switch {
					case l.rangeLoop[x.V] || l.isParam(x.V):
					case l.letOf[x.V] != nil && depth < 8:
						check(l.letOf[x.V], depth+1)
					default:
						ok = false
					}
				case *Const, *Binary, *Unary:
				default:
					ok = false
				}
			})
		}
		check(in.Key, 0)
		if !ok {
			return false
		}
	}
	return seen
}

// keyExtent is an extent for level lv of t when every key inserted there
// is known non-negative and bounded by parameters: the largest bound.
func (l *lowerer) keyExtent(t *Tensor, lv int) (Expr, bool) {
	var size Expr
	for _, k := range l.keys[t] {
		if k.level != lv {
			continue
		}
		if !k.nonneg || k.hi == nil {
			return nil, false
		}
		size = maxBound(size, k.hi)
	}
	return size, size != nil
}

// maxBound is the larger of two bounds (a nil one is none): the one
// whose affine form is at least the other's by a constant, else
// max(a, b).
func maxBound(a, b Expr) Expr {
	if a == nil {
		return b
	}
	d := affine(&Binary{Op: Sub, X: a, Y: b})
	constant := true
	for _, t := range d.terms {
		constant = constant && t.coef == 0
	}
	switch {
	case constant && d.c >= 0:
		return a
	case constant:
		return b
	}
	return maxExpr(a, b)
}

// decideStorage chooses the storage of each level of a tensor the kernel
// builds, from what is known of the keys inserted there: a level given an
// extent by the caller (shape, for the result) is dense and full; an outer
// level whose keys are all non-negative is dense (Sparse for a workspace
// refilled in a loop), sized by their bounds when every key has one
// (else it grows); the rest are hashed.
func (l *lowerer) decideStorage(t *Tensor, shape []int) {
	for lv, level := range t.Levels {
		if lv < len(shape) && shape[lv] > 0 && lv == 0 {
			level.Storage, level.Size, level.Full = Dense, intConst(shape[lv]), true
			continue
		}
		if lv < len(shape) && shape[lv] > 0 && t.Levels[lv-1].Storage == Dense && t.Levels[lv-1].Full {
			level.Storage, level.Size, level.Full = Dense, intConst(shape[lv]), true
			continue
		}
		if l.opts.NoDense {
			level.Storage = Hash
			continue
		}
		if lv > 0 {
			level.Storage = Hash
			if of := l.positionsFor(t, lv); of != nil {
				level.Storage, level.Of = Positions, of
			} else if !l.workspace[t] && l.rangeKeys(t, lv) {
				// keys known non-negative and bounded, computed from
				// range loops' variables: a dense level once the
				// diagonal and appended storages have had their say
				// (DensifyLevels: the gradient of a stencil, a matrix
				// built at U(i ± 1)(j ± 1))
				if size, ok := l.keyExtent(t, lv); ok {
					level.denseSize = size
				}
			}
			continue
		}
		nonneg, seen := true, false
		var size Expr
		bounded := true
		for _, k := range l.keys[t] {
			if k.level != lv {
				continue
			}
			seen = true
			nonneg = nonneg && k.nonneg
			if k.hi == nil {
				bounded = false
			} else {
				size = maxBound(size, k.hi)
			}
		}
		if !seen || !nonneg {
			level.Storage = Hash
			continue
		}
		if !bounded {
			size = nil
		}
		level.Storage, level.Size = Dense, size
		if l.workspace[t] {
			level.Storage = Sparse
		}
	}
}
