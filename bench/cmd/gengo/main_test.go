package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestUpToDate: bench/gen is what gengo writes from the engine as it is
// (run `go run ./bench/cmd/gengo` after a change to the generated Go).
// The kernels there are the generated Go the benchmarks time; a stale
// copy times the code of an earlier engine. It fails, tried, with one
// line of a kernel there changed.
func TestUpToDate(t *testing.T) {
	dir := t.TempDir()
	if err := generate(dir); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("gengo wrote %d files", len(files))
	}
	for _, f := range files {
		want, err := os.ReadFile(filepath.Join(dir, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(filepath.Join("..", "..", "gen", f.Name()))
		if err != nil {
			t.Errorf("bench/gen lacks %s: run go run ./bench/cmd/gengo", f.Name())
			continue
		}
		if !bytes.Equal(have, want) {
			t.Errorf("bench/gen/%s is stale: run go run ./bench/cmd/gengo", f.Name())
		}
	}
}
