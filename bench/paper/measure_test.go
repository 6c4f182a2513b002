package paper

import (
	"math"
	"testing"
	"time"
)

// A slow first run is followed by one warm timed run unless it took
// OnlySeconds or more: a cell's time is a warm run whenever the budget
// allows, and its cold first run is recorded apart (Answer.First).
func TestMeasureSlowFirstRun(t *testing.T) {
	cell := func() (*goCell, error) {
		runs := 0
		return &goCell{
			run: func() error {
				runs++
				if runs == 1 {
					time.Sleep(30 * time.Millisecond) // cold
				}
				return nil
			},
			values: func(f func(float64)) error { f(1); return nil },
		}, nil
	}
	for _, tc := range []struct {
		name       string
		only       float64
		wantTimes  int
		wantWarmLE float64
	}{
		{"under OnlySeconds: warm runs follow", 5, 3, 0.025},
		{"over OnlySeconds: the only run", 0.02, 1, math.Inf(1)},
		{"no OnlySeconds: MaxSeconds decides", 0, 1, math.Inf(1)},
	} {
		ans := measure(Request{Reps: 3, MaxSeconds: 0.01, OnlySeconds: tc.only}, cell)
		if ans.Status != "ok" || len(ans.Times) != tc.wantTimes {
			t.Errorf("%s: status %q, %d timed runs %v, want %d", tc.name, ans.Status, len(ans.Times), ans.Times, tc.wantTimes)
			continue
		}
		if ans.First < 0.03 {
			t.Errorf("%s: first run recorded as %g s, want the cold 0.03 s or more", tc.name, ans.First)
		}
		if tc.wantTimes > 1 && ans.Times[0] > tc.wantWarmLE {
			t.Errorf("%s: the timed runs %v include the cold first run", tc.name, ans.Times)
		}
	}
}

// The budget's estimate counts the warm run after a slow first one, when
// both fit the cell's budget: a cell whose one cold run fits it is not
// skipped for the warm run (with a 10 s budget a 6 s first run stays the
// only one, as it was before the warm run).
func TestEstimateSlowFirstRun(t *testing.T) {
	in := &Input{Name: "big", Rows: 1 << 16, Cols: 1 << 16, NNZ: 1 << 22, RowSq: 1 << 28}
	c := &Cell{Figure: "fig12", Panel: "p", X: "big", Kernel: "batax", Input: in, System: "hand"}
	for _, tc := range []struct {
		budget     time.Duration
		run, timed float64
	}{
		{time.Minute, 0.1, 0.5}, {time.Minute, 0.5, 1.5}, {time.Minute, 2, 2}, {time.Minute, 20, 0},
		{10 * time.Second, 2, 2}, {10 * time.Second, 6, 0},
	} {
		s := Settings{Reps: 5, MaxSeconds: 1, OnlySeconds: 10, Budget: tc.budget}
		r := rates{}
		r.learn(c, tc.run)
		run, wall := r.estimate(c, &s)
		if got := wall - run - setupTime(c.System, c.Kernel, c.Input); math.Abs(got-tc.timed) > 1e-3 {
			t.Errorf("a %g s run, budget %s: timed runs estimated at %g s, want %g", tc.run, tc.budget, got, tc.timed)
		}
		if only := s.onlyFor(c); (tc.timed == 0) != (tc.run >= only) {
			t.Errorf("a %g s run, budget %s: the runner's only-run bound %g s disagrees with the estimate", tc.run, tc.budget, only)
		}
	}
}
