package lower

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// form builds an affine form from a constant and (atom, coefficient)
// pairs.
func form(c int64, terms ...int64) lin {
	f := constLin(c)
	for i := 0; i+1 < len(terms); i += 2 {
		f = f.plus(atomLin(int(terms[i])), terms[i+1])
	}
	return f
}

// TestFourierMotzkin: what the elimination proves of loop ranges, and
// what it must not.
func TestFourierMotzkin(t *testing.T) {
	const i, k, n, m, x = 0, 1, 2, 3, 4
	ranges := []lin{
		form(0, i, 1),                                            // i >= 0
		form(-1, n, 1, i, -1),                                    // i <= n - 1
		form(0, k, 1),                                            // k >= 0
		form(-1, m, 1, k, -1),                                    // k <= m - 1
		form(1, x, 1, n, -1, m, -1), form(-1, x, -1, n, 1, m, 1), // x = n + m - 1
	}
	for _, c := range []struct {
		name string
		goal lin
		want bool
	}{
		{"0 <= i + k", form(0, i, 1, k, 1), true},
		{"i + k < x", form(-1, x, 1, i, -1, k, -1), true},
		{"i + k <= x - 1", form(-1, x, 1, i, -1, k, -1), true},
		{"i + k <= x - 2", form(-2, x, 1, i, -1, k, -1), false},
		{"i + k < n", form(-1, n, 1, i, -1, k, -1), false},
		{"1 <= i", form(-1, i, 1), false},
		{"0 <= m - 1", form(-1, m, 1), true}, // k exists: m >= 1
	} {
		if got := impliedBy(ranges, c.goal); got != c.want {
			t.Errorf("%s: implied %v, want %v", c.name, got, c.want)
		}
	}
	// 2i = 1 has a rational solution and no integer one: tightening
	// finds it
	if !infeasible([]lin{form(-1, i, 2), form(1, i, -2)}) {
		t.Error("2i = 1 is not known infeasible over the integers")
	}
	if infeasible([]lin{form(-1, i, 2), form(2, i, -2)}) {
		t.Error("1 <= 2i <= 2 is infeasible (i = 1 is a solution)")
	}
	// the greatest constant below j, with j >= i + 2 and i >= 3
	if c, ok := lowerBound([]lin{form(-3, i, 1), form(-2, k, 1, i, -1)}, form(0, k, 1)); !ok || c != 5 {
		t.Errorf("lower bound of k: %d (%v), want 5", c, ok)
	}
}

// TestFourierMotzkinSound: on random systems over three atoms in a box,
// whatever the elimination proves holds at every integer point of the
// system (brute force), and it proves most of what holds.
func TestFourierMotzkinSound(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 2))
	const box = 5
	proved, held := 0, 0
	for trial := 0; trial < 1000; trial++ {
		var sys []lin
		for a := 0; a < 3; a++ {
			sys = append(sys, form(box, int64(a), 1), form(box, int64(a), -1))
		}
		random := func() lin {
			return form(int64(r.IntN(9)-4), 0, int64(r.IntN(5)-2), 1, int64(r.IntN(5)-2), 2, int64(r.IntN(5)-2))
		}
		for c := 0; c < 1+r.IntN(3); c++ {
			sys = append(sys, random())
		}
		goal := random()
		if trial%2 == 0 {
			// a goal that holds: a non-negative combination of the
			// constraints, loosened
			goal = constLin(-int64(r.IntN(3)))
			for _, f := range sys[6:] {
				goal = goal.plus(f, int64(r.IntN(3)))
			}
			goal = goal.plus(sys[r.IntN(6)], 1)
		}
		holds, any := true, false
		for x := -box; x <= box; x++ {
			for y := -box; y <= box; y++ {
				for z := -box; z <= box; z++ {
					val := func(f lin) int64 {
						v := f.c
						for _, tm := range f.ts {
							v += tm.k * []int64{int64(x), int64(y), int64(z)}[tm.a]
						}
						return v
					}
					in := true
					for _, f := range sys {
						if val(f) < 0 {
							in = false
							break
						}
					}
					if in {
						any = true
						if val(goal) < 0 {
							holds = false
						}
					}
				}
			}
		}
		got := impliedBy(sys, goal)
		if got && !holds {
			t.Fatalf("trial %d: proved %v >= 0 from %v, which has a counterexample", trial, goal, sys)
		}
		if any && holds {
			held++
			if got {
				proved++
			}
		}
	}
	if proved < held*3/4 {
		t.Errorf("proved %d of the %d goals that hold", proved, held)
	}
	t.Logf("proved %d of the %d goals that hold (the rest need integer reasoning beyond tightening)", proved, held)
}

// fmReference is the elimination over forms, as eliminate was written
// before it worked on dense rows (fmRows): the oracle
// TestEliminateMatchesReference compares it with.
func fmReference(sys []lin, keep func(a int) bool) (out []lin, ok bool) {
	cur := fmReferenceNormalize(sys)
	for {
		if cur == nil {
			return nil, true // a false constant constraint
		}
		// eliminate the atom whose elimination adds the fewest
		// constraints; an atom of one sign only goes with its
		// constraints (they can always be met)
		best, bestCost := -1, 0
		found := false
		for _, a := range sortedAtoms(nil, cur) {
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
		cur = fmReferenceNormalize(rest)
	}
}

// fmReferenceNormalize tightens every constraint, drops those that always hold
// and keeps, of constraints with the same terms, the strongest. It
// returns nil when a constraint can never hold (a constant below 0), and
// an empty non-nil slice when none is left.
func fmReferenceNormalize(sys []lin) []lin {
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

// tighten (fmReference's) divides a constraint f ≥ 0 by the gcd of its coefficients,
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

// TestEliminateMatchesReference: on random systems of 2 to 30
// constraints over up to 8 atoms (coefficients of varied sizes, shared
// multiples, duplicates and opposite pairs), eliminating every atom or
// keeping some, eliminate gives exactly what the reference elimination
// over forms gives: the same constraints in the same order, the same
// infeasibility, the same giving up.
func TestEliminateMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	trials := 3000
	if testing.Short() {
		trials = 600
	}
	gaveUp, proved, goalProved, contextInfeasible := 0, 0, 0, 0
	for trial := 0; trial < trials; trial++ {
		atoms := 1 + r.IntN(8)
		ids := r.Perm(40)[:atoms] // atom numbers neither dense nor sorted
		var sys []lin
		for c := 0; c < 2+r.IntN(29); c++ {
			switch {
			case c > 0 && r.IntN(6) == 0: // a duplicate or opposite of one before
				f := sys[r.IntN(len(sys))]
				if r.IntN(2) == 0 {
					f = f.scaled(-1)
				}
				sys = append(sys, f.plus(constLin(int64(r.IntN(5)-2)), 1))
				continue
			}
			f := constLin(int64(r.IntN(21) - 10))
			for _, a := range ids {
				if r.IntN(3) == 0 {
					continue
				}
				k := int64(r.IntN(7) - 3)
				if r.IntN(5) == 0 {
					k *= int64(2 + r.IntN(3))
				}
				f = f.plus(atomLin(a), k)
			}
			sys = append(sys, f)
		}
		var keep func(int) bool
		if trial%3 == 0 {
			kept := ids[0]
			keep = func(a int) bool { return a == kept }
		}
		want, wok := fmReference(sys, keep)
		got, gok := eliminate(sys, keep)
		if wok != gok || (want == nil) != (got == nil) || fmt.Sprint(want) != fmt.Sprint(got) {
			t.Fatalf("trial %d: eliminate(%v) = %v, %v; the reference gives %v, %v", trial, sys, got, gok, want, wok)
		}
		if !wok {
			gaveUp++
		} else if want == nil {
			proved++
		}
		// the system's first constraints as the context of a goal, the
		// last one's negation: infeasibleWith stops once no constraint
		// derived from the goal is left, which changes the answer only
		// where the context itself is infeasible
		goal := len(sys) - 1
		ref, rok := fmReference(sys, nil)
		refProved := rok && ref == nil
		if got := infeasibleWith(sys, goal); got != refProved {
			ctx, cok := fmReference(sys[:goal], nil)
			if got || !cok || ctx != nil {
				t.Fatalf("trial %d: infeasibleWith(%v, %d) = %v, the reference elimination %v (the context alone: %v, %v)",
					trial, sys, goal, got, refProved, ctx, cok)
			}
			contextInfeasible++
		} else if refProved {
			goalProved++
		}
	}
	if proved < trials/10 || gaveUp == 0 || goalProved < trials/20 || contextInfeasible == 0 {
		t.Errorf("the systems exercise too little: %d of %d infeasible, %d given up, %d proved with a goal, %d with an infeasible context",
			proved, trials, gaveUp, goalProved, contextInfeasible)
	}
}
