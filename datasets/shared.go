package datasets

import (
	"os"
	"path/filepath"
	"runtime"
)

// SharedDirs returns the folders, besides the cache (DataDir), where
// SuiteSparse matrices are looked for by name, in order:
// $NABLASD_SHARED/datasets/suitesparse, then shared/datasets/suitesparse
// next to (as ../shared of) the working directory or one of its parents,
// the module root this program was built from, and the executable's folder
// or one of its parents. Only existing folders are listed, once each.
func SharedDirs() []string {
	var out []string
	seen := map[string]bool{}
	add := func(dir string) {
		if abs, err := filepath.Abs(dir); err == nil {
			dir = abs
		}
		if st, err := os.Stat(dir); err == nil && st.IsDir() && !seen[dir] {
			seen[dir] = true
			out = append(out, dir)
		}
	}
	const rel = "shared/datasets/suitesparse"
	if d := os.Getenv("NABLASD_SHARED"); d != "" {
		add(filepath.Join(d, "datasets", "suitesparse"))
	}
	up := func(start string) {
		for dir := start; ; dir = filepath.Dir(dir) {
			add(filepath.Join(dir, "..", rel))
			if filepath.Dir(dir) == dir {
				return
			}
		}
	}
	if wd, err := os.Getwd(); err == nil {
		up(wd)
	}
	if _, file, _, ok := runtime.Caller(0); ok && filepath.IsAbs(file) {
		root := filepath.Dir(filepath.Dir(file)) // .../datasets/shared.go: the module root
		add(filepath.Join(root, "..", rel))
	}
	if exe, err := os.Executable(); err == nil {
		up(filepath.Dir(exe))
	}
	return out
}
