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

// tighten divides a constraint f ≥ 0 by the gcd of its coefficients,
// rounding the constant down (for integer atoms Σ g·kᵢ·aᵢ + c ≥ 0 holds
// iff Σ kᵢ·aᵢ + ⌊c/g⌋ ≥ 0).
func tighten(f lin) lin {
	if len(f.ts) == 0 {
		return f
	}
	g := int64(0)
	for _, t := range f.ts {
		g = gcd64(g, t.k)
	}
	if g <= 1 {
		return f
	}
	out := lin{c: floorDiv(f.c, g), ts: make([]lterm, len(f.ts))}
	for i, t := range f.ts {
		out.ts[i] = lterm{t.a, t.k / g}
	}
	return out
}

// infeasible reports whether the constraints (each f ≥ 0) certainly have
// no integer solution.
func infeasible(sys []lin) bool {
	out, ok := eliminate(sys, nil)
	return ok && out == nil
}

// eliminate projects the constraints onto the atoms keep accepts (none
// when keep is nil) by eliminating every other atom: the result has a
// solution exactly where the system had one for some values of the
// eliminated atoms (over the rationals; tightened for integers). It
// returns nil when the system has no solution, and ok false when it gave
// up (too many constraints).
func eliminate(sys []lin, keep func(a int) bool) (out []lin, ok bool) {
	cur := normalizeSystem(sys)
	for {
		if cur == nil {
			return nil, true // a false constant constraint
		}
		// eliminate the atom whose elimination adds the fewest
		// constraints; an atom of one sign only goes with its
		// constraints (they can always be met)
		best, bestCost := -1, 0
		found := false
		for _, a := range sortedAtoms(cur) {
			if keep != nil && keep(a) {
				continue
			}
			np, nn := 0, 0
			for _, f := range cur {
				switch k := f.coef(a); {
				case k > 0:
					np++
				case k < 0:
					nn++
				}
			}
			cost := np*nn - np - nn
			if !found || cost < bestCost {
				best, bestCost, found = a, cost, true
			}
		}
		if !found {
			return cur, true
		}
		var pos, neg, rest []lin
		for _, f := range cur {
			switch k := f.coef(best); {
			case k > 0:
				pos = append(pos, f)
			case k < 0:
				neg = append(neg, f)
			default:
				rest = append(rest, f)
			}
		}
		if len(pos)+len(neg) == 0 || len(rest)+len(pos)*len(neg) > fmMaxConstraints {
			return cur, false
		}
		for _, p := range pos {
			kp := p.coef(best)
			for _, n := range neg {
				kn := -n.coef(best)
				rest = append(rest, p.scaled(kn).plus(n, kp))
			}
		}
		cur = normalizeSystem(rest)
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

// normalizeSystem tightens every constraint, drops those that always hold
// and keeps, of constraints with the same terms, the strongest. It
// returns nil when a constraint can never hold (a constant below 0), and
// an empty non-nil slice when none is left.
func normalizeSystem(sys []lin) []lin {
	out := make([]lin, 0, len(sys))
	at := map[string]int{}
	for _, f := range sys {
		f = tighten(f)
		if len(f.ts) == 0 {
			if f.c < 0 {
				return nil
			}
			continue
		}
		k := f.key()
		if i, ok := at[k]; ok {
			if f.c < out[i].c {
				out[i] = f
			}
			continue
		}
		at[k] = len(out)
		out = append(out, f)
	}
	// a pair f ≥ 0 and -f + c ≥ 0 with c < 0 cannot hold together: found
	// by the elimination too, but cheaply here
	for i, f := range out {
		if j, ok := at[f.scaled(-1).key()]; ok && j > i && f.c+out[j].c < 0 {
			return nil
		}
	}
	return out
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
	neg := g.scaled(-1).plus(constLin(1), -1) // -g - 1 >= 0
	if neg.isConst() {
		return neg.c < 0
	}
	sys := relevant(ctx, []lin{neg})
	sys = append(slices.Clip(sys), neg)
	return infeasible(sys)
}
