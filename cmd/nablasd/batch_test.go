package main

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
	"github.com/nablasd/nablasd/sdql"
)

// groupedData writes a random table A (graph, row, col, val) of the given
// shape with groups of random size, sorted by graph, one with no entries
// (an all-null row), and a table b (graph, i, val) with a group A lacks;
// it returns each group's rows of A and of b as tables of their own.
func groupedData(t *testing.T, dir string, r *rand.Rand, groups, n int) (perA, perB map[int]string) {
	perA, perB, _, _ = groupedTables(t, dir, r, groups, n)
	return perA, perB
}

// groupedTables is groupedData, which also returns the texts of A and b.
func groupedTables(t *testing.T, dir string, r *rand.Rand, groups, n int) (perA, perB map[int]string, aText, bText string) {
	var a, b strings.Builder
	a.WriteString("graph:int64 row:int64 col:int64 val:float64\n")
	b.WriteString("graph:int64 i:int64 val:float64\n")
	perA, perB = map[int]string{}, map[int]string{}
	for g := 1; g <= groups; g++ {
		var ga, gb strings.Builder
		ga.WriteString("row:int64 col:int64 val:float64\n")
		gb.WriteString("i:int64 val:float64\n")
		entries := r.IntN(3 * n)
		if g == 2 {
			entries = 0
			a.WriteString("2 null null null\n") // a group without entries
		}
		for range entries {
			i, j, v := r.IntN(n), r.IntN(n), float64(r.IntN(9)-4)+0.25
			fmt.Fprintf(&a, "%d %d %d %g\n", g, i, j, v)
			fmt.Fprintf(&ga, "%d %d %g\n", i, j, v)
		}
		if g != 3 {
			for i := range n {
				if r.IntN(2) == 0 {
					v := float64(r.IntN(5)) - 1.5
					fmt.Fprintf(&b, "%d %d %g\n", g, i, v)
					fmt.Fprintf(&gb, "%d %g\n", i, v)
				}
			}
		}
		perA[g], perB[g] = ga.String(), gb.String()
	}
	// graph groups+1: b only
	fmt.Fprintf(&b, "%d 0 1\n", groups+1)
	perA[groups+1], perB[groups+1] = "row:int64 col:int64 val:float64\n", "i:int64 val:float64\n0 1\n"
	meta := map[string]string{datasets.MetaShape: fmt.Sprintf("%d,%d", n, n)}
	if err := tabletest.Write(filepath.Join(dir, "A.parquet"), a.String(), 7, meta); err != nil {
		t.Fatal(err)
	}
	if err := tabletest.Write(filepath.Join(dir, "b.arrows"), b.String(), 5, map[string]string{datasets.MetaShape: fmt.Sprint(n)}); err != nil {
		t.Fatal(err)
	}
	var x strings.Builder
	x.WriteString("i:int64 val:float64\n")
	for i := range n {
		fmt.Fprintf(&x, "%d %g\n", i, float64(i%3)+0.5)
	}
	if err := tabletest.Write(filepath.Join(dir, "x.arrow"), x.String(), 0, nil); err != nil {
		t.Fatal(err)
	}
	return perA, perB, a.String(), b.String()
}

// readGroups reads a grouped output table: each key's value.
func readGroups(t *testing.T, path, key string) map[int64]sdql.Value {
	g, err := datasets.OpenGroups(key, []datasets.GroupInput{{Name: "out", Path: path, Format: formats.COO}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	out := map[int64]sdql.Value{}
	for {
		grp, err := g.Next(nil)
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		tt := grp.Inputs["out"]
		if tt.Tensor == nil {
			out[grp.Key.Int] = sdql.Real(tt.Scalar)
		} else {
			out[grp.Key.Int] = formats.ToValue(tt.Tensor)
		}
	}
}

// TestBatchAgainstSingleRuns runs grouped jobs (eval and grad, several
// formats, executors and worker counts) and checks every group's result
// against the reference interpreter's on that group's rows alone, read
// from tables of their own (--exec interp --opt none, no --group-by).
func TestBatchAgainstSingleRuns(t *testing.T) {
	dir := t.TempDir()
	const groups, n = 6, 5
	perA, perB := groupedData(t, dir, rand.New(rand.NewPCG(7, 8)), groups, n)
	for g := 1; g <= groups+1; g++ {
		if err := tabletest.Write(filepath.Join(dir, fmt.Sprintf("A%d.arrow", g)), perA[g], 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := tabletest.Write(filepath.Join(dir, fmt.Sprintf("b%d.arrow", g)), perB[g], 0, nil); err != nil {
			t.Fatal(err)
		}
	}
	smvm := "sum(<i, r> in A) sum(<j, a> in r) a * x(j)"
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	for _, c := range []struct {
		cmd, prog, wrt string
		aFormat        string
		flags          []string
	}{
		{"grad", smvm, "x", "csr", nil},
		{"grad", smvm, "x", "csc", []string{"--threads", "2"}},
		{"grad", smvm, "A", "coo", nil},
		{"grad", lsq, "x", "csr", []string{"--threads", "3"}},
		{"grad", lsq, "x", "dense", []string{"--exec", "interp"}},
		{"grad", lsq, "b", "dcsr", []string{"--opt", "rules"}},
		{"eval", lsq, "", "csr", nil},
		{"eval", "sum(<i, r> in A) sum(<j, a> in r) { j -> a * b(i) }", "", "csc", []string{"--threads", "2"}},
		{"eval", "sum(<i, r> in A) sum(<j, a> in r) { i -> { j -> a * x(j) } }", "", "coo", nil},
	} {
		name := fmt.Sprintf("%s/wrt=%s/%s/%s/%s", c.cmd, c.wrt, c.prog[:min(len(c.prog), 30)], c.aFormat, strings.Join(c.flags, " "))
		t.Run(name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.arrow")
			args := []string{c.cmd, "-e", c.prog, "--in", "A=" + filepath.Join(dir, "A.parquet") + ":" + c.aFormat,
				"--in", "b=" + filepath.Join(dir, "b.arrows"), "--in", "x=" + filepath.Join(dir, "x.arrow") + ":dense",
				"--group-by", "graph", "--out", out}
			if c.wrt != "" {
				args = append(args, "--wrt", c.wrt)
			}
			args = append(args, c.flags...)
			if code, stdout, stderr := runCLI(args...); code != 0 {
				t.Fatalf("nablasd %q: exit %d\n%s%s", args, code, stdout, stderr)
			}
			got := readGroups(t, out, "graph")
			if len(got) != groups+1 {
				t.Errorf("%d groups in the output, want %d", len(got), groups+1)
			}
			for g := 1; g <= groups+1; g++ {
				ref := filepath.Join(t.TempDir(), "ref.arrow")
				args := []string{c.cmd, "-e", c.prog, "--exec", "interp", "--opt", "none",
					"--in", fmt.Sprintf("A=%s:%s?shape=%dx%d", filepath.Join(dir, fmt.Sprintf("A%d.arrow", g)), c.aFormat, n, n),
					"--in", fmt.Sprintf("b=%s?shape=%d", filepath.Join(dir, fmt.Sprintf("b%d.arrow", g)), n),
					"--in", "x=" + filepath.Join(dir, "x.arrow") + ":dense", "--out", ref}
				if c.wrt != "" {
					args = append(args, "--wrt", c.wrt)
				}
				if code, stdout, stderr := runCLI(args...); code != 0 {
					t.Fatalf("nablasd %q: exit %d\n%s%s", args, code, stdout, stderr)
				}
				want, err := datasets.ReadTable(ref, datasets.TableOptions{}, formats.COO)
				if err != nil {
					t.Fatal(err)
				}
				var wv sdql.Value = sdql.Real(want.Scalar)
				if want.Tensor != nil {
					wv = formats.ToValue(want.Tensor)
				}
				if !sdql.Equal(got[int64(g)], wv) {
					t.Errorf("graph %d: grouped %s\n want (one run) %s", g, sdql.FormatValue(got[int64(g)]), sdql.FormatValue(wv))
				}
			}
		})
	}
}
