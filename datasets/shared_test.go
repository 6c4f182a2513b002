package datasets

import (
	"os"
	"path/filepath"
	"testing"
)

// sharedDir returns the shared data folder (env NABLASD_SHARED, else
// ../../shared from the package directory), or skips the test.
func sharedDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv("NABLASD_SHARED")
	if dir == "" {
		dir = filepath.Join("..", "..", "shared")
	}
	ss := filepath.Join(dir, "datasets", "suitesparse")
	if _, err := os.Stat(filepath.Join(ss, "SOURCES.md")); err != nil {
		t.Skipf("shared data not found at %s (set NABLASD_SHARED to the shared folder): %v", ss, err)
	}
	return ss
}
