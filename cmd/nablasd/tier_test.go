package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/internal/jit"
)

// TestExecAuto: a one-shot command with the default --exec auto runs the
// closures and builds nothing, however many --repeat runs, and --stats
// says why; once --exec jit has built the kernel into the cache, the
// default runs it natively (--stats says executor=jit, measuring) and
// prints the same. A run long enough to measure both decides, and a run
// after it reports the executor that decision kept, saying so, or
// measures again (from a native run) when the decision was an early one,
// which is not kept; the executor reported is the one that ran the last
// run. NABLASD_JIT=off keeps the closures.
func TestExecAuto(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("NABLASD_JIT_CACHE", cache)
	t.Setenv("NABLASD_JIT", "")
	args := []string{"grad", "-e", "sum(<i, r> in A) sum(<j, a> in r) a * x(i) * x(j) * 0.8125", "--wrt", "x",
		"--in", "A=synthetic:rows=2000,cols=2000,nnz=60000,seed=3", "--in", "x=synthetic:n=2000,density=1,seed=4:dense", "--stats"}
	const repeat = 3000
	code, closures, stderr := runCLI(append(args, "--repeat", fmt.Sprint(repeat))...)
	if code != 0 || !strings.Contains(stderr, `executor=compiled reason="off: not in the JIT cache`) {
		t.Fatalf("the default: exit %d, stderr %q, want executor=compiled, not in the cache", code, stderr)
	}
	if entries, _ := os.ReadDir(cache); len(entries) != 0 {
		t.Errorf("a one-shot command built into the cache: %v", entries)
	}
	var compileMs, runMs float64
	fmt.Sscanf(stderr, "compile_ms=%g run_ms=%g", &compileMs, &runMs)
	if ran := time.Duration(runMs * repeat * float64(time.Millisecond)); ran < nablasd.DefaultJITAfter {
		t.Logf("the closures ran %v, less than the default JITAfter: a build was not in question", ran)
	}
	if err := jit.Available(); err != nil {
		t.Skip(err)
	}
	code, native, stderr := runCLI(append(args, "--exec", "jit")...)
	if code != 0 || !strings.Contains(stderr, `executor=jit reason="--exec jit"`) {
		t.Fatalf("--exec jit: exit %d, stderr %q", code, stderr)
	}
	code, got, stderr := runCLI(args...)
	if code != 0 || !strings.Contains(stderr, `executor=jit reason="measuring: the native kernel was in the JIT cache`) || got != native {
		t.Errorf("the default after --exec jit: exit %d, stderr %q, the same as --exec jit %v", code, stderr, got == native)
	}
	// long enough to decide
	code, _, stderr = runCLI(append(args, "--repeat", "40")...)
	executor, reason := statsExecutor(stderr)
	if code != 0 || !strings.HasPrefix(reason, "decided: ") {
		t.Fatalf("40 runs: exit %d, stderr %q, want a decision", code, stderr)
	}
	kept := strings.Contains(reason, "of 5 and 5 timed runs")
	code, got, stderr = runCLI(args...)
	again, why := statsExecutor(stderr)
	switch {
	case code != 0:
		t.Errorf("after the decision: exit %d, stderr %q", code, stderr)
	case kept && (again != executor || !strings.Contains(why, "an earlier run measured")):
		t.Errorf("after a full decision for %s (%s): %s (%s), want the decision kept", executor, reason, again, why)
	case !kept && (again != "jit" || !strings.HasPrefix(why, "measuring: ")):
		t.Errorf("after an early decision for %s (%s): %s (%s), want a new measurement", executor, reason, again, why)
	case again == "jit" && got != native || again == "compiled" && got != closures:
		t.Errorf("after the decision: %s printed another result than --exec %s", again, again)
	}
	t.Setenv("NABLASD_JIT", "off")
	code, got, stderr = runCLI(args...)
	if code != 0 || !strings.Contains(stderr, `executor=compiled reason="off: NABLASD_JIT=off"`) || got != closures {
		t.Errorf("NABLASD_JIT=off: exit %d, stderr %q, the closures' result %v", code, stderr, got == closures)
	}
}

// statsExecutor returns the executor and the reason of a --stats line.
func statsExecutor(stderr string) (executor, reason string) {
	_, rest, _ := strings.Cut(stderr, "executor=")
	executor, rest, _ = strings.Cut(rest, " ")
	if _, q, ok := strings.Cut(rest, "reason="); ok {
		if line, _, _ := strings.Cut(q, "\n"); line != "" {
			reason, _ = strconv.Unquote(line)
		}
	}
	return executor, reason
}

// TestExecHelp: --help says what auto does and how to get native code.
func TestExecHelp(t *testing.T) {
	help := commandHelp("grad")
	for _, want := range []string{"--exec EXECUTOR", "auto (the kernel compiler's closures, or the native kernel when the JIT's cache holds it: --exec jit builds and caches it once", "(default auto)"} {
		if !strings.Contains(help, want) {
			t.Errorf("grad's help lacks %q", want)
		}
	}
	if !strings.Contains(usage(), "NABLASD_JIT=off") {
		t.Error("the usage does not mention NABLASD_JIT=off")
	}
}
