package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// duckdbPackage is the npm package of DuckDB's Node.js client the test
// installs (a pinned version: the test's SQL is checked against it).
const duckdbPackage = "@duckdb/node-api@1.5.6-r.1"

// TestDuckDB runs grouped gradient jobs between two ends of a real
// client: DuckDB (its Node.js package, with the machine's node) writes
// the Parquet inputs, not sorted by the key (nablasd sorts them, as
// DuckDB's GROUP BY takes any order), the built nablasd binary runs the
// jobs, and DuckDB
// reads the outputs and compares them with the same quantities computed
// in SQL: per graph, the column sums of A (the SMVM gradient) and
// Aᵀ(Ax − b) (the least-squares gradient). The npm package is installed
// once into the user cache folder (…/nablasd/npm), never into the
// repository. Without node on PATH the test says so and skips.
func TestDuckDB(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the DuckDB end-to-end test")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: skipping the DuckDB end-to-end test")
	}
	modules := duckdbModules(t)
	script, err := filepath.Abs("testdata/duckdb.cjs")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "nablasd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %q: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run(node, script, modules, "make", dir)
	smvm := "sum(<i, r> in A) sum(<j, a> in r) a * x(j)"
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	stats := run(bin, "grad", "-e", smvm, "--wrt", "x", "--in", "A=A.parquet", "--in", "x=x.parquet:dense",
		"--group-by", "graph", "--out", "g.parquet", "--quiet", "--stats")
	stats += run(bin, "grad", "-e", lsq, "--wrt", "x", "--in", "A=A.parquet:csc", "--in", "b=b.parquet?shape=60",
		"--in", "x=x.parquet:dense", "--group-by", "graph", "--out", "r.parquet", "--threads", "2", "--quiet", "--stats")
	if !strings.Contains(stats, `sorted="A"`) || !strings.Contains(stats, `sorted="A,b"`) {
		t.Errorf("the jobs' --stats: %q; want the tables DuckDB wrote sorted by nablasd", stats)
	}
	cmd := exec.Command(node, script, modules, "check", dir)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("duckdb check: %v\n%s%s", err, out, stderr)
	}
	type cmp struct{ Rows, Groups, MaxDiff, Missing float64 }
	var res struct {
		SMVM     cmp `json:"smvm"`
		LSQ      cmp `json:"lsq"`
		GraphsA  float64
		GraphsAb float64
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb check printed %q: %v", out, err)
	}
	t.Logf("DuckDB: %+v", res)
	for _, c := range []struct {
		name   string
		c      cmp
		groups float64
	}{{"SMVM gradient (column sums)", res.SMVM, res.GraphsA}, {"Aᵀ(Ax − b)", res.LSQ, res.GraphsAb}} {
		switch {
		case c.c.Rows < 1000:
			t.Errorf("%s: only %v rows compared", c.name, c.c.Rows)
		case c.c.Groups != c.groups || c.groups < 40:
			t.Errorf("%s: %v graphs in nablasd's output, want %v", c.name, c.c.Groups, c.groups)
		case c.c.Missing > 0:
			t.Errorf("%s: %v values DuckDB computed are missing from nablasd's output", c.name, c.c.Missing)
		case c.c.MaxDiff > 1e-9:
			t.Errorf("%s: nablasd and DuckDB differ by up to %g (relative)", c.name, c.c.MaxDiff)
		}
	}
}

// duckdbModules returns the node_modules folder holding DuckDB's Node.js
// client, installing it into the user cache folder on first use.
func duckdbModules(t *testing.T) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	prefix := filepath.Join(cache, "nablasd", "npm")
	modules := filepath.Join(prefix, "node_modules")
	stamp := filepath.Join(prefix, "installed-"+filepath.Base(duckdbPackage))
	if _, err := os.Stat(stamp); err == nil {
		return modules
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("node is on PATH but npm is not: skipping the DuckDB end-to-end test")
	}
	if err := os.MkdirAll(prefix, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Logf("installing %s into %s", duckdbPackage, prefix)
	cmd := exec.Command(npm, "install", "--prefix", prefix, "--no-save", "--no-audit", "--no-fund", duckdbPackage)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s: %v\n%s", duckdbPackage, err, out)
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return modules
}
