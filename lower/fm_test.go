package lower

import (
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
