package gogen

import (
	"github.com/nablasd/nablasd/lower"
)

// Accumulators. A loop whose body adds into one value of a tensor at a
// position fixed before the loop (out.val[q] += c, q bound outside)
// adds into a local instead, and the local into the value after the
// loop, as a hand-written loop keeps a row's sum in a register: Go
// cannot, as another store of the loop may alias the value. The sums
// are then associated differently (the values agree to rounding). Only
// for a tensor of dense levels (an insert moves no value) that the loop
// neither reads (ValAt) nor initializes.

type accKey struct {
	t *lower.Tensor
	q *lower.Var
}

// promote declares the accumulators of the loop s and registers them
// for store; it returns them for flush.
func (g *gen) promote(s *lower.For) []accKey {
	var keys []accKey
	seen := map[accKey]bool{}
	lower.WalkStmts(s.Body, func(x lower.Stmt) {
		st, ok := x.(*lower.Store)
		if !ok || st.Op != lower.AddTo || st.T.Leaf != lower.Real {
			return
		}
		r, ok := st.Pos.(*lower.Ref)
		if !ok {
			return
		}
		k := accKey{st.T, r.V}
		if seen[k] || g.accum[k] != "" || !g.read[r.V] || !g.visible(r.V) || writes(s.Body, r.V) || !g.accumulable(st.T, s.Body) {
			return
		}
		seen[k] = true
		keys = append(keys, k)
	})
	for _, k := range keys {
		acc := g.loc.name("acc")
		g.line("%s := 0.0", acc)
		g.accum[k] = acc
	}
	return keys
}

// accumulable reports whether the values of t may be accumulated in
// locals over body.
func (g *gen) accumulable(t *lower.Tensor, body lower.Stmt) bool {
	if t.Input || g.ts[t] == nil {
		return false
	}
	for _, l := range t.Levels {
		if l.Storage != lower.Dense {
			return false
		}
	}
	ok := true
	lower.WalkStmts(body, func(x lower.Stmt) {
		if in, isInit := x.(*lower.Init); isInit && in.T == t {
			ok = false
		}
	})
	lower.WalkStmtExprs(body, func(e lower.Expr) {
		if v, isVal := e.(*lower.ValAt); isVal && v.T == t {
			ok = false
		}
	})
	return ok
}

// flush adds the accumulators of a loop into their values.
func (g *gen) flush(keys []accKey) {
	for _, k := range keys {
		ti := g.ts[k.t]
		g.line("%s[%s] += %s", ti.f(valsField), g.vars[k.q], g.accum[k])
		delete(g.accum, k)
	}
}
