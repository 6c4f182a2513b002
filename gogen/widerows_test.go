package gogen_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/gotool"
)

// TestWideRowsBoundsChecked: the loops that read or store through wide
// rows (widerows.go) are the reason for them, and their speed rests on
// Go proving every index of their bodies in bounds. The test compiles
// the stencil's value and gradient, and a row read at offsets 0 and 3
// with another at 1 and 2 (rows of a smaller spread keep their segments), with
// the compiler's bounds-check report (-d=ssa/check_bce) and fails on a
// check left in a loop counting to a wide row's count. It fails, tried,
// when rows of every spread are made wide (y's, of spread 1, resliced to
// m + 1 beside x's of spread 3).
func TestWideRowsBoundsChecked(t *testing.T) {
	goCmd, err := gotool.Command()
	if err != nil {
		t.Skip(err)
	}
	const stencil = `sum(<i, _> in (1:n - 1)) sum(<j, _> in (1:m - 1))
  let d = U(i - 1)(j) + U(i + 1)(j) + U(i)(j - 1) + U(i)(j + 1) - 4 * U(i)(j) in
  d * d`
	dense := func(shape ...int) *formats.Tensor {
		n := 1
		for _, d := range shape {
			n *= d
		}
		val := make([]float64, n)
		for i := range val {
			val[i] = float64(i%7) / 3
		}
		return &formats.Tensor{Format: formats.Dense, Shape: shape, Val: val, Pos: make([][]int, len(shape)), Idx: make([][]int, len(shape))}
	}
	for _, c := range []struct {
		name, src, wrt string
		in             nablasd.Inputs
	}{
		{"stencil value", stencil, "", nablasd.Inputs{"U": dense(4, 5), "n": 4, "m": 5}},
		{"stencil gradient", stencil, "U", nablasd.Inputs{"U": dense(4, 5), "n": 4, "m": 5}},
		{"spreads 3 and 1", "sum(<i, _> in (1:n)) x(i) * x(i + 3) + y(i + 1) * y(i + 2)", "",
			nablasd.Inputs{"x": dense(9), "y": dense(9), "n": 5}},
	} {
		t.Run(c.name, func(t *testing.T) {
			src := generateWith(t, c.src, c.wrt, c.in)
			if !strings.Contains(src, "Wide") {
				t.Fatalf("no wide row:\n%s", src)
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "k.go"), []byte(src), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module k\n\ngo 1.24\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(goCmd, "build", "-gcflags=-d=ssa/check_bce/debug=1", ".")
			cmd.Dir = dir
			cmd.Env = gotool.Env(map[string]string{"GOFLAGS": "-mod=mod"})
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("build: %v\n%s", err, out)
			}
			checked := map[int]bool{}
			for _, m := range regexp.MustCompile(`k\.go:(\d+):\d+: Found IsInBounds`).FindAllStringSubmatch(string(out), -1) {
				n, _ := strconv.Atoi(m[1])
				checked[n] = true
			}
			lines := strings.Split(src, "\n")
			head := regexp.MustCompile(`^\s*for (k\d*) := 0; k\d* < (m\d*); k\d*\+\+ \{$`)
			loops := 0
			for i, l := range lines {
				if !head.MatchString(l) {
					continue
				}
				loops++
				indent := len(l) - len(strings.TrimLeft(l, "\t"))
				for j := i + 1; j < len(lines) && !strings.HasPrefix(lines[j], strings.Repeat("\t", indent)+"}"); j++ {
					if checked[j+1] {
						t.Errorf("k.go:%d: a bounds check in a wide row's loop: %s", j+1, strings.TrimSpace(lines[j]))
					}
				}
			}
			if loops == 0 {
				t.Fatalf("no loop counts to a wide row's count:\n%s", src)
			}
		})
	}
}

// generateWith generates the kernel of src (its gradient with respect to
// wrt, or its value) over the inputs, as `nablasd gen` does.
func generateWith(t *testing.T, src, wrt string, in nablasd.Inputs) string {
	t.Helper()
	q, err := nablasd.Prepare(src, in, &nablasd.Options{File: "wide.sdql"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: wrt, Func: "K", Package: "k"})
	if err != nil {
		t.Fatal(err)
	}
	return string(k.Source)
}
