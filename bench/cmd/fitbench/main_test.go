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
