package lower

import "slices"

// Fourier–Motzkin elimination (paper 002, section 4.2, Alg. 3) over
// constraints f ≥ 0 of affine forms (affine.go): an atom is eliminated by
// combining every constraint where it has a positive coefficient with
// every one where it has a negative coefficient, so that the system
// without it has a rational solution exactly when the system with it
// had. A system that reduces to a false constant constraint (0 ≥ 1) has
// no rational solution, so no integer one: that is how a guard is proved
// (its negation added to what is known has no solution). Each constraint
// is tightened for integers on the way (its coefficients divided by their
// greatest common divisor, the constant rounded down), which can only
// make more integer-infeasible systems fail, never a feasible one. The
// elimination gives up (reports "feasible", proving nothing) past
// fmMaxConstraints constraints: it can grow quadratically per atom.

// fmMaxConstraints bounds the constraints an elimination step may make.
const fmMaxConstraints = 400

// infeasible reports whether the constraints (each f ≥ 0) certainly have
// no integer solution.
func infeasible(sys []lin) bool {
	none, ok := fmEliminate(sys, len(sys), nil, nil)
	return ok && none
}

// infeasibleWith reports whether the constraints certainly have no
// integer solution, where those before sys[goal] (a context, the facts of
// running code) are known to have one: once no constraint derived from
// sys[goal:] is left, what is left follows from the context alone and is
// satisfiable, so the elimination stops there. (Were the context
// unsatisfiable after all, this proves less than infeasible, never
// more.)
func infeasibleWith(sys []lin, goal int) bool {
	none, ok := fmEliminate(sys, goal, nil, nil)
	return ok && none
}

// eliminate projects the constraints onto the atoms keep accepts (none
// when keep is nil) by eliminating every other atom: the result has a
// solution exactly where the system had one for some values of the
// eliminated atoms (over the rationals; tightened for integers). It
// returns nil when the system has no solution, and ok false when it gave
// up (too many constraints).
//
// The work is done on dense rows (fmRows): the forms' atoms numbered
// 0..n-1 in ascending order, each constraint n coefficients and its
// constant, so that a step combines rows without allocating a form per
// constraint. The steps, their order and their results are those of the
// same elimination over forms (fmReference in the tests).
func eliminate(sys []lin, keep func(a int) bool) (out []lin, ok bool) {
	var rows []lin
	none, ok := fmEliminate(sys, len(sys), keep, &rows)
	if none {
		return nil, true
	}
	return rows, ok // given up: the constraints where it stopped
}

// fmEliminate eliminates the atoms keep does not accept from sys (all of
// them when keep is nil), stopping early as infeasibleWith does once no
// constraint derived from sys[goal:] is left. none reports a system
// without solution, ok false giving up; the constraints left are stored
// in *rows when rows is not nil.
func fmEliminate(sys []lin, goal int, keep func(a int) bool, rows *[]lin) (none, ok bool) {
	m := newFMRows(sys, goal)
	defer fmPool.Put(m)
	if keep != nil {
		for j, a := range m.atoms {
			m.kept[j] = keep(a)
		}
	}
	// cur is normalized into one buffer, the next step's constraints
	// built in the other
	cur, derived, feasible := m.normalize(m.rows, m.cur[:0])
	next := m.next
	defer func() { m.cur, m.next = cur[:0], next[:0] }()
	left := func(ok bool) (bool, bool) {
		if rows != nil {
			*rows = m.forms(cur)
		}
		return false, ok
	}
	for {
		if !feasible {
			return true, true // a false constant constraint
		}
		if derived == 0 && goal < len(sys) {
			return left(true) // the context's consequences only
		}
		// eliminate the atom whose elimination adds the fewest
		// constraints; an atom of one sign only goes with its
		// constraints (they can always be met)
		best, bestCost := -1, 0
		for j := range m.atoms {
			if m.kept[j] {
				continue
			}
			np, nn := 0, 0
			for r := 0; r < len(cur); r += m.w {
				switch k := cur[r+j]; {
				case k > 0:
					np++
				case k < 0:
					nn++
				}
			}
			if np+nn == 0 {
				continue
			}
			if cost := np*nn - np - nn; best < 0 || cost < bestCost {
				best, bestCost = j, cost
			}
		}
		if best < 0 {
			return left(true)
		}
		pos, neg := m.pos[:0], m.neg[:0]
		for r := 0; r < len(cur); r += m.w {
			switch k := cur[r+best]; {
			case k > 0:
				pos = append(pos, r)
			case k < 0:
				neg = append(neg, r)
			}
		}
		m.pos, m.neg = pos, neg
		rows := len(cur)/m.w - len(pos) - len(neg) + len(pos)*len(neg)
		if rows > fmMaxConstraints {
			return left(false)
		}
		if cap(next) < rows*m.w {
			next = make([]int64, 0, rows*m.w)
		}
		rest := next[:0]
		for r := 0; r < len(cur); r += m.w {
			if cur[r+best] == 0 {
				rest = append(rest, cur[r:r+m.w]...)
			}
		}
		for _, p := range pos {
			kp := cur[p+best]
			for _, n := range neg {
				kn := -cur[n+best]
				pr, nr := cur[p:p+m.w], cur[n:n+m.w]
				for j := range pr[:m.w-1] {
					rest = append(rest, kn*pr[j]+kp*nr[j])
				}
				rest = append(rest, pr[m.w-1]|nr[m.w-1]) // derived from the goal
			}
		}
		next = rest
		cur, derived, feasible = m.normalize(rest, cur[:0])
	}
}

// lowerBound returns the greatest constant c with f >= c for every
// integer solution of sys (as far as the elimination tells), and whether
// there is one: sys with an atom t = f, projected onto t.
func lowerBound(sys []lin, f lin) (int64, bool) {
	const t = -1 // an atom no form uses
	tf := atomLin(t).plus(f, -1)
	all := append(append([]lin(nil), sys...), tf, tf.scaled(-1))
	out, ok := eliminate(all, func(a int) bool { return a == t })
	if !ok || out == nil {
		return 0, false
	}
	found := false
	var best int64
	for _, g := range out {
		if k := g.coef(t); k > 0 && len(g.ts) == 1 {
			// k·t + c >= 0: t >= ceil(-c / k)
			if b := ceilDiv(-g.c, k); !found || b > best {
				best, found = b, true
			}
		}
	}
	return best, found
}

// relevant returns the constraints of ctx connected to the atoms of goals
// through shared atoms: the others cannot change whether the goals'
// system is feasible (they are a separate system, feasible by themselves
// when ctx is satisfiable, as the facts of running code are).
func relevant(ctx []lin, goals []lin) []lin {
	in := map[int]bool{}
	for _, g := range goals {
		for _, t := range g.ts {
			in[t.a] = true
		}
	}
	used := make([]bool, len(ctx))
	var out []lin
	for changed := true; changed; {
		changed = false
		for i, f := range ctx {
			if used[i] {
				continue
			}
			touches := len(f.ts) == 0
			for _, t := range f.ts {
				if in[t.a] {
					touches = true
					break
				}
			}
			if !touches {
				continue
			}
			used[i] = true
			out = append(out, f)
			for _, t := range f.ts {
				if !in[t.a] {
					in[t.a] = true
					changed = true
				}
			}
		}
	}
	return out
}

// impliedBy reports whether the constraints ctx imply g ≥ 0 for every
// integer solution (the negation g ≤ -1 added to them has none).
func impliedBy(ctx []lin, g lin) bool {
	return impliedByConnected(slices.Clip(relevant(ctx, []lin{g})), g)
}

// impliedByConnected is impliedBy for a context already made of the
// constraints connected to g's atoms (relevantFacts): it does not look
// for them again. ctx's backing array may be appended to.
func impliedByConnected(ctx []lin, g lin) bool {
	neg := g.scaled(-1).plus(constLin(1), -1) // -g - 1 >= 0
	if neg.isConst() {
		return neg.c < 0
	}
	sys := append(ctx, neg)
	return infeasibleWith(sys, len(sys)-1)
}
