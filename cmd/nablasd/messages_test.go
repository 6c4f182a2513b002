package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/tabletest"
)

// TestIssueMessages: the messages issue 37 quoted from the non-finite
// values, the batch jobs, the printing and the executors are gone, each
// replaced by what helps: the quoted text must not appear, the new one
// must.
func TestIssueMessages(t *testing.T) {
	dir := t.TempDir()
	unsorted := filepath.Join(dir, "u.parquet")
	if err := tabletest.Write(unsorted, "g:int64 i:int64 val:float64\n2 0 1\n1 1 2\n2 1 3\n1 0 4\n", 2, map[string]string{"nablasd.shape": "2"}); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.parquet")
	for _, c := range []struct {
		quoted string   // the issue's message, gone
		args   []string // the command that gave it
		code   int
		want   []string // on standard output and error
	}{
		{"value: inf (and a gradient of NaNs, without a word)",
			[]string{"grad", "-e", "log(1 + exp(z))", "--in", "z=800", "--wrt", "z", "--value"}, 0,
			[]string{"value: inf\ngrad z: nan\n", "nablasd: warning: value is inf; it first appears in exp(z) at 1:9: exp(800) = inf",
				"nablasd: warning: grad z is nan; it first appears in "}},
		{"the table is not sorted by g (sort it, e.g. ORDER BY g)",
			[]string{"eval", "-e", "sum(<i, v> in x) v", "--in", "x=" + unsorted, "--group-by", "g", "--out", out, "--stats"}, 0,
			[]string{`sorted="x"`}},
		{"--group-by runs the value or one gradient per group",
			[]string{"grad", "-e", "sum(<i, v> in x) v * v", "--in", "x=" + unsorted, "--group-by", "g", "--out", out, "--value", "--wrt", "x"}, 0,
			nil},
		{"executor=compiled (without a reason)",
			[]string{"eval", "-e", "2 * x", "--in", "x=3", "--stats"}, 0,
			[]string{"executor=compiled reason=\""}},
	} {
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || strings.Contains(stdout+stderr, c.quoted) {
			t.Errorf("%q: exit %d, %q %q; the issue's %q", c.args, code, stdout, stderr, c.quoted)
		}
		for _, w := range c.want {
			if !strings.Contains(stdout+stderr, w) {
				t.Errorf("%q: stdout %q, stderr %q, want %q", c.args, stdout, stderr, w)
			}
		}
	}
	for _, f := range []string{"out.value.parquet", "out.grad_x.parquet"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("--group-by --value --wrt x: %v", err)
		}
	}
}
