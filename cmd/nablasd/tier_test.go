package main

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/internal/jit"
)

// TestExecAuto: a one-shot command with the default --exec auto runs the
// closures and builds nothing, however many --repeat runs; once --exec
// jit has built the kernel into the cache, the default runs it natively
// (--stats says executor=jit) and prints the same; NABLASD_JIT=off keeps
// the closures.
func TestExecAuto(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("NABLASD_JIT_CACHE", cache)
	t.Setenv("NABLASD_JIT", "")
	args := []string{"grad", "-e", "sum(<i, r> in A) sum(<j, a> in r) a * x(i) * x(j) * 0.8125", "--wrt", "x",
		"--in", "A=synthetic:rows=2000,cols=2000,nnz=60000,seed=3", "--in", "x=synthetic:n=2000,density=1,seed=4:dense", "--stats"}
	const repeat = 3000
	code, closures, stderr := runCLI(append(args, "--repeat", fmt.Sprint(repeat))...)
	if code != 0 || !strings.Contains(stderr, "executor=compiled\n") {
		t.Fatalf("the default: exit %d, stderr %q, want executor=compiled", code, stderr)
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
	if code != 0 || !strings.Contains(stderr, "executor=jit\n") {
		t.Fatalf("--exec jit: exit %d, stderr %q", code, stderr)
	}
	code, got, stderr := runCLI(args...)
	if code != 0 || !strings.Contains(stderr, "executor=jit\n") || got != native {
		t.Errorf("the default after --exec jit: exit %d, stderr %q, the same as --exec jit %v", code, stderr, got == native)
	}
	t.Setenv("NABLASD_JIT", "off")
	code, got, stderr = runCLI(args...)
	if code != 0 || !strings.Contains(stderr, "executor=compiled\n") || got != closures {
		t.Errorf("NABLASD_JIT=off: exit %d, stderr %q, the closures' result %v", code, stderr, got == closures)
	}
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
