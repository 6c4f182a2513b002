package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteNpy: the .npy header is NumPy's format 1.0 (magic, version, a
// header padded to a multiple of 64 bytes, ending in a newline), and
// where NumPy is installed it reads the arrays back exactly.
func TestWriteNpy(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "f.npy")
	if err := writeNpy(f, []int{2, 3}, []float64{1, -0.1, 3e-300, 4, 5.5, 6}, nil); err != nil {
		t.Fatal(err)
	}
	i := filepath.Join(dir, "i.npy")
	if err := writeNpy(i, []int{3}, nil, []int{7, -1, 1 << 40}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(f)
	if err != nil {
		t.Fatal(err)
	}
	n := int(b[8]) | int(b[9])<<8
	if string(b[:8]) != "\x93NUMPY\x01\x00" || (10+n)%64 != 0 || b[10+n-1] != '\n' || len(b) != 10+n+6*8 ||
		!strings.HasPrefix(string(b[10:]), "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }") {
		t.Fatalf("header %q", b[:10+n])
	}
	py := ""
	for _, c := range []string{"/usr/bin/python3", "python3"} {
		if p, err := exec.LookPath(c); err == nil && exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with NumPy: the files' contents are not checked by it")
	}
	out, err := exec.Command(py, "-c", `import sys, numpy as np
f, i = np.load(sys.argv[1]), np.load(sys.argv[2])
print(f.shape, f.dtype, f.tolist(), i.dtype, i.tolist())`, f, i).CombinedOutput()
	want := "(2, 3) float64 [[1.0, -0.1, 3e-300], [4.0, 5.5, 6.0]] int64 [7, -1, 1099511627776]\n"
	if err != nil || string(out) != want {
		t.Errorf("NumPy read %q (%v), want %q", out, err, want)
	}
}
