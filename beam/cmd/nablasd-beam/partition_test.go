package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestPartitionedMatchesLocal runs the least-squares loss and gradients
// over a 2M-entry matrix (400,000 × 50,000, CSR: some rows empty; a
// Parquet file of 8 row groups) split into 8 blocks of 50,000 rows on
// Prism, and compares them with nablasd's
// single-machine results (within Tolerance). b is read at the row only,
// so it is split along with A; x is broadcast. With -short (make test)
// every size is a tenth: the same 8 row groups and 8 blocks over 200,000
// entries.
func TestPartitionedMatchesLocal(t *testing.T) {
	scale := 1
	if testing.Short() {
		scale = 10
	}
	rows, cols, nnz := 400000/scale, 50000/scale, 2000000/scale
	dir := t.TempDir()
	mustRun(t, dir, localBin, "eval", "-e", "A", "--in", fmt.Sprintf("A=synthetic:rows=%d,cols=%d,nnz=%d,seed=3", rows, cols, nnz), "--out", "A.parquet")
	mustRun(t, dir, localBin, "eval", "-e", "b", "--in", fmt.Sprintf("b=synthetic:n=%d,density=0.5,seed=4", rows), "--out", "b.parquet")
	mustRun(t, dir, localBin, "eval", "-e", "x", "--in", fmt.Sprintf("x=synthetic:n=%d,density=1,seed=5:dense", cols), "--out", "x.parquet")
	// A in 8 row groups, whose boundaries are not the blocks': a block's
	// entries come from two splits
	if err := regroup(filepath.Join(dir, "A.parquet"), int64(1<<18/scale)); err != nil {
		t.Fatal(err)
	}
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	for _, c := range []struct {
		name string
		args []string
	}{
		// the gradient the issue names: Aᵀ(Ax − b)
		{"grad-x", []string{"grad", "-e", lsq, "--wrt", "x", "--in", "A=A.parquet", "--in", "b=b.parquet:dense", "--in", "x=x.parquet:dense"}},
		// the loss: CSR stores A's empty rows, and each adds ½b(i)²
		{"value", []string{"eval", "-e", lsq, "--in", "A=A.parquet", "--in", "b=b.parquet:dense", "--in", "x=x.parquet:dense"}},
		// the same with a target broadcast to every block: each of A's
		// rows, empty or not, must be in one block only
		{"value-target", []string{"eval", "-e", strings.ReplaceAll(lsq, "b(i)", "c"), "--in", "A=A.parquet", "--in", "c=0.25", "--in", "x=x.parquet:dense"}},
		// with respect to the input split along, on its stored positions
		{"grad-b", []string{"grad", "-e", lsq, "--wrt", "b", "--in", "A=A.parquet:coo", "--in", "b=b.parquet", "--in", "x=x.parquet:dense"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			local := filepath.Join(dir, c.name+"-local.parquet")
			out := filepath.Join(dir, c.name+".parquet")
			mustRun(t, dir, localBin, append(c.args, "--out", local)...)
			errs := mustRun(t, dir, beamBin, append(c.args, "--partition-rows", fmt.Sprint(rows/8), "--out", out)...)
			sameResult(t, out, local)
			if n := counter(errs, "blocks"); n != 8 {
				t.Errorf("blocks=%d, want 8\n%s", n, errs)
			}
			want := int64(nnz) // A's entries
			if strings.Contains(strings.Join(c.args, " "), "b=") {
				want += int64(rows / 2) // and b's (density 0.5), split along
			}
			if n := counter(errs, "entries_in"); n != want {
				t.Errorf("entries_in=%d, want %d\n%s", n, want, errs)
			}
			if n := counter(errs, "splits"); n < 8 {
				t.Errorf("splits=%d: A was not read in its 8 row groups\n%s", n, errs)
			}
			if !strings.Contains(errs, "shuffle_bytes=") {
				t.Errorf("no shuffle_bytes counter: %s", errs)
			}
		})
	}
}
