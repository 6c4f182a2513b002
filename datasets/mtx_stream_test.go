package datasets

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestMatrixMarketWriter: the streaming writer writes what
// WriteMatrixMarket writes, and refuses a count other than the header's.
func TestMatrixMarketWriter(t *testing.T) {
	c := &Coords{Shape: []int{3, 4}, Idx: [][]int{{0, 2, 2}, {1, 0, 3}}, Val: []float64{1.5, -2, 0.1}}
	var want, got bytes.Buffer
	if err := WriteMatrixMarket(&want, c, nil); err != nil {
		t.Fatal(err)
	}
	mw, err := NewMatrixMarketWriter(&got, c.Shape, 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	for e, v := range c.Val {
		if err := mw.Write([]int{c.Idx[0][e], c.Idx[1][e]}, v); err != nil {
			t.Fatal(err)
		}
	}
	if err := mw.Close(); err != nil || got.String() != want.String() {
		t.Errorf("got %q (%v), want %q", got.String(), err, want.String())
	}
	if want.String() != "%%MatrixMarket matrix coordinate real general\n3 4 3\n1 2 1.5\n3 1 -2\n3 4 0.1\n" {
		t.Errorf("WriteMatrixMarket wrote %q", want.String())
	}
	mw, _ = NewMatrixMarketWriter(io.Discard, []int{3}, 2, nil)
	mw.Write([]int{0}, 1)
	if err := mw.Close(); err == nil || !strings.Contains(err.Error(), "1 entries written, the header announced 2") {
		t.Errorf("short count: %v", err)
	}
	if err := mw.Write([]int{3}, 1); err == nil || !strings.Contains(err.Error(), "out of range for 3 x 1") {
		t.Errorf("index out of range: %v", err)
	}
}

// TestWriteFileAtomicMode: written files are 0644 under the umask, as
// os.WriteFile(path, data, 0o644) makes them, not os.CreateTemp's 0600.
func TestWriteFileAtomicMode(t *testing.T) {
	dir := t.TempDir()
	for _, mask := range []int{0o022, 0o077, 0o002} {
		old := syscall.Umask(mask)
		path := filepath.Join(dir, "out.mtx")
		err := WriteFileAtomic(path, func(w io.Writer) error { _, err := w.Write([]byte("x")); return err })
		syscall.Umask(old)
		if err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if want := os.FileMode(0o644 &^ mask); st.Mode().Perm() != want {
			t.Errorf("umask %03o: mode %v, want %v", mask, st.Mode().Perm(), want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Errorf("temporary files left: %v", left)
	}
}

// TestSharedDirs: $NABLASD_SHARED's folder comes first, and folders are
// listed once.
func TestSharedDirs(t *testing.T) {
	dir := t.TempDir()
	ss := filepath.Join(dir, "datasets", "suitesparse")
	os.MkdirAll(ss, 0o755)
	t.Setenv("NABLASD_SHARED", dir)
	dirs := SharedDirs()
	if len(dirs) == 0 || dirs[0] != ss {
		t.Fatalf("SharedDirs() = %v, want %s first", dirs, ss)
	}
	seen := map[string]bool{}
	for _, d := range dirs {
		if seen[d] {
			t.Errorf("%s listed twice", d)
		}
		seen[d] = true
	}
}

// TestAppendReal: the fast path prints what strconv does.
func TestAppendReal(t *testing.T) {
	for _, v := range []float64{0, math.Copysign(0, -1), 1, -1, 7, 999999, -999999, 1e6, 1234567, 0.5, 1e-7, 1e21, math.Inf(1), math.NaN(), 123456.5} {
		if got, want := string(appendReal(nil, v)), strconv.FormatFloat(v, 'g', -1, 64); got != want {
			t.Errorf("appendReal(%v) = %q, want %q", v, got, want)
		}
	}
}

// BenchmarkMatrixMarketWriter: the writer alone (formatting and buffering
// into io.Discard), 10M vector entries of non-integer and integer values.
func BenchmarkMatrixMarketWriter(b *testing.B) {
	const n = 10_000_000
	for _, kind := range []string{"real", "integral"} {
		b.Run("values="+kind, func(b *testing.B) {
			var size countWriter
			write := func(w io.Writer) {
				mw, err := NewMatrixMarketWriter(w, []int{n}, n, nil)
				if err != nil {
					b.Fatal(err)
				}
				idx := []int{0}
				for i := 0; i < n; i++ {
					idx[0] = i
					v := float64(i%1000) / 7
					if kind == "integral" {
						v = float64(i % 1000)
					}
					if err := mw.Write(idx, v); err != nil {
						b.Fatal(err)
					}
				}
				if err := mw.Close(); err != nil {
					b.Fatal(err)
				}
			}
			write(&size)
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				write(io.Discard)
			}
		})
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
