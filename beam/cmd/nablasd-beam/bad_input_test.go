package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/tabletest"
)

// TestBadInput: bad flags and inputs are errors naming what is wrong,
// with exit status 2 (usage) or 1 (input), found before the pipeline is
// submitted (the runner never starts: no counters are printed), and
// nothing is written. A bad row, found by a worker while reading, fails
// the job with the same message nablasd gives, and leaves no output.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	good := "g:int64 i:int64 val:float64\n1 0 1\n1 1 2\n2 0 3\n2 2 4\n3 1 5\n3 2 6\n"
	if err := tabletest.Write(filepath.Join(dir, "A.parquet"), good, 2, nil); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(good, "3 1 5", "3 1 null", 1)
	if err := tabletest.Write(filepath.Join(dir, "bad.parquet"), bad, 2, nil); err != nil {
		t.Fatal(err)
	}
	if err := tabletest.Write(filepath.Join(dir, "M.parquet"), "i0:int64 i1:int64 val:float64\n0 0 1\n1 2 2\n3 1 3\n", 0, nil); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "taken"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "taken", "notes.txt"), []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	sumA := "sum(<i, v> in A) v"
	for _, c := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown runner", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--group-by", "g", "--out", "o", "--runner", "nope"}, 2,
			"--runner nope: unknown runner (want prism, flink, spark, dataflow or universal)"},
		{"no mode", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--out", "o"}, 2, "give --group-by KEY or --partition-rows N"},
		{"both modes", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--group-by", "g", "--partition-rows", "2", "--out", "o"}, 2, "not both"},
		{"no out", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--group-by", "g"}, 2, "no output: give --out"},
		{"grad without wrt", []string{"grad", "-e", sumA, "--in", "A=A.parquet", "--group-by", "g", "--out", "o"}, 2, "grad needs --wrt NAME"},
		{"misspelt flag", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--group-bi", "g", "--out", "o"}, 2, "unknown flag --group-bi (did you mean --group-by?)"},
		{"negative rows", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--partition-rows", "-5", "--out", "o.parquet"}, 2, "--partition-rows -5: want a positive number"},
		{"missing input file", []string{"eval", "-e", sumA, "--in", "A=nope.parquet", "--group-by", "g", "--out", "o"}, 1, "nope.parquet"},
		{"missing binding", []string{"eval", "-e", "sum(<i, v> in A) v * y", "--in", "A=A.parquet", "--group-by", "g", "--out", "o"}, 1,
			"1:22: undefined: y (bind it with --in y=VALUE)"},
		{"missing key column", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--group-by", "h", "--out", "o"}, 1, "no input table has a column h"},
		{"output directory taken", []string{"eval", "-e", sumA, "--in", "A=A.parquet", "--group-by", "g", "--out", "taken"}, 1,
			"--out taken: the directory holds notes.txt, which is not a nablasd-beam output"},
		{"not partitionable", []string{"eval", "-e", "let t = sum(<i, r> in M) r(0) in t * t", "--in", "M=M.parquet", "--partition-rows", "2", "--out", "o.parquet"}, 1,
			"1:36: --partition-rows: not a sum over the rows of M: multiplies two terms that both depend on M"},
		{"not partitionable: a constant", []string{"eval", "-e", "(sum(<i, r> in M) r(0)) + 1", "--in", "M=M.parquet", "--partition-rows", "2", "--out", "o.parquet"}, 1,
			"1:27: --partition-rows: not a sum over the rows of M: adds a term that does not depend on M: it would be counted once a block"},
		{"partition input not a table", []string{"eval", "-e", "sum(<i, r> in M) r(0)", "--in", "M=synthetic:rows=5,cols=5,nnz=3", "--partition-rows", "2", "--partition-input", "M", "--out", "o.parquet"}, 2,
			"--partition-input M: M=synthetic:rows=5,cols=5,nnz=3 is not a table file"},
		{"partition output not a table", []string{"eval", "-e", "sum(<i, r> in M) r(0)", "--in", "M=M.parquet", "--partition-rows", "2", "--out", "o"}, 2,
			"--partition-rows writes one table"},
		{"bad row, found by a worker", []string{"eval", "-e", sumA, "--in", "A=bad.parquet", "--group-by", "g", "--out", "o"}, 1,
			"the job failed: " + filepath.Join("bad.parquet") + ": column val, row 4: null value"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, _, errs := runIn(dir, beamBin, c.args...)
			if code != c.code || !strings.Contains(errs, c.want) {
				t.Errorf("exit %d, stderr:\n%s\nwant exit %d and %q", code, errs, c.code, c.want)
			}
			if strings.Count(errs, "\n") > 2 {
				t.Errorf("a message of more than two lines:\n%s", errs)
			}
			if c.name != "bad row, found by a worker" && strings.Contains(errs, "elapsed_ms") {
				t.Errorf("the job ran:\n%s", errs)
			}
			for _, f := range []string{"o.parquet", filepath.Join("o", "manifest.json")} {
				if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s was written", f)
				}
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "o")); len(ents) > 0 {
				t.Errorf("the output directory holds %d files (%s…)", len(ents), ents[0].Name())
			}
		})
	}
	if b, err := os.ReadFile(filepath.Join(dir, "taken", "notes.txt")); err != nil || string(b) != "keep" {
		t.Errorf("taken/notes.txt: %q, %v", b, err)
	}
}

// TestHelp: the help lists nablasd's flags, the job's and the runner
// flags.
func TestHelp(t *testing.T) {
	code, out, _ := runIn(".", beamBin, "help", "grad")
	for _, want := range []string{"--wrt NAME", "--group-by KEY", "--partition-rows N", "--runner RUNNER", "(default prism)", "--endpoint", "--staging_location", "--in NAME=VALUE"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("help grad (exit %d) lacks %q:\n%s", code, want, out)
		}
	}
	if code, _, errs := runIn(".", beamBin); code != 2 || !strings.Contains(errs, "Usage:") {
		t.Errorf("no arguments: exit %d\n%s", code, errs)
	}
}
