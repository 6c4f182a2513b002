package jit

import (
	"fmt"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// plugins reports why plugins cannot work here ("" when they can): no C
// compiler for cgo.
func plugins() string {
	if _, err := exec.LookPath("gcc"); err != nil {
		if _, err := exec.LookPath("cc"); err != nil {
			return "no C compiler (gcc or cc) on PATH: Go plugins need cgo"
		}
	}
	return ""
}

func source(scale int) []byte {
	return []byte(fmt.Sprintf(`package main

func Sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += %d * x
	}
	return s
}
`, scale))
}

// TestLoad builds two different sources into plugins in one process (each
// its own package path), calls them, and loads one again from the
// process's table; a build error comes back as an error naming go build.
func TestLoad(t *testing.T) {
	if why := plugins(); why != "" {
		t.Skip(why)
	}
	t.Setenv("NABLASD_JIT_CACHE", t.TempDir())
	var wg sync.WaitGroup
	for _, scale := range []int{2, 3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			syms, err := Load(source(scale), "Sum")
			if err != nil {
				t.Error(err)
				return
			}
			sum, ok := syms["Sum"].(func([]float64) float64)
			if !ok {
				t.Errorf("Sum is a %T", syms["Sum"])
				return
			}
			if got, want := sum([]float64{1, 2, 3}), float64(6*scale); got != want {
				t.Errorf("scale %d: Sum = %v, want %v", scale, got, want)
			}
		}()
	}
	wg.Wait()
	if _, err := Load(source(2), "Sum"); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(source(2), "Missing"); err == nil || !strings.Contains(err.Error(), "Missing") {
		t.Errorf("a missing symbol: error %v", err)
	}
	_, err := Load([]byte("package main\n\nfunc F() int { return undefined }\n"), "F")
	if err == nil || !strings.Contains(err.Error(), "go build") || !strings.Contains(err.Error(), "undefined") {
		t.Errorf("a source that does not compile: error %v", err)
	}
}

// TestKey: the cache key depends on the source.
func TestKey(t *testing.T) {
	if Key(source(2)) == Key(source(3)) || Key(source(2)) != Key(source(2)) {
		t.Error("Key does not tell sources apart")
	}
}
