package fuse

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// TestDeterministicSaturation: the optimizer stops on its iteration and
// node limits, not on wall time, so a program's plan is the same from run
// to run; on the workloads (differentiated as fuse's own tests can: the
// logical programs here) no saturation stops on the time limit. A run
// that does is reported as a warning.
func TestDeterministicSaturation(t *testing.T) {
	files := map[string]string{"least_squares": "x", "logistic": "x", "ridge": "x", "laplacian": "x", "mlp2": "x", "factorization": "U"}
	for f, wrt := range files {
		src, err := os.ReadFile("../../shared/workloads/" + f + ".sdql")
		if err != nil {
			t.Skipf("../shared/workloads is absent: %v", err)
		}
		prog := sdql.MustParse(string(src))
		var plans []string
		for run := 0; run < 2; run++ {
			res, err := Optimize(prog, &Config{Inputs: map[string]sdql.Type{"A": matT, "R": matT, "U": matT, "W": matT,
				"x": vecT, "b": vecT, "y": vecT, "lambda": sdql.RealType}, Dense: map[string]bool{"x": true, "b": true, "y": true, "U": true, "W": true},
				Wrt: wrt})
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, rep := range res.Reports {
				if rep.Stop == StopTimeLimit {
					t.Errorf("%s: saturation stopped on its time limit (%d iterations)", f, rep.Iterations)
				}
			}
			plans = append(plans, sdql.Print(res.Program))
		}
		if plans[0] != plans[1] {
			t.Errorf("%s: two runs gave two plans:\n%s\n----\n%s", f, plans[0], plans[1])
		}
	}
	// a time limit that stops saturation is a warning
	prog := sdql.MustParse(string(mustRead(t, "../../shared/workloads/ridge.sdql")))
	res, err := Optimize(prog, &Config{Inputs: map[string]sdql.Type{"A": matT, "x": vecT, "b": vecT, "lambda": sdql.RealType},
		Runner: RunnerConfig{TimeLimit: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "stopped on its time limit") {
		t.Errorf("no warning for a saturation stopped on its time limit: %q", w)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Skip(err)
	}
	return b
}
