package paper

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A row written and read back is the same row; an empty time is NaN.
func TestCSVRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	w, err := openResults(path, []string{"settings: test x=1", "machine: m"})
	if err != nil {
		t.Fatal(err)
	}
	rows := []*Row{
		{Figure: "fig12", Panel: "SMVM n=256", X: "2^-1", XOrder: -1, Kernel: "smvm", Input: "n=256,d=2^-1", Source: "synthetic",
			Rows: 256, Cols: 256, NNZ: 32768, System: "arr", Status: "ok", Time: 1.5e-5, TimeMin: 1e-5, TimeMax: 2e-5, Runs: 5,
			Setup: 0.01, PeakBytes: 4096, Sum: 12.5, SumSq: 40.25, Check: "ok", First: 0.25},
		{Figure: "fig11", Panel: "BATAx", X: "cant", Kernel: "batax", Input: "cant", Source: "surrogate", System: "torch-dense",
			Status: "out of memory (estimated 58 GiB, over the limit 8 GiB)", Detail: `a "quoted", detail`,
			Time: math.NaN(), TimeMin: math.NaN(), TimeMax: math.NaN(), Setup: math.NaN(), PeakBytes: -1, Sum: math.NaN(), SumSq: math.NaN(), First: math.NaN()},
	}
	for _, r := range rows {
		if err := w.write(r); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	res, err := ReadResultsFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if res.Setting("settings") != "test x=1" || len(res.Rows) != 2 {
		t.Fatalf("meta %q, %d rows", res.Meta, len(res.Rows))
	}
	a, b := res.Rows[0], res.Rows[1]
	if a.Key() != rows[0].Key() || a.Time != 1.5e-5 || a.PeakBytes != 4096 || a.SumSq != 40.25 || a.First != 0.25 || !a.OK() {
		t.Errorf("row 1 read back as %+v", a)
	}
	if b.Status != rows[1].Status || b.Detail != rows[1].Detail || !math.IsNaN(b.Time) || b.PeakBytes != -1 || !math.IsNaN(b.First) || b.OK() {
		t.Errorf("row 2 read back as %+v", b)
	}
}

// A bad CSV is an error naming the file and line.
func TestCSVErrors(t *testing.T) {
	good, err := os.ReadFile("testdata/small.csv")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(good), "\n")
	bad := func(i int, line string) string {
		l := append([]string(nil), lines...)
		l[i] = line
		return strings.Join(l, "\n")
	}
	for _, tc := range []struct{ text, want string }{
		{bad(3, strings.Replace(lines[3], "0.0007", "fast", 1)), `x.csv:4: column time_s: "fast" is not a number`},
		{bad(5, "fig11,BATAx"), "x.csv:6: 2 fields, want 22"},
		{bad(2, "figure,panel"), "x.csv:3"},
		{"# only a comment\n", "x.csv: no header line"},
	} {
		_, err := ReadResults(strings.NewReader(tc.text), "x.csv")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("want an error with %q, have %v", tc.want, err)
		}
	}
}
