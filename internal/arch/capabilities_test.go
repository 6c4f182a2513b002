package arch

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// formatNames are the built-in formats' variables in package formats.
const formatNames = `(COO|CSR|CSC|Dense|DenseCol|DCSR|CSF)`

// kindComparison matches code that asks which format a tensor is in: a
// comparison with, or a case on, a built-in format, or a comparison of a
// format's name.
var kindComparison = regexp.MustCompile(`(==|!=)\s*formats\.` + formatNames + `\b|formats\.` + formatNames + `\s*(==|!=)|case\s+formats\.` + formatNames + `\b|\.Name\(\)\s*(==|!=)\s*"`)

// findKindComparisons returns "file:line: text" for each format kind
// comparison in the non-test Go files under root, outside package formats.
func findKindComparisons(t *testing.T, root string) []string {
	t.Helper()
	var found []string
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if d.IsDir() {
			if rel == "formats" || strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if kindComparison.MatchString(code) {
				found = append(found, rel+":"+itoa(i+1)+": "+strings.TrimSpace(line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// TestCapabilitiesNotKinds: outside package formats no code asks which
// format a tensor is in; it asks what the format's levels can do
// (formats.LevelInfo's capabilities, Layout.AllDense, Tensor.AllRows).
// A level's kind is not exported, so the compiler already keeps it inside
// formats; this test catches comparisons of the formats themselves.
func TestCapabilitiesNotKinds(t *testing.T) {
	for _, f := range findKindComparisons(t, "../..") {
		t.Errorf("%s: ask the format's levels what they can do (formats.LevelInfo, Layout), not which format it is", f)
	}
}

// TestCapabilitiesCatch: the scan sees each form of the comparison.
func TestCapabilitiesCatch(t *testing.T) {
	for _, line := range []string{
		"if t.Format == formats.Dense {",
		"ok := formats.CSR != f",
		"case formats.Dense, formats.DenseCol:",
		`if f.Name() == "csr" {`,
	} {
		if !kindComparison.MatchString(line) {
			t.Errorf("not caught: %s", line)
		}
	}
	for _, line := range []string{
		"t, err := formats.FromCoords(shape, idx, val, formats.CSR)",
		"vecFormat := formats.Dense",
	} {
		if kindComparison.MatchString(line) {
			t.Errorf("caught, but it chooses a format rather than asking: %s", line)
		}
	}
}
