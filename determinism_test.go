package nablasd

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/fuse"
	"github.com/nablasd/nablasd/sdql"
)

// TestDeterministicSaturation: the optimizer stops on its iteration and
// node limits, not on wall time, so a program's plan is the same from run
// to run; on the workloads' gradients no saturation stops on the time
// limit. A run that does is reported as a warning.
func TestDeterministicSaturation(t *testing.T) {
	load := func(spec string) any {
		t.Helper()
		x, err := Load(spec, nil)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	inputs := Inputs{
		"A": load("synthetic:rows=60,cols=60,density=0.1,seed=1"), "R": load("synthetic:rows=60,cols=60,density=0.1,seed=2"),
		"x": load("synthetic:n=60,density=1,seed=3:dense"), "b": load("synthetic:n=60,density=1,seed=4:dense"),
		"y": load("synthetic:n=60,density=1,seed=5:dense"), "lambda": 0.1,
		"U": load("synthetic:rows=60,cols=4,density=1,seed=6:dense"), "W": load("synthetic:rows=60,cols=4,density=1,seed=7:dense"),
	}
	for f, wrt := range map[string]string{"least_squares": "x", "logistic": "x", "ridge": "x", "laplacian": "x", "mlp2": "x", "factorization": "U"} {
		src, err := os.ReadFile("../shared/workloads/" + f + ".sdql")
		if err != nil {
			t.Skipf("../shared/workloads is absent: %v", err)
		}
		var plans []string
		for run := 0; run < 2; run++ {
			q, err := Prepare(string(src), inputs, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			p, err := q.Plan(wrt)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for _, rep := range p.Fuse.Reports {
				if rep.Stop == fuse.StopTimeLimit {
					t.Errorf("%s: saturation stopped on its time limit (%d iterations)", f, rep.Iterations)
				}
			}
			plans = append(plans, sdql.Print(p.Program))
		}
		if plans[0] != plans[1] {
			t.Errorf("%s: two runs gave two plans:\n%s\n----\n%s", f, plans[0], plans[1])
		}
	}
	// a time limit that stops saturation is a warning
	res, err := fuse.Optimize(sdql.MustParse("sum(<i, r> in A) sum(<j, a> in r) a * x(j) * x(j) + 0.5 * a"), &fuse.Config{
		Inputs: map[string]sdql.Type{"A": sdql.Tensor(2), "x": sdql.Tensor(1)},
		Runner: fuse.RunnerConfig{TimeLimit: time.Nanosecond}})
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(res.Warnings, "\n"); !strings.Contains(w, "stopped on its time limit") {
		t.Errorf("no warning for a saturation stopped on its time limit: %q", w)
	}
}
