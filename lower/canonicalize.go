package lower

import (
	"sort"
)

// Canonical forms make a program's spelling irrelevant to what it lowers
// to: integer arithmetic is put in affine normal form (terms sorted, the
// constant last: 1 + i and i + 1 are both i + 1, (i + 1) + 1 is i + 2),
// and the operands of commutative operators are ordered (a * x and x * a
// print, compare and match alike). Reordering the two operands of a
// floating-point + or * does not change its result; nothing is
// reassociated. An addition of a negation is a subtraction (-b + a is
// a - b, bit for bit).

// Canonicalize rewrites every expression of the program in canonical
// form, in place.
func Canonicalize(p *Program) {
	mapStmtExprs(p.Body, Canon)
	for _, t := range p.Tensors {
		for _, lv := range t.Levels {
			if lv.Size != nil {
				lv.Size = Canon(lv.Size)
			}
		}
	}
}

// CanonString is the printed canonical form of an expression: equal
// strings mean equal expressions up to spelling.
func CanonString(e Expr) string { return ExprString(Canon(e)) }

// Canon returns e in canonical form.
func Canon(e Expr) Expr {
	switch x := e.(type) {
	case *Unary:
		c := Canon(x.X)
		if k, ok := c.(*Const); ok {
			switch {
			case x.Op == Neg && k.K == Int:
				return intConst(-k.I)
			case x.Op == Neg && k.K == Real:
				return realConst(-k.F)
			case x.Op == ToReal && k.K == Int:
				return realConst(float64(k.I))
			case x.Op == Not && k.K == Bool:
				return boolConst(k.I == 0)
			}
		}
		return &Unary{Op: x.Op, X: c}
	case *Binary:
		if x.Kind() == Int && (x.Op == Add || x.Op == Sub || x.Op == Mul) {
			return affine(x).expr()
		}
		a, b := Canon(x.X), Canon(x.Y)
		if x.Op == FloorDiv {
			ka, okA := a.(*Const)
			kb, okB := b.(*Const)
			switch {
			case okA && okB && kb.I > 0:
				return intConst(int(floorDiv(int64(ka.I), int64(kb.I))))
			case okB && kb.I == 1:
				return a
			}
			return &Binary{Op: FloorDiv, X: a, Y: b}
		}
		// a + (-b) and (-b) + a are a - b: IEEE subtraction is the
		// addition of the negation, signed zeros and NaNs alike
		if x.Op == Add {
			if n, ok := b.(*Unary); ok && n.Op == Neg {
				return &Binary{Op: Sub, X: a, Y: n.X}
			}
			if n, ok := a.(*Unary); ok && n.Op == Neg {
				return &Binary{Op: Sub, X: b, Y: n.X}
			}
		}
		if commutative(x.Op) && ExprString(b) < ExprString(a) {
			a, b = b, a
		}
		return &Binary{Op: x.Op, X: a, Y: b}
	}
	return rebuild(e, Canon)
}

func commutative(op BinaryOp) bool {
	switch op {
	case Add, Mul, Eq, Ne, And, Or:
		return true
	}
	return false
}

// affineForm is an int expression as a sum of terms with integer
// coefficients plus a constant.
type affineForm struct {
	terms map[string]*term
	c     int
}

type term struct {
	x    Expr
	coef int
}

func affine(e Expr) *affineForm {
	f := &affineForm{terms: map[string]*term{}}
	f.add(e, 1)
	return f
}

func (f *affineForm) add(e Expr, scale int) {
	switch x := e.(type) {
	case *Const:
		f.c += scale * x.I
		return
	case *Unary:
		if x.Op == Neg {
			f.add(x.X, -scale)
			return
		}
	case *Binary:
		switch x.Op {
		case Add:
			f.add(x.X, scale)
			f.add(x.Y, scale)
			return
		case Sub:
			f.add(x.X, scale)
			f.add(x.Y, -scale)
			return
		case Mul:
			a, b := affine(x.X), affine(x.Y)
			switch {
			case len(a.terms) == 0:
				f.addForm(b, scale*a.c)
				return
			case len(b.terms) == 0:
				f.addForm(a, scale*b.c)
				return
			}
			// a product of two non-constant forms is one opaque term
			p := &Binary{Op: Mul, X: a.expr(), Y: b.expr()}
			if ExprString(p.Y) < ExprString(p.X) {
				p.X, p.Y = p.Y, p.X
			}
			f.addTerm(p, scale)
			return
		}
	}
	f.addTerm(Canon(e), scale)
}

func (f *affineForm) addForm(g *affineForm, scale int) {
	f.c += scale * g.c
	for _, t := range g.terms {
		f.addTerm(t.x, scale*t.coef)
	}
}

func (f *affineForm) addTerm(x Expr, coef int) {
	k := ExprString(x)
	if t, ok := f.terms[k]; ok {
		t.coef += coef
		return
	}
	f.terms[k] = &term{x: x, coef: coef}
}

// expr rebuilds the form: terms in the order of their printed form,
// positive ones first, then the constant.
func (f *affineForm) expr() Expr {
	keys := make([]string, 0, len(f.terms))
	for k, t := range f.terms {
		if t.coef != 0 {
			keys = append(keys, k)
		}
	}
	sort.Slice(keys, func(i, j int) bool {
		pi, pj := f.terms[keys[i]].coef > 0, f.terms[keys[j]].coef > 0
		if pi != pj {
			return pi
		}
		return keys[i] < keys[j]
	})
	var out Expr
	for _, k := range keys {
		t := f.terms[k]
		x := t.x
		c := t.coef
		if c < 0 {
			c = -c
		}
		if c != 1 {
			x = &Binary{Op: Mul, X: x, Y: intConst(c)}
		}
		switch {
		case out == nil && t.coef < 0:
			out = &Unary{Op: Neg, X: x}
		case out == nil:
			out = x
		case t.coef < 0:
			out = &Binary{Op: Sub, X: out, Y: x}
		default:
			out = &Binary{Op: Add, X: out, Y: x}
		}
	}
	switch {
	case out == nil:
		return intConst(f.c)
	case f.c > 0:
		return &Binary{Op: Add, X: out, Y: intConst(f.c)}
	case f.c < 0:
		return &Binary{Op: Sub, X: out, Y: intConst(-f.c)}
	}
	return out
}
