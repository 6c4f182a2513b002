package main

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd/bench"
)

// TestWithoutPython: without an interpreter, or with one lacking NumPy and
// SciPy, the SciPy rows say "not installed" and nothing fails.
func TestWithoutPython(t *testing.T) {
	if r := runSciPy("", "scipy_fit.py", t.TempDir(), "ridge", 1e-6, 10, 0); r.Status != "not installed" {
		t.Errorf("no interpreter: %+v", r)
	}
	if r := runSciPy("/nonexistent/python3", "scipy_fit.py", t.TempDir(), "ridge", 1e-6, 10, 0); r.Status != "not installed" {
		t.Errorf("a missing interpreter: %+v", r)
	}
	if d := describePython("", ""); !strings.Contains(d, "not installed") {
		t.Errorf("describePython: %s", d)
	}
	if row := resultRow("e40r0000", "ridge", "scipy", &bench.FitResult{Status: "not installed"}); row[3] != "not installed" {
		t.Errorf("row %v", row)
	}
}

// TestCSVRow: a system's CSV row has every column, the whole stop reason
// (the table cuts it at 60 characters) and the executor; a compare row the
// ratios in their own columns.
func TestCSVRow(t *testing.T) {
	reason := "stopped at the iteration limit (5000) before converging: the gradient's largest magnitude is 0.01"
	r := &bench.FitResult{Status: "ok", Stop: reason, Loss: 1, Loss0: 2, GradNorm: 1, GradNorm0: 2, Iterations: 5000, Evaluations: 5010,
		Seconds: 5.01, CPU: 4, Executor: "jit"}
	row := csvRow(resultRow("e40r0000", "ridge", "nablasd", r), r, "", "", "")
	if len(row) != len(csvColumns) {
		t.Fatalf("%d columns, want %d: %v", len(row), len(csvColumns), row)
	}
	col := func(row []string, name string) string {
		for i, c := range csvColumns {
			if c == name {
				return row[i]
			}
		}
		t.Fatalf("no column %s", name)
		return ""
	}
	if got := col(row, "converged"); got != "no: "+reason {
		t.Errorf("converged %q, want the whole reason", got)
	}
	if col(row, "executor") != "jit" || col(row, "wall_ms_per_eval") != "1.000" || col(row, "iterations") != "5000" || col(row, "evaluations") != "5010" {
		t.Errorf("row %v", row)
	}
	cmp := csvRow([]string{"e40r0000", "ridge", "compare", "", "", "", "", "", "", "", "", "", ""}, nil, "1e-10", "1.5", "1.4")
	if len(cmp) != len(csvColumns) || col(cmp, "loss_apart") != "1e-10" || col(cmp, "scipy_wall_ratio") != "1.5" || col(cmp, "scipy_cpu_ratio") != "1.4" {
		t.Errorf("compare row %v", cmp)
	}
}

// TestPeers: every fit names a closed form the SciPy peer has.
func TestPeers(t *testing.T) {
	for _, w := range bench.FitWorkloads {
		if !strings.Contains(string(peerScript), `workload == "`+w.PeerName()+`"`) {
			t.Errorf("%s: scipy_fit.py has no closed form %q", w.Name, w.PeerName())
		}
	}
}
