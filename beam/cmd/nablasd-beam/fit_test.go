package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// TestGroupedFitMatchesLocal fits a ridge least squares per group on
// Prism, two parameters (a vector x from a shared start, a number c),
// over tables in many row groups, and compares the shards with nablasd fit
// --group-by's output: the same rows bit for bit (each group's fit runs
// the same step over the same tensors), the same columns and metadata.
// Bad flags are refused before anything runs.
func TestGroupedFitMatchesLocal(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	a.WriteString("g:int64 row:int64 col:int64 val:float64\n")
	b.WriteString("g:int64 i:int64 val:float64\n")
	for g := range 25 {
		if g == 7 {
			a.WriteString("7 null null null\n") // an empty group
		} else {
			for k := range 12 + g%9 {
				fmt.Fprintf(&a, "%d %d %d %d.%d\n", g, (g*k+3)%9, (k*k+g)%9, k%7-3, (g*k)%10)
			}
		}
		for i := range 9 {
			if (g+i)%3 != 0 {
				fmt.Fprintf(&b, "%d %d %d\n", g, i, (g*i)%11-5)
			}
		}
	}
	if err := tabletest.Write(filepath.Join(dir, "A.parquet"), a.String(), 40, map[string]string{datasets.MetaShape: "9,9"}); err != nil {
		t.Fatal(err)
	}
	if err := tabletest.Write(filepath.Join(dir, "b.arrow"), b.String(), 16, map[string]string{datasets.MetaShape: "9"}); err != nil {
		t.Fatal(err)
	}
	if err := tabletest.Write(filepath.Join(dir, "x.parquet"), "i:int64 val:float64\n0 1\n1 -2\n2 0.5\n5 3\n8 1.25\n", 0, map[string]string{datasets.MetaShape: "9"}); err != nil {
		t.Fatal(err)
	}
	ridge := "(sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) - c in 0.5 * d * d) + 0.1 * ((sum(<j, v> in x) v * v) + c * c)"
	args := []string{"fit", "-e", ridge, "--wrt", "x,c", "--in", "A=A.parquet", "--in", "b=b.arrow",
		"--init", "x=x.parquet:dense", "--init", "c=0.5", "--tol", "1e-8", "--group-by", "g"}
	local := filepath.Join(dir, "fit.parquet")
	mustRun(t, dir, localBin, append(args, "--exec", "compiled", "--out", local, "--quiet")...)
	out := filepath.Join(dir, "fit")
	errs := mustRun(t, dir, beamBin, append(args, "--out", out, "--shards", "3")...)
	checkShards(t, out, local)
	if n := counter(errs, "groups"); n != 25 {
		t.Errorf("groups=%d, want 25\n%s", n, errs)
	}
	if n := counter(errs, "splits"); n < 3 {
		t.Errorf("splits=%d: the tables were not read in their row groups\n%s", n, errs)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "-e", ridge, "--in", "A=A.parquet", "--group-by", "g", "--out", "o"}, "fit needs --wrt"},
		{[]string{"fit", "-e", ridge, "--wrt", "x", "--in", "A=A.parquet", "--partition-rows", "10", "--out", "o.parquet"}, "fit fits one model per group"},
		{[]string{"fit", "-e", ridge, "--wrt", "x", "--in", "A=A.parquet", "--group-by", "g", "--out", "o", "--method", "newton"}, `--method "newton"`},
		{[]string{"fit", "-e", ridge, "--wrt", "x,c", "--in", "A=A.parquet", "--in", "b=b.arrow", "--init", "x=x.parquet", "--group-by", "g", "--out", "o"}, "--wrt c: give its start with --init c=VALUE"},
		{[]string{"fit", "-e", ridge, "--wrt", "y", "--in", "A=A.parquet", "--in", "b=b.arrow", "--in", "x=x.parquet", "--in", "c=1", "--init", "y=1", "--group-by", "g", "--out", "o"}, "--wrt y: y is not an input of the program"},
	} {
		code, _, stderr := runIn(dir, beamBin, c.args...)
		if code == 0 || !strings.Contains(stderr, c.want) {
			t.Errorf("nablasd-beam %q: exit %d, %s; want %q", c.args, code, stderr, c.want)
		}
	}
}
