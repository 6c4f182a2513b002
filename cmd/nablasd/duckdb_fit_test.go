package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
)

// ridgeLogistic is a ridge logistic regression: a user's samples are A's
// rows (sparse features), its labels y.
const ridgeLogistic = `(sum(<i, r> in A)
   let z = sum(<j, a> in r) a * x(j) in
   log(1 + exp(z)) - y(i) * z)
+ 0.05 * sum(<j, v> in x) v * v`

// TestDuckDBFit fits a logistic regression per user, more than a
// thousand of them, between two ends of a real client: DuckDB writes the
// grouped Parquet inputs (and each user's rows as files of their own,
// PARTITION_BY), nablasd fit --group-by fits every user over one compiled
// kernel, and each user is also fitted alone, from its own files, through
// the API (Prepare and Minimize, a kernel compiled for it). DuckDB then
// reads the grouped output and finds it equal to the single fits row for
// row (values, losses and iterations), and computes the gradient at every
// fitted model in SQL, Aᵀ(σ(Ax) − y) + λx, which vanishes (a relative
// tolerance of 1e-7 of gradients of magnitude about 1; a few fits stop a
// little short of it, where the line search makes no more progress).
// Skipped under -short and without node, as TestDuckDB.
func TestDuckDBFit(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the DuckDB end-to-end test")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH: skipping the DuckDB end-to-end test")
	}
	modules := duckdbModules(t)
	script, err := filepath.Abs("testdata/duckdb_fit.cjs")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "groups"), 0o755); err != nil {
		t.Fatal(err)
	}
	duck := func(mode string) []byte {
		t.Helper()
		out, err := exec.Command(node, script, modules, mode, dir).Output()
		if err != nil {
			var stderr []byte
			if ee, ok := err.(*exec.ExitError); ok {
				stderr = ee.Stderr
			}
			t.Fatalf("duckdb %s: %v\n%s%s", mode, err, out, stderr)
		}
		return out
	}
	var made struct{ Groups float64 }
	if err := json.Unmarshal(duck("make"), &made); err != nil || made.Groups < 1000 {
		t.Fatalf("DuckDB wrote %v groups (%v)", made.Groups, err)
	}
	opts := []string{"--wrt", "x", "--mode", "reverse", "--exec", "compiled", "--tol", "1e-7"}
	args := append([]string{"fit", "-e", ridgeLogistic, "--in", "A=" + filepath.Join(dir, "A.parquet"),
		"--in", "y=" + filepath.Join(dir, "y.parquet"), "--init", "x=" + filepath.Join(dir, "x0.parquet") + ":dense",
		"--group-by", "g", "--out", filepath.Join(dir, "fit.parquet"), "--threads", "2"}, opts...)
	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("nablasd %q: exit %d\n%s%s", args, code, stdout, stderr)
	}
	t.Logf("nablasd: %s", strings.TrimSpace(stderr))

	// each user alone: its own files, its own kernel
	x0, _, err := batch.ReadTableInput("x", filepath.Join(dir, "x0.parquet")+":dense")
	if err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("g,i0,val,loss,iterations\n")
	for g := 1; g <= int(made.Groups); g++ {
		part := func(name, shape string) any {
			v, _, err := batch.ReadTableInput(name, filepath.Join(dir, "groups", name, fmt.Sprintf("g=%d", g), "data_0.parquet")+"?shape="+shape)
			if err != nil {
				t.Fatalf("user %d: %v", g, err)
			}
			return v
		}
		q, err := nablasd.Prepare(ridgeLogistic, nablasd.Inputs{"A": part("A", "24x6"), "y": part("y", "24"), "x": x0},
			&nablasd.Options{Mode: "reverse", Exec: "compiled"})
		if err != nil {
			t.Fatalf("user %d: %v", g, err)
		}
		fit, err := q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}, Tol: 1e-7})
		if err != nil {
			t.Fatalf("user %d: %v", g, err)
		}
		for j, v := range fit.Value("x") {
			fmt.Fprintf(&csv, "%d,%d,%s,%s,%d\n", g, j, strconv.FormatFloat(v, 'g', -1, 64),
				strconv.FormatFloat(fit.Loss, 'g', -1, 64), fit.Iterations)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "single.csv"), []byte(csv.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var res struct{ Rows, Groups, Missing, Unequal, MaxDiff, NotConverged, OtherParam, MaxGrad float64 }
	if out := duck("check"); json.Unmarshal(out, &res) != nil {
		t.Fatalf("duckdb check printed %q", out)
	}
	t.Logf("DuckDB: %+v", res)
	switch {
	case res.Groups != made.Groups || res.Rows != 6*made.Groups:
		t.Errorf("%v rows of %v users in the output, want 6 a user of %v", res.Rows, res.Groups, made.Groups)
	case res.Missing > 0 || res.OtherParam > 0:
		t.Errorf("%v rows of one side missing from the other, %v of another parameter", res.Missing, res.OtherParam)
	case res.Unequal > 0:
		t.Errorf("%v rows differ from the single fits' (by up to %g)", res.Unequal, res.MaxDiff)
	case res.NotConverged > res.Rows/100:
		t.Errorf("%v rows of fits that did not converge", res.NotConverged)
	case res.MaxGrad > 1e-5:
		t.Errorf("the gradient at the fits, computed in SQL, is up to %g", res.MaxGrad)
	}
}
