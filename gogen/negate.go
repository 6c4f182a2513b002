package gogen

import "github.com/nablasd/nablasd/lower"

// Subtracted values. Forward and reverse mode both write a term's
// contribution to the other end of an edge as a negation added in,
// out[j] += -t (a difference's adjoint scattered by column), or
// v := -t; out[j] += v when a
// program binds the negation itself, where a hand-written loop writes
// out[j] -= t. Go keeps a negation added in as written: a sign mask
// loaded and XORed on every iteration (10% of such a scatter over a CSR
// matrix's rows, measured against the same loop with -=). So an add of a
// negation subtracts its operand (addOp), and a real variable set once,
// by a let of a negation, and read only as the whole value added into a
// real (a store or an assignment that adds) is bound to the negation's
// operand, and each of those adds subtracts it. In IEEE arithmetic
// a - t is a + (-t) exactly, so the result is the interpreter's to the
// bit.

// findNegated records the variables bound to their negation's operand
// (g.negated), once analyze has found what is read.
func (g *gen) findNegated() {
	neg := map[*lower.Var]bool{}
	sets := map[*lower.Var]int{}
	added := map[*lower.Var]int{}
	addedRef := func(e lower.Expr) {
		if r, ok := e.(*lower.Ref); ok {
			added[r.V]++
		}
	}
	lower.WalkStmts(g.p.Body, func(s lower.Stmt) {
		switch s := s.(type) {
		case *lower.Let:
			sets[s.V]++
			if u, ok := s.X.(*lower.Unary); ok && u.Op == lower.Neg && s.V.Kind == lower.Real {
				neg[s.V] = true
			}
		case *lower.Assign:
			sets[s.V]++
			if g.live(s) && s.Op == lower.AddTo && s.V.Kind == lower.Real {
				addedRef(s.X)
			}
		case *lower.Store:
			if s.Op == lower.AddTo && s.T.Leaf == lower.Real {
				addedRef(s.X)
			}
		case *lower.For:
			sets[s.V]++
		case *lower.ForLevel:
			sets[s.Key]++
			sets[s.Pos]++
		case *lower.Search:
			sets[s.Pos]++
		case *lower.Insert:
			sets[s.Pos]++
		case *lower.Locate:
			sets[s.Pos]++
		}
	})
	reads := g.refCounts(g.p.Body)
	g.negated = map[*lower.Var]bool{}
	for v := range neg {
		if v != g.p.ResultVar && sets[v] == 1 && reads[v] > 0 && reads[v] == added[v] {
			g.negated[v] = true
		}
	}
}

// negatedOperand is the expression a let of v binds: for a variable of
// g.negated, the negation's operand.
func (g *gen) negatedOperand(s *lower.Let) lower.Expr {
	if g.negated[s.V] {
		return s.X.(*lower.Unary).X
	}
	return s.X
}

// addOp is the Go operator that adds x into a real and what it adds: -=
// and the operand for a negation (a store of { j -> -t }), -= and x for
// a variable of g.negated, which holds the negation's operand, else +=
// and x.
func (g *gen) addOp(x lower.Expr) (op string, operand lower.Expr) {
	if u, ok := x.(*lower.Unary); ok && u.Op == lower.Neg && u.Kind() == lower.Real {
		return "-=", u.X
	}
	if r, ok := x.(*lower.Ref); ok && g.negated[r.V] {
		return "-=", x
	}
	return "+=", x
}
