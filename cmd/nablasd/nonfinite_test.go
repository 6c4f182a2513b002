package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNonFinite: a result holding a NaN or an infinity prints with a
// warning naming the result, its first such entry and where the first
// appears (the issue's log(1 + exp(z)) over large logits printed "value:
// inf" and a gradient of NaNs without a word); --check-finite makes it an
// error: exit 1, nothing printed or written.
func TestNonFinite(t *testing.T) {
	dir := t.TempDir()
	z := filepath.Join(dir, "z.mtx")
	os.WriteFile(z, []byte("%%MatrixMarket matrix array real general\n3 1\n1\n800\n-2\n"), 0o644)
	out := filepath.Join(dir, "g.mtx")
	const prog = "sum(<i, v> in z) log(1 + exp(v))"
	for _, c := range []struct {
		args   []string
		code   int
		stdout string
		stderr []string // each line of standard error, in order
	}{
		{[]string{"eval", "-e", "log(1 + exp(z))", "--in", "z=800"}, 0, "inf\n",
			[]string{"nablasd: warning: value is inf; it first appears in exp(z) at 1:9: exp(800) = inf"}},
		{[]string{"eval", "-e", "log(1 + exp(z))", "--in", "z=8"}, 0, "8.000335406372896\n", nil},
		{[]string{"grad", "-e", prog, "--in", "z=" + z, "--wrt", "z", "--value"}, 0,
			"value: inf\ngrad z: {0 -> 0.7310585786300048, 1 -> nan, 2 -> 0.11920292202211755}\n",
			[]string{"nablasd: warning: value is inf; it first appears in exp(v) at 1:26: exp(800) = inf",
				"nablasd: warning: grad z has nan at key 1 (1 of 3 entries are not finite); it first appears in t * (1.0 / (1 + t)) in the gradient's program: inf * 0 = nan, after exp(v) at 1:26: exp(800) = inf"}},
		{[]string{"grad", "-e", prog, "--in", "z=" + z, "--wrt", "z", "--check-finite"}, 1, "",
			[]string{"nablasd: grad z has nan at key 1 (1 of 3 entries are not finite); it first appears in t * (1.0 / (1 + t)) in the gradient's program: inf * 0 = nan, after exp(v) at 1:26: exp(800) = inf (--check-finite)"}},
		{[]string{"grad", "-e", prog, "--in", "z=" + z, "--wrt", "z", "--check-finite", "--out", out}, 1, "",
			[]string{"nablasd: grad z has nan at key 1"}},
		{[]string{"eval", "-e", "sum(<i, v> in z) { i -> 2 * v }", "--in", "z=" + z, "--check-finite"}, 0, "{0 -> 2, 1 -> 1600, 2 -> -4}\n", nil},
	} {
		code, stdout, stderr := runCLI(c.args...)
		lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
		if stderr == "" {
			lines = nil
		}
		ok := code == c.code && stdout == c.stdout && len(lines) == len(c.stderr)
		for i := range c.stderr {
			ok = ok && i < len(lines) && strings.HasPrefix(lines[i], c.stderr[i])
		}
		if !ok {
			t.Errorf("nablasd %q:\n exit %d, stdout %q, stderr %q\n want exit %d, stdout %q, stderr %q", c.args, code, stdout, stderr, c.code, c.stdout, c.stderr)
		}
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("--check-finite wrote %s", out)
	}
}
