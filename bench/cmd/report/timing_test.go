package main

import (
	"slices"
	"testing"
	"time"
)

// TestRoundOrder checks that the hand-written loop (variant 0) runs
// between the others in every round and that their order alternates.
func TestRoundOrder(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want [][]int
	}{
		{3, [][]int{{1, 0, 2}, {2, 0, 1}, {1, 0, 2}}},
		{2, [][]int{{1, 0}, {0, 1}, {1, 0}}},
		{1, [][]int{{0}, {0}, {0}}},
	} {
		for r, want := range tc.want {
			if got := roundOrder(tc.n, r); !slices.Equal(got, want) {
				t.Errorf("roundOrder(%d, %d) = %v, want %v", tc.n, r, got, want)
			}
		}
	}
}

// TestTimeRounds checks that every variant gets one time a round.
func TestTimeRounds(t *testing.T) {
	var runs [3]int
	vs := make([]*variant, 3)
	for i := range vs {
		vs[i] = &variant{run: func() { runs[i]++ }}
	}
	timeRounds(vs, 4, time.Millisecond)
	for i, v := range vs {
		if len(v.ns) != 4 || runs[i] < 5 {
			t.Errorf("variant %d: %d times after %d runs, want 4 after at least 5", i, len(v.ns), runs[i])
		}
	}
}

// TestTimeRoundsBudget checks that rounds stop at minRounds once the
// budget has passed, and not before.
func TestTimeRoundsBudget(t *testing.T) {
	defer func(b time.Duration) { budget = b }(budget)
	budget = 0
	vs := []*variant{{run: func() {}}, {run: func() {}}}
	timeRounds(vs, 50, time.Millisecond)
	for i, v := range vs {
		if len(v.ns) != minRounds {
			t.Errorf("variant %d: %d rounds past the budget, want %d", i, len(v.ns), minRounds)
		}
	}
	budget = time.Hour
	vs = []*variant{{run: func() {}}, {run: func() {}}}
	timeRounds(vs, minRounds+3, time.Millisecond)
	for i, v := range vs {
		if len(v.ns) != minRounds+3 {
			t.Errorf("variant %d: %d rounds within the budget, want %d", i, len(v.ns), minRounds+3)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
		{nil, 0},
	} {
		if got := median(tc.xs); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	xs := []float64{3, 1, 2}
	median(xs)
	if !slices.Equal(xs, []float64{3, 1, 2}) {
		t.Errorf("median sorted its argument: %v", xs)
	}
}

func TestCells(t *testing.T) {
	if got, want := ratioCell([]float64{1.2, 1.5, 1.1}), "1.20 1.10–1.50"; got != want {
		t.Errorf("ratioCell = %q, want %q", got, want)
	}
	if got, want := ratioCell([]float64{1.234}), "1.23"; got != want {
		t.Errorf("ratioCell = %q, want %q", got, want)
	}
	for ns, want := range map[float64]string{4123: "4.12", 41234: "41.2", 412345: "412", 4123456789: "4123457"} {
		if got := usCell(ns); got != want {
			t.Errorf("usCell(%v) = %q, want %q", ns, got, want)
		}
	}
}
