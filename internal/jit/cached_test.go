package jit

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestLoadCached: LoadCached finds nothing before a build, never builds,
// and finds the plugin after one: in the process's table, and in the
// cache once the table has forgotten it (as another process would).
func TestLoadCached(t *testing.T) {
	if why := plugins(); why != "" {
		t.Skip(why)
	}
	if err := Available(); err != nil {
		t.Fatalf("a C compiler is on PATH, but Available says %v", err)
	}
	t.Setenv("NABLASD_JIT_CACHE", t.TempDir())
	src := source(int(time.Now().UnixNano() % 1e6)) // not opened by this process before
	syms, found, err := LoadCached(src, "Sum")
	if syms != nil || found || err != nil {
		t.Fatalf("before a build: %v, %v, %v; want a miss", syms, found, err)
	}
	if dirs, _ := os.ReadDir(CacheDir()); len(dirs) != 0 {
		t.Fatalf("LoadCached built something: %v", dirs)
	}
	if _, err := Load(src, "Sum"); err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"the process's table", "the cache"} {
		if where == "the cache" {
			mu.Lock()
			delete(opened, Key(src))
			mu.Unlock()
		}
		syms, found, err = LoadCached(src, "Sum")
		if !found || err != nil {
			t.Fatalf("from %s: found %v, error %v", where, found, err)
		}
		if sum, ok := syms["Sum"].(func([]float64) float64); !ok || sum([]float64{1}) == 0 {
			t.Errorf("from %s: Sum is a %T", where, syms["Sum"])
		}
		if _, found, err := LoadCached(src, "Missing"); !found || err == nil || !strings.Contains(err.Error(), "Missing") {
			t.Errorf("from %s, a missing symbol: found %v, error %v", where, found, err)
		}
	}
}

// TestKilledBuild: a process that ends while it builds a plugin leaves no
// toolchain process behind (go build, compile, link, the C compiler) and
// nothing in the cache but its build directory, which a later build
// sweeps once it is stale.
func TestKilledBuild(t *testing.T) {
	if os.Getenv("NABLASD_JIT_TEST_CHILD") == "1" {
		// the child: start a build that takes a while (a large source),
		// end the process while go build runs
		go Load(slowSource(), "F0")
		for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
			if ws, _ := filepath.Glob(filepath.Join(CacheDir(), "build-*", "go-build*")); len(ws) > 0 {
				time.Sleep(50 * time.Millisecond) // go build is at work
				os.Exit(0)
			}
		}
		os.Exit(3)
	}
	if runtime.GOOS != "linux" {
		t.Skip("only Linux ties a build's life to its process (Pdeathsig)")
	}
	if why := plugins(); why != "" {
		t.Skip(why)
	}
	cache := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKilledBuild$")
	cmd.Env = append(os.Environ(), "NABLASD_JIT_TEST_CHILD=1", "NABLASD_JIT_CACHE="+cache)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("the child: %v\n%s", err, out)
	}
	// the shell that ran go build kills its group on SIGTERM: give it a
	// moment (the build itself takes seconds), then look for a process
	// working in the cache
	var left []string
	for deadline := time.Now().Add(300 * time.Millisecond); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if left = processesIn(cache); len(left) == 0 {
			break
		}
	}
	if len(left) > 0 {
		t.Errorf("processes left building in the cache: %v", left)
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "build-") {
			// the build finished before the process ended: whole
			so := filepath.Join(cache, e.Name(), "kernel.so")
			if st, err := os.Stat(so); err != nil || st.Size() == 0 {
				t.Errorf("a partial cache entry %s: %v", e.Name(), err)
			}
			continue
		}
		old := time.Now().Add(-2 * staleBuild)
		if err := os.Chtimes(filepath.Join(cache, e.Name()), old, old); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("NABLASD_JIT_CACHE", cache)
	sweep()
	if left, _ := filepath.Glob(filepath.Join(cache, "build-*")); len(left) > 0 {
		t.Errorf("stale build directories not swept: %v", left)
	}
}

// processesIn lists the processes whose working directory or command
// line is under dir.
func processesIn(dir string) []string {
	procs, _ := filepath.Glob("/proc/[0-9]*")
	var out []string
	for _, p := range procs {
		cwd, _ := os.Readlink(filepath.Join(p, "cwd"))
		cmdline, _ := os.ReadFile(filepath.Join(p, "cmdline"))
		if strings.HasPrefix(cwd, dir) || strings.Contains(string(cmdline), dir) {
			out = append(out, fmt.Sprintf("%s: %s", filepath.Base(p), strings.ReplaceAll(string(cmdline), "\x00", " ")))
		}
	}
	return out
}

// slowSource is a source that takes go build seconds: thousands of
// functions, new to the build cache.
func slowSource() []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "package main\n\n// %d\n", time.Now().UnixNano())
	for i := 0; i < 4000; i++ {
		fmt.Fprintf(&b, "func F%d(x []float64) float64 {\n\ts := 0.0\n\tfor i, v := range x {\n\t\tif i%%%d == 1 {\n\t\t\ts += v * %d\n\t\t}\n\t}\n\treturn s\n}\n\n", i, i+2, i)
	}
	return []byte(b.String())
}

// TestNotes: a note is kept beside a cached plugin only, read back whole,
// replaced by a later one; bad names and missing plugins are refused.
func TestNotes(t *testing.T) {
	t.Setenv("NABLASD_JIT_CACHE", t.TempDir())
	src := []byte("package main\n// notes\n")
	if err := WriteNote(src, "verdict", []byte("x")); err == nil {
		t.Error("a note without its plugin was written")
	}
	if _, ok := ReadNote(src, "verdict"); ok {
		t.Error("a note without its plugin was read")
	}
	// a plugin in the cache, as build publishes it
	dir := filepath.Join(CacheDir(), Key(src))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "kernel.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, data := range []string{"native\nfirst", "closures\nsecond"} {
		if err := WriteNote(src, "verdict-t1", []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, ok := ReadNote(src, "verdict-t1"); !ok || string(got) != data {
			t.Errorf("read %q %v, want %q", got, ok, data)
		}
	}
	for _, bad := range []string{"", "../x", "a/b", "a.b"} {
		if err := WriteNote(src, bad, nil); err == nil {
			t.Errorf("note name %q accepted", bad)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("the plugin's directory holds %d files, want the plugin and one note", len(entries))
	}
}
