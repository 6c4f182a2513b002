package lower

import "math"

// FactorConstants takes a constant factor out of a sum: an accumulator v
// declared zero (v := 0.0) to which a following statement containing a
// loop only adds products with the same constant factor k, v += k * R
// (k the product's leftmost factor, or its right operand), and which
// nothing else reads or writes in that statement, adds R instead, and is
// multiplied by k once after the statement: Σ k·R = k·Σ R. The
// normalizer distributes a program's scalar factor into its sums (½ Σ
// A(i,j) (x(i) − x(j))² becomes Σ ½ A(i,j) ...), which costs both back
// ends a multiplication an iteration, and the columnar one a pass. k is
// a finite, non-zero real constant, so k · 0 is 0 where the loop adds
// nothing; the result differs from the distributed sum's by rounding
// only, and is the program's own order of operations.
func FactorConstants(p *Program) {
	WalkStmts(p.Body, func(s Stmt) {
		b, ok := s.(*Block)
		if !ok {
			return
		}
		for i := 0; i < len(b.List); i++ {
			l, ok := b.List[i].(*Let)
			if !ok || l.V.Kind != Real || !isZero(l.X) {
				continue
			}
			j := i + 1
			for j < len(b.List) && !touches(b.List[j], l.V) {
				j++
			}
			if j == len(b.List) {
				continue
			}
			k, ok := commonFactor(b.List[j], l.V)
			if !ok {
				continue
			}
			WalkStmts(b.List[j], func(x Stmt) {
				if a, ok := x.(*Assign); ok && a.V == l.V {
					a.X = dropFactor(a.X, k)
				}
			})
			scale := &Assign{V: l.V, Op: Set, X: &Binary{Op: Mul, X: &Const{K: Real, F: k}, Y: &Ref{V: l.V}}}
			b.List = append(b.List[:j+1], append([]Stmt{scale}, b.List[j+1:]...)...)
			i = j + 1
		}
	})
}

// commonFactor returns the constant k when s contains a loop, every
// assignment of v in s is v += k * R (or R * k) and s reads v nowhere.
func commonFactor(s Stmt, v *Var) (float64, bool) {
	loop, ok, found := false, true, false
	k := 0.0
	WalkStmts(s, func(x Stmt) {
		switch x := x.(type) {
		case *For, *ForLevel:
			loop = true
		case *Let:
			ok = ok && x.V != v
		case *Assign:
			if x.V != v {
				return
			}
			c, has := constFactor(x.X)
			switch {
			case x.Op != AddTo || !has:
				ok = false
			case !found:
				k, found = c, true
			case c != k:
				ok = false
			}
		}
	})
	return k, ok && found && loop && !readsIn(s, v)
}

// constFactor returns the constant factor of a product that dropFactor
// removes: the leftmost factor of its chain of products, or its right
// operand; a finite, non-zero real.
func constFactor(e Expr) (float64, bool) {
	b, ok := e.(*Binary)
	if !ok || b.Op != Mul || b.Kind() != Real {
		return 0, false
	}
	c, ok := leftmost(b).(*Const)
	if !ok {
		c, ok = b.Y.(*Const)
	}
	if !ok || c.K != Real || c.F == 0 || math.IsInf(c.F, 0) || math.IsNaN(c.F) {
		return 0, false
	}
	return c.F, true
}

// leftmost is the first factor of a chain of products.
func leftmost(b *Binary) Expr {
	for {
		x, ok := b.X.(*Binary)
		if !ok || x.Op != Mul || x.Kind() != Real {
			return b.X
		}
		b = x
	}
}

// dropFactor removes from the product e the constant k constFactor
// found.
func dropFactor(e Expr, k float64) Expr {
	b := e.(*Binary)
	if c, ok := leftmost(b).(*Const); ok && c.K == Real && c.F == k {
		if c, ok := b.X.(*Const); ok && c.F == k {
			return b.Y
		}
		return &Binary{Op: Mul, X: dropFactor(b.X, k), Y: b.Y}
	}
	return b.X // b.Y is the constant
}

// touches reports whether s reads or sets v.
func touches(s Stmt, v *Var) bool {
	declared := false
	WalkStmts(s, func(x Stmt) {
		if l, ok := x.(*Let); ok && l.V == v {
			declared = true
		}
	})
	return declared || readsIn(s, v) || assignsIn([]Stmt{s}, v) > 0
}

// readsIn reports whether an expression of s reads v.
func readsIn(s Stmt, v *Var) bool {
	found := false
	WalkStmtExprs(s, func(e Expr) { found = found || isRefTo(e, v) })
	return found
}
