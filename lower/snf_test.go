package lower

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSmithProperties checks the Smith normal form of random integer
// matrices (paper 002's definitions, NOTES.md E2.5): S = U A V, S
// diagonal with positive entries each dividing the next, U and V
// unimodular, the kernel (V's last n − r columns) annihilated by A, the
// cokernel (U's last m − r rows) annihilating A.
func TestSmithProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(34, 1))
	for trial := 0; trial < 500; trial++ {
		m, n := 1+r.IntN(3), 1+r.IntN(4)
		a := make([][]int64, m)
		for i := range a {
			a[i] = make([]int64, n)
			for j := range a[i] {
				if r.IntN(3) > 0 {
					a[i][j] = int64(r.IntN(13) - 6)
				}
			}
		}
		s, u, v, rank := smith(a)
		if !slices.EqualFunc(matMul64(matMul64(u, a), v), s, slices.Equal) {
			t.Fatalf("%v: U A V != S = %v", a, s)
		}
		for i := range s {
			for j := range s[i] {
				switch {
				case i != j && s[i][j] != 0:
					t.Fatalf("%v: S = %v is not diagonal", a, s)
				case i == j && i < rank && s[i][i] <= 0:
					t.Fatalf("%v: S = %v has a non-positive pivot", a, s)
				case i == j && i >= rank && s[i][i] != 0:
					t.Fatalf("%v: S = %v has a pivot past the rank %d", a, s, rank)
				case i == j && i > 0 && i < rank && s[i][i]%s[i-1][i-1] != 0:
					t.Fatalf("%v: S = %v: %d does not divide %d", a, s, s[i-1][i-1], s[i][i])
				}
			}
		}
		if inverseUnimodular(u) == nil || inverseUnimodular(v) == nil {
			t.Fatalf("%v: U = %v or V = %v is not unimodular", a, u, v)
		}
		for c := rank; c < n; c++ {
			for i := range a {
				dot := int64(0)
				for j := range a[i] {
					dot += a[i][j] * v[j][c]
				}
				if dot != 0 {
					t.Fatalf("%v: kernel column %d of V = %v not annihilated", a, c, v)
				}
			}
		}
		for rr := rank; rr < m; rr++ {
			for j := 0; j < n; j++ {
				dot := int64(0)
				for i := range a {
					dot += u[rr][i] * a[i][j]
				}
				if dot != 0 {
					t.Fatalf("%v: cokernel row %d of U = %v does not annihilate A", a, rr, u)
				}
			}
		}
	}
}

// solutions enumerates the integer solutions α of a·α = b in the box
// lo <= α <= hi through the Smith normal form: α = V w, w's first r
// entries fixed by U b (no solution when one is not divisible, or the
// cokernel's entries are not zero), the others (the kernel) running over
// what the box allows.
func solutions(a [][]int64, b, lo, hi []int64) [][]int64 {
	s, u, v, r := smith(a)
	ub := make([]int64, len(a))
	for i := range a {
		for j := range b {
			ub[i] += u[i][j] * b[j]
		}
	}
	n := len(lo)
	w := make([]int64, n)
	for i := 0; i < len(a); i++ {
		if i >= r {
			if ub[i] != 0 {
				return nil
			}
			continue
		}
		if ub[i]%s[i][i] != 0 {
			return nil
		}
		w[i] = ub[i] / s[i][i]
	}
	// the kernel's coordinates over a box bounding them (|V| entries are
	// small here): every α = V w in the box is kept
	var out [][]int64
	var rec func(c int)
	rec = func(c int) {
		if c == n {
			alpha := make([]int64, n)
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					alpha[i] += v[i][j] * w[j]
				}
				if alpha[i] < lo[i] || alpha[i] > hi[i] {
					return
				}
			}
			out = append(out, alpha)
			return
		}
		for z := int64(-40); z <= 40; z++ {
			w[c] = z
			rec(c + 1)
		}
	}
	rec(r)
	return out
}

// bruteSolutions enumerates a·α = b over the box directly.
func bruteSolutions(a [][]int64, b, lo, hi []int64) [][]int64 {
	n := len(lo)
	var out [][]int64
	alpha := make([]int64, n)
	var rec func(c int)
	rec = func(c int) {
		if c == n {
			for i := range a {
				dot := int64(0)
				for j := range alpha {
					dot += a[i][j] * alpha[j]
				}
				if dot != b[i] {
					return
				}
			}
			out = append(out, append([]int64(nil), alpha...))
			return
		}
		for x := lo[c]; x <= hi[c]; x++ {
			alpha[c] = x
			rec(c + 1)
		}
	}
	rec(0)
	return out
}

func sortSolutions(xs [][]int64) {
	slices.SortFunc(xs, func(a, b []int64) int { return slices.Compare(a, b) })
}

// TestSmithSolves: the paper's two enumerations (section 4, Figs. 3 and
// 4; NOTES.md E2.3 and E2.4) and random systems, solved through the
// Smith normal form, give the solutions brute force finds in the box.
func TestSmithSolves(t *testing.T) {
	// Fig. 3: A = (1 −2), β = −1, one-based box 1..5 × 1..3: α = (2z − 1,
	// z) for z = 1, 2, 3
	got := solutions([][]int64{{1, -2}}, []int64{-1}, []int64{1, 1}, []int64{5, 3})
	sortSolutions(got)
	if want := [][]int64{{1, 1}, {3, 2}, {5, 3}}; !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Fig. 3: %v, want %v", got, want)
	}
	// Fig. 4: A = (1 −2 −2), β = 3: 15 points, the paper's z₂ in −1..5
	// and z₁ in max(−1, −z₂)..min(1, 4 − z₂) (with α₂ = z₁ and α₃ = z₁ +
	// z₂: the range of one kernel coordinate depends on the other)
	a4 := [][]int64{{1, -2, -2}}
	lo4, hi4 := []int64{1, -1, 0}, []int64{13, 1, 4}
	got = solutions(a4, []int64{3}, lo4, hi4)
	want := bruteSolutions(a4, []int64{3}, lo4, hi4)
	sortSolutions(got)
	if len(got) != 15 || !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("Fig. 4: %d solutions %v, brute force %d %v", len(got), got, len(want), want)
	}
	r := rand.New(rand.NewPCG(34, 3))
	for trial := 0; trial < 200; trial++ {
		m, n := 1+r.IntN(2), 2+r.IntN(2)
		a := make([][]int64, m)
		for i := range a {
			a[i] = make([]int64, n)
			for j := range a[i] {
				a[i][j] = int64(r.IntN(7) - 3)
			}
		}
		lo, hi := make([]int64, n), make([]int64, n)
		for j := range lo {
			lo[j] = int64(-r.IntN(3))
			hi[j] = lo[j] + int64(r.IntN(4))
		}
		b := make([]int64, m)
		for i := range b {
			b[i] = int64(r.IntN(9) - 4)
		}
		got, want := solutions(a, b, lo, hi), bruteSolutions(a, b, lo, hi)
		sortSolutions(got)
		if !slices.EqualFunc(got, want, slices.Equal) {
			t.Fatalf("%v α = %v in %v..%v: Smith form gives %v, brute force %v", a, b, lo, hi, got, want)
		}
	}
}
