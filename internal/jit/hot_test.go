package jit

import (
	"fmt"
	"os/exec"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/gotool"
	"github.com/nablasd/nablasd/internal/hotloops"
)

// hotSource has functions, methods of both receivers, and closures in
// both, nested, deferred and started as goroutines (the compiler's own
// wrappers of the last two are not the source's), and fills whose loops
// start at different offsets: fillK has K statements before its loop.
func hotSource() []byte {
	var b strings.Builder
	b.WriteString(`package main

import "sync"

var sink int

type T struct{ n int }

func (t *T) Add(xs []int) { for _, x := range xs { t.n += x }; func() { t.n++ }() }

func (t T) Get() int { f := func() int { return t.n }; return f() }

func Run(n int, f func(int)) {
	var wg sync.WaitGroup
	wg.Add(n)
	for w := 0; w < n; w++ {
		go func(w int) {
			defer wg.Done()
			defer func() { _ = recover() }()
			f(w)
		}(w)
	}
	wg.Wait()
}

func Nest() int {
	a := func() int {
		b := func() int { return 1 }
		c := func() int { return b() + 1 }
		return c()
	}
	d := func() int { return a() }
	return d()
}
`)
	for k := 0; k < 8; k++ {
		fmt.Fprintf(&b, "\nfunc Fill%d(a []float64, x int) {\n\tif x > 3 {\n", k)
		for j := 0; j < k; j++ {
			fmt.Fprintf(&b, "\t\tsink += x * %d\n", j+3)
		}
		b.WriteString("\t}\n\tfor i := range a {\n\t\ta[i] = 1.5\n\t}\n}\n")
	}
	return []byte(b.String())
}

// buildHot builds hotSource into a plugin in a fresh cache, as Load does,
// and returns its path, its package path and the source.
func buildHot(t *testing.T) (so, pkg string, src []byte) {
	t.Helper()
	t.Setenv("NABLASD_JIT_CACHE", t.TempDir())
	src = hotSource()
	key := Key(src)
	so, err := build(key, src)
	if err != nil {
		t.Fatal(err)
	}
	return so, "nablasd.jit/k" + key, src
}

// gotoolOut runs go tool with args and returns its output.
func gotoolOut(t *testing.T, args ...string) string {
	t.Helper()
	gobin, err := gotool.Command()
	if err != nil {
		t.Skip(err)
	}
	out, err := exec.Command(gobin, append([]string{"tool"}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("go tool %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// TestHotProfileNames: the profile names every function, method and
// closure of the source as the compiler does: each function of the
// package in the built plugin (go tool nm) is in it, but for the wrappers
// the compiler adds around go and defer statements.
func TestHotProfileNames(t *testing.T) {
	if why := plugins(); why != "" {
		t.Skip(why)
	}
	so, pkg, src := buildHot(t)
	names, err := hotloops.Names(pkg, src)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	seen := 0
	for _, line := range strings.Split(gotoolOut(t, "nm", so), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[1] != "T" || !strings.HasPrefix(f[2], pkg+".") {
			continue
		}
		sym := f[2]
		if strings.Contains(sym, "gowrap") || strings.Contains(sym, "deferwrap") || strings.HasSuffix(sym, ".init") {
			continue
		}
		seen++
		if !want[sym] {
			t.Errorf("the plugin's function %s is not in the profile %q", sym, names)
		}
	}
	if seen < 10 {
		t.Errorf("only %d of the package's functions found in the plugin", seen)
	}
	prof := hotloops.Profile(names)
	if !strings.HasPrefix(string(prof), "GO PREPROFILE V1\n") || strings.Count(string(prof), "\n") != 1+3*len(names) {
		t.Errorf("profile:\n%s", prof)
	}
}

// TestLoopsAligned: in the built plugin, no FillK's loop straddles a
// 64-byte line (internal/hotloops). Built without the profile, at least one of the
// eight does on amd64 (checked by hand when this was written), so the
// test fails if the compiler stops aligning the loops of hot functions.
func TestLoopsAligned(t *testing.T) {
	if why := plugins(); why != "" {
		t.Skip(why)
	}
	if runtime.GOARCH != "amd64" && runtime.GOARCH != "386" {
		t.Skip("the compiler aligns hot loops on amd64 and 386 only")
	}
	so, pkg, _ := buildHot(t)
	// "  kernel.go:12  0x1c9475  7fea  JG 0x1c9461"
	ins := regexp.MustCompile(`^\s*\S+\s+0x([0-9a-f]+)\s+([0-9a-f]+)\s+(J[A-Z]+) 0x([0-9a-f]+)`)
	for k := 0; k < 8; k++ {
		name := fmt.Sprintf("%s.Fill%d", pkg, k)
		out := gotoolOut(t, "objdump", "-s", "^"+regexp.QuoteMeta(name)+"$", so)
		found := false
		for _, line := range strings.Split(out, "\n") {
			m := ins.FindStringSubmatch(line)
			if m == nil {
				continue
			}
			at, _ := strconv.ParseUint(m[1], 16, 64)
			to, _ := strconv.ParseUint(m[4], 16, 64)
			if to >= at {
				continue
			}
			// the loop: from the backward jump's target to its end
			end := at + uint64(len(m[2])/2)
			found = true
			if to/64 != (end-1)/64 {
				t.Errorf("Fill%d's loop 0x%x..0x%x straddles a 64-byte line", k, to, end)
			}
		}
		if !found {
			t.Errorf("Fill%d: no loop found in\n%s", k, out)
		}
	}
}
