package main

import (
	"bytes"
	"flag"
	"fmt"
	"math"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestMain runs the command itself when the test binary is started with
// NABLASD_RUN_MAIN=1 (TestMemoryLimitClean runs it under a limit); with
// NABLASD_HWM_FILE set too, it writes the process's peak resident memory
// (VmHWM, in KiB) to that file when the command is done (TestPrintPipe).
func TestMain(m *testing.M) {
	if os.Getenv("NABLASD_RUN_MAIN") == "1" {
		code := run(os.Args[1:], os.Stdout, os.Stderr)
		if f := os.Getenv("NABLASD_HWM_FILE"); f != "" {
			writeHWM(f)
		}
		os.Exit(code)
	}
	os.Exit(m.Run())
}

// writeHWM writes the process's VmHWM line of /proc/self/status, the
// peak resident memory of this program alone: the rusage of a child
// started by a Go parent counts the parent's memory (Linux starts a
// CLONE_VM child's high-water mark at its parent's), /proc's does not.
func writeHWM(file string) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			os.WriteFile(file, []byte(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB"))), 0o644)
		}
	}
}

// TestHelpListsEveryFlag: nablasd CMD -h and nablasd help CMD list every
// flag of the command with its default.
func TestHelpListsEveryFlag(t *testing.T) {
	for _, name := range commandNames() {
		c := commands[name]
		if c.flags == nil {
			continue
		}
		fs := c.flags()
		for _, args := range [][]string{{name, "-h"}, {name, "--help"}, {"help", name}} {
			code, out, stderr := runCLI(args...)
			if code != 0 || stderr != "" {
				t.Errorf("nablasd %v: exit %d, stderr %q", args, code, stderr)
			}
			if !strings.HasPrefix(out, "Usage: nablasd "+name+" ") {
				t.Errorf("nablasd %v: %q", args, out)
			}
			fs.VisitAll(func(f *flag.Flag) {
				dash := "--"
				if len(f.Name) == 1 {
					dash = "-"
				}
				if !strings.Contains(out, "  "+dash+f.Name+" ") {
					t.Errorf("nablasd %v does not list %s%s:\n%s", args, dash, f.Name, out)
				}
				if d := f.DefValue; d != "" && d != "false" && d != "[]" && !strings.Contains(out, "(default "+d+")") {
					t.Errorf("nablasd %v does not give %s%s's default %s", args, dash, f.Name, d)
				}
			})
		}
	}
	// the flags the issue found missing from help
	_, out, _ := runCLI("help", "grad")
	for _, f := range []string{"--opt", "--exec", "--threads", "--stats", "--repeat", "--dict", "--dps", "--no-validate", "--out-format", "--memory-limit", "--no-shape-check"} {
		if !strings.Contains(out, f) {
			t.Errorf("help grad lacks %s", f)
		}
	}
	_, out, _ = runCLI("gen", "-h")
	for _, f := range []string{"--func NAME", "--package NAME", "--out FILE", "-o", "--workspace", "t.Pos[1]"} {
		if !strings.Contains(out, f) {
			t.Errorf("gen -h lacks %s:\n%s", f, out)
		}
	}
}

// TestMistakes: misspelt flags and commands get the nearest suggested,
// a repeated --wrt is an error, an unused --in a warning.
func TestMistakes(t *testing.T) {
	for _, c := range []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"eval", "-e", "1", "--thread", "2"}, 2, "nablasd: eval: unknown flag --thread (did you mean --threads?)\nRun 'nablasd help eval' for usage.\n"},
		{[]string{"grad", "-e", "1", "--wtr", "x"}, 2, "unknown flag --wtr (did you mean --wrt?)"},
		{[]string{"evl", "-e", "1"}, 2, "nablasd: unknown command \"evl\" (did you mean eval?)\nRun 'nablasd help' for usage.\n"},
		{[]string{"frobnicate"}, 2, "unknown command \"frobnicate\" (want eval, grad, fit, plan, gen, demo or help)"},
		{[]string{"help", "grd"}, 2, "help: unknown command \"grd\" (did you mean grad?)"},
		{[]string{"grad", "-e", "x * y", "--wrt", "x", "--wrt", "x", "--in", "x=1", "--in", "y=2"}, 2,
			"invalid value \"x\" for flag -wrt: x is given twice"},
		{[]string{"eval", "-e", "x * 2.0", "--in", "x=1", "--in", "y=2"}, 0, "nablasd: warning: input y is not used by the program\n"},
		{[]string{"eval", "-e", "sum(<i, a> in x) a - 1.0", "--in", "x=synthetic:n=3,density=1,seed=1"}, 0,
			"nablasd: warning: 1:20: the body of the sum at 1:1 extends over '- 1.0', which uses none of the variables it binds: did you mean (sum …) - 1.0? (parenthesize the body if not)\n"},
		{[]string{"eval", "-e", "(sum(<i, a> in x) a) - 1.0", "--in", "x=synthetic:n=3,density=1,seed=1"}, 0, ""},
		{[]string{"eval", "-e", "summ(<i, a> in x) a", "--in", "x=1"}, 1, "nablasd: 1:1: unknown function or keyword summ (did you mean sum?)\n"},
		{[]string{"eval", "-e", "sum(<i, a> in x) logg(a)", "--in", "x=synthetic:n=3,density=1,seed=1"}, 1, "nablasd: 1:18: unknown function logg (did you mean log?)\n"},
		{[]string{"eval", "-e", "sum(<i, a> in x) frob(i)", "--in", "x=synthetic:n=3,density=1,seed=1"}, 1, "nablasd: 1:18: undefined: frob (bind it with --in frob=VALUE)\n"},
		{[]string{"eval", "-e", "pow(2.0)"}, 1, "nablasd: 1:8: expected ',' and a second argument: pow takes two, pow(x, y); found ')'\n"},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stderr, c.stderr) || c.stderr == "" && stderr != "" {
			t.Errorf("nablasd %q: exit %d, stderr %q; want exit %d, stderr containing %q", c.args, code, stderr, c.code, c.stderr)
		}
	}
}

// TestFunctionsFiniteDifferences: nablasd grad of each function of the
// language, in every executor, against central finite differences of
// nablasd eval.
func TestFunctionsFiniteDifferences(t *testing.T) {
	fns := map[string]string{
		"log1p":    "log1p(x * a)",
		"expm1":    "expm1(x * a)",
		"softplus": "softplus(x * a)",
		"sigmoid":  "sigmoid(x * a)",
		"abs":      "abs(x * a - 1.0)",
		"pow":      "pow(x * a, 3) + pow(x, a)",
		"max":      "max(x * a, 0.7)",
		"min":      "min(x * a, 0.7) + min(2.0, x)",
		"tanh":     "tanh(x * a)",
	}
	dir := t.TempDir()
	v := filepath.Join(dir, "v.mtx")
	os.WriteFile(v, []byte("%%MatrixMarket matrix array real general\n3 1\n0.25\n1.5\n-0.5\n"), 0o644)
	eval := func(prog, x string) float64 {
		code, out, stderr := runCLI("eval", "-e", prog, "--in", "x="+x, "--in", "v="+v)
		if code != 0 {
			t.Fatalf("eval %s: %s", prog, stderr)
		}
		f, err := parseFloat(out)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	const x0, h = 0.9, 1e-5
	for name, body := range fns {
		prog := "sum(<i, a> in v) " + body
		fd := (eval(prog, fmt.Sprint(x0+h)) - eval(prog, fmt.Sprint(x0-h))) / (2 * h)
		for _, variant := range [][]string{{}, {"--exec", "interp"}, {"--opt", "none"}, {"--opt", "rules"}} {
			args := append([]string{"grad", "-e", prog, "--wrt", "x", "--in", fmt.Sprint("x=", x0), "--in", "v=" + v}, variant...)
			code, out, stderr := runCLI(args...)
			if code != 0 {
				t.Fatalf("%s %v: %s", name, variant, stderr)
			}
			g, err := parseFloat(out)
			if err != nil {
				t.Fatal(err)
			}
			if math.Abs(g-fd) > 1e-6*math.Max(1, math.Abs(fd)) {
				t.Errorf("%s %v: grad %v, finite difference %v", name, variant, g, fd)
			}
		}
	}
}

func parseFloat(s string) (float64, error) {
	e, err := sdql.Parse("", strings.TrimSpace(s))
	if err != nil {
		return 0, err
	}
	v, err := sdql.Eval(e, nil)
	if err != nil {
		return 0, err
	}
	switch v := v.(type) {
	case sdql.Real:
		return float64(v), nil
	case sdql.Int:
		return float64(v), nil
	}
	return 0, fmt.Errorf("not a number: %s", s)
}

// TestMemoryLimitClean: a program that needs 7.3 TiB is a clean error
// (exit 1, one line), not the Go runtime's "out of memory" and a goroutine
// dump, with the process under a 4 GiB address-space limit, also without
// a budget (--memory-limit none, 0, 0B: issue 39); so is one whose size
// shows only as it grows, in both executors.
func TestMemoryLimitClean(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector reserves more address space than the limit")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		prog, exec, limit, want string
	}{
		// the default budget: 80% of half the address space, unless the
		// machine or its cgroup has less
		{"sum(<i, _> in (0:1000000000000)) { i -> 1.0 }", "compiled", "", " GiB\n"},
		{"sum(<i, _> in (0:1000000000000)) { i -> 1.0 }", "interp", "", " GiB\n"},
		// no budget: the memory available still bounds the result
		{"sum(<i, _> in (0:1000000000000)) { i -> 1.0 }", "compiled", "none", " GiB)\n"},
		{"sum(<i, _> in (0:1000000000000)) { i -> 1.0 }", "interp", "0", " GiB)\n"},
		{"sum(<i, _> in (0:1000000000000)) { i -> 1.0 }", "compiled", "0B", " GiB)\n"},
		// its size shows as it grows: grow it to a smaller limit
		{"sum(<i, _> in (0:1000000000000)) { i * i -> 1.0 }", "compiled", "256MiB", "over the memory limit of 256.0 MiB\n"},
		{"sum(<i, _> in (0:1000000000000)) { i * i -> 1.0 }", "interp", "256MiB", "over the memory limit of 256.0 MiB\n"},
	} {
		args := []string{"eval", "--exec", c.exec, "-e", c.prog}
		if c.limit != "" {
			args = append(args, "--memory-limit", c.limit)
		}
		cmd := osexec.Command("sh", append([]string{"-c", `ulimit -v 4194304 && exec "$@"`, "sh", exe}, args...)...)
		cmd.Env = append(os.Environ(), "NABLASD_RUN_MAIN=1")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := -1
		if ee, ok := err.(*osexec.ExitError); ok {
			code = ee.ExitCode()
		}
		head := "nablasd: 1:1: the result needs 7.3 TiB (1000000000000 entries), over the memory limit of "
		if c.limit != "" {
			head = "nablasd: 1:1: the result needs 7.3 TiB (1000000000000 entries), more than the memory available ("
		}
		if !strings.Contains(c.prog, "i * i") && !strings.HasPrefix(stderr.String(), head) {
			t.Errorf("%s (%s): stderr %q, want it to start %q", c.prog, c.exec, stderr.String(), head)
		}
		if code != 1 || !strings.HasSuffix(stderr.String(), c.want) || strings.Count(stderr.String(), "\n") != 1 {
			t.Errorf("%s (%s) under a 4 GiB address space: exit %d (%v), stderr %q; want exit 1 and %q", c.prog, c.exec, code, err, stderr.String(), c.want)
		}
	}
}

// TestOutputMode: --out and gen --out files are 0644 under the umask.
func TestOutputMode(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	out := filepath.Join(dir, "v.mtx")
	gen := filepath.Join(dir, "k.go")
	if code, _, stderr := runCLI("eval", "-e", "sum(<_, i> in (0:3)) { i -> 2.0 }", "--out", out); code != 0 {
		t.Fatal(stderr)
	}
	if code, _, stderr := runCLI("gen", "-e", "sum(<i, a> in V) a * a", "--in", "V=synthetic:n=20,density=0.5,seed=2", "--out", gen); code != 0 {
		t.Fatal(stderr)
	}
	for _, p := range []string{out, gen} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o640 {
			t.Errorf("%s: mode %v under umask 027, want -rw-r-----", p, st.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(out); string(b) != "%%MatrixMarket matrix coordinate real general\n% written by nablasd\n3 1 3\n1 1 2\n2 1 2\n3 1 2\n" {
		t.Errorf("--out wrote %q", b)
	}
}
