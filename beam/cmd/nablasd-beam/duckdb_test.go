package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// duckdbPackage is the npm package of DuckDB's Node.js client (the
// version cmd/nablasd's TestDuckDB pins, and its cache folder).
const duckdbPackage = "@duckdb/node-api@1.5.6-r.1"

// TestDuckDB runs grouped gradient jobs between two ends of a real
// client, on Prism: DuckDB writes a grouped Parquet dataset (in several
// row groups), nablasd-beam runs the jobs, and DuckDB reads the output
// shards and compares them with the same quantities computed in SQL (per
// graph, the column sums of A and Aᵀ(Ax − b)) and with nablasd's
// single-machine outputs (the same rows). The npm package is installed
// once into the user cache folder. Without node on PATH the test says so
// and skips.
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
	mustRun(t, dir, node, script, modules, "make", dir)
	smvm := "sum(<i, r> in A) sum(<j, a> in r) a * x(j)"
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	jobs := [][]string{
		{"grad", "-e", smvm, "--wrt", "x", "--in", "A=A.parquet", "--in", "x=x.parquet:dense", "--group-by", "graph"},
		{"grad", "-e", lsq, "--wrt", "x", "--in", "A=A.parquet:csc", "--in", "b=b.parquet?shape=60", "--in", "x=x.parquet:dense", "--group-by", "graph"},
	}
	for i, out := range []string{"g", "r"} {
		mustRun(t, dir, localBin, append(jobs[i], "--out", out+".parquet", "--quiet")...)
		mustRun(t, dir, beamBin, append(jobs[i], "--out", out, "--shards", "5")...)
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
		SMVM                    cmp `json:"smvm"`
		LSQ                     cmp `json:"lsq"`
		GraphsA, GraphsAb       float64
		RowGroupsA              float64
		SMVMVsLocal, LSQVsLocal float64
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("duckdb check printed %q: %v", out, err)
	}
	t.Logf("DuckDB: %+v", res)
	if res.RowGroupsA < 3 {
		t.Errorf("A.parquet has %v row groups: the job should read several splits", res.RowGroupsA)
	}
	for _, c := range []struct {
		name   string
		c      cmp
		groups float64
		local  float64
	}{{"SMVM gradient (column sums)", res.SMVM, res.GraphsA, res.SMVMVsLocal}, {"Aᵀ(Ax − b)", res.LSQ, res.GraphsAb, res.LSQVsLocal}} {
		switch {
		case c.c.Rows < 1000:
			t.Errorf("%s: only %v rows compared", c.name, c.c.Rows)
		case c.c.Groups != c.groups || c.groups < 60:
			t.Errorf("%s: %v graphs in the shards, want %v", c.name, c.c.Groups, c.groups)
		case c.c.Missing > 0:
			t.Errorf("%s: %v values DuckDB computed are missing from the shards", c.name, c.c.Missing)
		case c.c.MaxDiff > 1e-9:
			t.Errorf("%s: the shards and DuckDB differ by up to %g (relative)", c.name, c.c.MaxDiff)
		case c.local != 0:
			t.Errorf("%s: %v rows differ between the shards and nablasd's single-machine output", c.name, c.local)
		}
	}
}

// duckdbModules returns the node_modules folder holding DuckDB's Node.js
// client, installing it into the user cache folder on first use (the
// folder cmd/nablasd's TestDuckDB uses).
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
		t.Skipf("npm install %s failed (offline?): skipping the DuckDB end-to-end test: %v\n%s", duckdbPackage, err, out)
	}
	if err := os.WriteFile(stamp, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return modules
}
