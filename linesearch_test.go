package nablasd

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// TestBackoff: a step whose value is not finite is shortened tenfold, the
// search under it started again from the same start; a finite one goes
// to it. φ(s) = (s − 1)², infinite past s = 5: from a first step of 100,
// 10 then 1, where Moré–Thuente finds the minimum.
func TestBackoff(t *testing.T) {
	phi := func(s float64) (float64, float64) {
		if s > 5 {
			return math.Inf(1), math.NaN()
		}
		return (s - 1) * (s - 1), 2 * (s - 1)
	}
	b := newBackoff(&optimize.MoreThuente{DecreaseFactor: 1e-3, CurvatureFactor: 0.9})
	f0, g0 := phi(0)
	op := b.Init(f0, g0, 100)
	step := 100.0
	var steps []float64
	for range 20 {
		if op == optimize.MajorIteration {
			break
		}
		steps = append(steps, step)
		var err error
		f, g := phi(step)
		op, step, err = b.Iterate(f, g)
		if err != nil {
			t.Fatal(err)
		}
	}
	if op != optimize.MajorIteration || len(steps) < 3 || steps[1] != 10 || steps[2] != 1 || b.nonFinites != 2 {
		t.Errorf("steps %v, last op %v, %d sent back", steps, op, b.nonFinites)
	}
	// nowhere finite: the search fails
	op = b.Init(f0, g0, 1)
	for range maxBackoffs + 2 {
		var err error
		if op, _, err = b.Iterate(math.NaN(), math.NaN()); err != nil {
			return
		}
	}
	t.Errorf("no failure after %d steps of no finite value", maxBackoffs+2)
}
