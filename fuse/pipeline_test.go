package fuse

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestOptimizeErrors checks that bad programs give errors with positions,
// not panics.
func TestOptimizeErrors(t *testing.T) {
	for _, tc := range []struct {
		src, wrt, want string
	}{
		{"sum(<i, a> in V) a + {1 -> 2.0}", "", "mismatched types"},
		{"sum(<i, a> in V) a", "W", "W"},
		{"x(1)", "", "cannot look up"},
	} {
		_, err := optimizeGrad(sdql.MustParse(tc.src), tc.wrt, &Config{Inputs: map[string]sdql.Type{"V": vecT, "x": sdql.RealType}})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Optimize(%s): %v, want an error mentioning %q", tc.src, err, tc.want)
		}
	}
}

// TestTrace checks that the strategies and the runner report firings.
func TestTrace(t *testing.T) {
	var fired []string
	_, err := Optimize(sdql.MustParse("sum(<i, a> in V) a * 1.0 + 0.0"), &Config{Inputs: map[string]sdql.Type{"V": vecT},
		Trace: func(rule string, _, _ sdql.Expr) { fired = append(fired, rule) }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(fired, " "), "MulOneRight") {
		t.Errorf("trace %v lacks MulOneRight", fired)
	}
	n := 0
	Saturate(sdql.MustParse("x * y + x * z"), SaturationRules(), map[string]sdql.Type{"x": sdql.RealType, "y": sdql.RealType, "z": sdql.RealType},
		nil, nil, RunnerConfig{Trace: func(string) { n++ }})
	if n == 0 {
		t.Errorf("the runner traced no firing")
	}
}
