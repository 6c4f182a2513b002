package fuse

import (
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// A program on which associativity and commutativity blow up.
const blowup = "x1 * x2 * x3 * x4 * x5 * x6 * x7 * x8 + y1 * y2 * y3 * y4 * y5 * y6"

func blowupTypes() map[string]sdql.Type {
	ts := map[string]sdql.Type{}
	for _, n := range sdql.FreeVars(sdql.MustParse(blowup)) {
		ts[n] = sdql.RealType
	}
	return ts
}

// TestRunnerLimits checks that the runner stops at each limit and says so,
// and that the extracted program is still equivalent.
func TestRunnerLimits(t *testing.T) {
	prog := sdql.MustParse(blowup)
	for _, tc := range []struct {
		cfg  RunnerConfig
		want StopReason
	}{
		{RunnerConfig{IterLimit: 2, TimeLimit: time.Minute}, StopIterLimit},
		{RunnerConfig{NodeLimit: 300, TimeLimit: time.Minute}, StopNodeLimit},
		{RunnerConfig{TimeLimit: time.Millisecond, IterLimit: 1000, NodeLimit: 1 << 30}, StopTimeLimit},
	} {
		start := time.Now()
		out, rep := Saturate(prog, SaturationRules(), blowupTypes(), nil, nil, tc.cfg)
		if rep.Stop != tc.want {
			t.Errorf("%+v: stopped by %q, want %q", tc.cfg, rep.Stop, tc.want)
		}
		if tc.want == StopNodeLimit && rep.Nodes > 2*tc.cfg.NodeLimit {
			t.Errorf("node limit %d overshot: %d e-nodes", tc.cfg.NodeLimit, rep.Nodes)
		}
		// far above 1 ms, so that a busy machine does not fail it, and far
		// below the time the iteration limit alone would take
		if tc.want == StopTimeLimit && time.Since(start) > 10*time.Second {
			t.Errorf("time limit 1ms overshot: %v", time.Since(start))
		}
		if !strings.Contains(rep.Lines(), "stopped: "+string(tc.want)) {
			t.Errorf("report does not say why it stopped:\n%s", rep.Lines())
		}
		in := map[string]sdql.Value{}
		for n := range blowupTypes() {
			in[n] = sdql.Real(float64(len(n)) + 0.5)
		}
		a, _ := sdql.Eval(prog, in)
		b, err := sdql.Eval(out, in)
		if err != nil || !sdql.Equal(a, b) {
			t.Errorf("extracted %s: %v, %v want %v", sdql.PrintFlat(out), b, err, a)
		}
	}
}

// TestRunnerBackoff checks that a rule with too many matches is banned
// for a while (egg's BackoffScheduler) and that saturation is not claimed
// while a rule sits out.
func TestRunnerBackoff(t *testing.T) {
	_, rep := Saturate(sdql.MustParse(blowup), SaturationRules(), blowupTypes(), nil, nil,
		RunnerConfig{MatchLimit: 5, IterLimit: 6, TimeLimit: time.Minute})
	if len(rep.Banned) == 0 {
		t.Errorf("no rule was banned with a match limit of 5: %+v", rep)
	}
	if rep.Stop == StopSaturated {
		t.Errorf("claimed saturation with banned rules")
	}
}

// TestRunnerDisabled checks that disabled rules never fire.
func TestRunnerDisabled(t *testing.T) {
	_, rep := Saturate(sdql.MustParse(blowup), SaturationRules(), blowupTypes(), nil, nil,
		RunnerConfig{IterLimit: 3, TimeLimit: time.Minute, Disabled: map[string]bool{"MulCommScalarLeft": true}})
	if rep.Fired["MulCommScalarLeft"] != 0 {
		t.Errorf("a disabled rule fired")
	}
}

// TestExtractionScope checks that a term moved out of a binder is never
// extracted in a form that mentions the binder: the class of k * 0.0 also
// holds 0.0, so HoistLeftFactor may hoist it, and extraction must pick 0.0.
func TestExtractionScope(t *testing.T) {
	prog := Uniquify(sdql.MustParse("sum(<k, v> in V) (v * 0.0) * v"))
	types := map[string]sdql.Type{"V": vecT}
	out, _ := Saturate(prog, SaturationRules(), types, nil, nil, RunnerConfig{TimeLimit: time.Minute})
	in := map[string]sdql.Value{"V": func() sdql.Value { v, _ := sdql.Eval(sdql.MustParse("{1 -> 2.0, 3 -> 1.5}"), nil); return v }()}
	a, _ := sdql.Eval(prog, in)
	b, err := sdql.Eval(out, in)
	if err != nil || !sdql.Equal(a, b) {
		t.Errorf("extracted %s: %v, %v want %v", sdql.PrintFlat(out), b, err, a)
	}
}
