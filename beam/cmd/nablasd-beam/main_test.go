package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/beam/pipeline"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// The tests run nablasd-beam on Beam's Prism runner (in its own process)
// and compare its outputs with the built nablasd's on the same inputs.
// nablasd-beam is this test binary itself, started through a script that
// sets runMainEnv (TestMain then runs the command's main): one link of
// the Beam SDK fewer than building the command again.
var beamBin, localBin string

// runMainEnv, set to 1, makes the test binary run nablasd-beam's main.
const runMainEnv = "NABLASD_BEAM_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(runMainEnv) == "1" {
		main()
		return
	}
	dir, err := os.MkdirTemp("", "nablasd-beam-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	beamBin, localBin = filepath.Join(dir, "nablasd-beam"), filepath.Join(dir, "nablasd")
	self, err := os.Executable()
	if err != nil {
		fail(err)
	}
	script := fmt.Sprintf("#!/bin/sh\n%s=1 exec '%s' \"$@\"\n", runMainEnv, strings.ReplaceAll(self, "'", `'\''`))
	if err := os.WriteFile(beamBin, []byte(script), 0o755); err != nil {
		fail(err)
	}
	if out, err := exec.Command("go", "build", "-o", localBin, "github.com/nablasd/nablasd/cmd/nablasd").CombinedOutput(); err != nil {
		fail(fmt.Errorf("go build nablasd: %v\n%s", err, out))
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// runIn runs a binary in dir and returns its exit status, stdout and
// stderr.
func runIn(dir, bin string, args ...string) (int, string, string) {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		code = -1
	}
	return code, stdout.String(), stderr.String()
}

// mustRun runs a binary and fails the test unless it succeeds; it
// returns its standard error.
func mustRun(t *testing.T, dir, bin string, args ...string) string {
	t.Helper()
	code, out, errs := runIn(dir, bin, args...)
	if code != 0 {
		t.Fatalf("%s %q: exit %d\n%s%s", filepath.Base(bin), args, code, out, errs)
	}
	return errs
}

// counter returns a counter printed at the end of a job (-1: none).
func counter(stderr, name string) int64 {
	m := regexp.MustCompile(`\b` + name + `=(\d+)`).FindStringSubmatch(stderr)
	if m == nil {
		return -1
	}
	var n int64
	fmt.Sscan(m[1], &n)
	return n
}

// groupedRows reads a grouped output table (tabletest.Cat): its column
// and metadata lines, and its rows by key (the first field), in order.
func groupedRows(t *testing.T, path string) (head string, rows map[string][]string, keys []string) {
	t.Helper()
	text, err := tabletest.Cat(path)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	rows = map[string][]string{}
	var hl []string
	for i, l := range lines {
		if i == 0 || strings.HasPrefix(l, "nablasd.") {
			hl = append(hl, l)
			continue
		}
		k, _, _ := strings.Cut(l, " ")
		if len(keys) == 0 || keys[len(keys)-1] != k {
			keys = append(keys, k)
		}
		rows[k] = append(rows[k], l)
	}
	return strings.Join(hl, "\n"), rows, keys
}

// checkShards checks a grouped job's output directory against nablasd's
// single-machine output: every shard has its columns and metadata, each
// shard is in key order, and together they hold its rows, bit for bit,
// each group in one shard; the manifest lists the shards and counts.
func checkShards(t *testing.T, dir, local string) {
	t.Helper()
	wantHead, want, _ := groupedRows(t, local)
	m, err := pipeline.ReadManifest(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	var groups, rows int64
	for _, s := range m.Shards {
		head, rs, keys := groupedRows(t, filepath.Join(dir, s.File))
		if head != wantHead {
			t.Errorf("%s: columns and metadata\n%s\nnablasd's\n%s", s.File, head, wantHead)
		}
		if !slices.IsSortedFunc(keys, func(a, b string) int { return cmpKeys(a, b) }) {
			t.Errorf("%s: keys not in order: %v", s.File, keys)
		}
		for k, r := range rs {
			if got[k] != nil {
				t.Errorf("group %s in two shards", k)
			}
			got[k] = r
			for _, l := range r {
				if !strings.HasSuffix(l, " (null)") { // an empty group's marker
					rows++
				}
			}
		}
		groups += int64(len(keys))
		if int64(len(keys)) != s.Groups {
			t.Errorf("%s: %d groups, the manifest says %d", s.File, len(keys), s.Groups)
		}
	}
	if m.Groups != groups || m.Rows != rows || int(groups) != len(want) {
		t.Errorf("manifest: %d groups, %d rows; the shards hold %d, %d; nablasd's output %d groups", m.Groups, m.Rows, groups, rows, len(want))
	}
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("group %s: shards hold\n%s\nnablasd's output\n%s", k, strings.Join(got[k], "\n"), strings.Join(w, "\n"))
		}
	}
	for k := range got {
		if want[k] == nil {
			t.Errorf("group %s is not in nablasd's output", k)
		}
	}
}

func cmpKeys(a, b string) int {
	var x, y int64
	if _, err := fmt.Sscan(a, &x); err == nil {
		if _, err := fmt.Sscan(b, &y); err == nil {
			return int(max(min(x-y, 1), -1))
		}
	}
	return strings.Compare(a, b)
}

// TestGroupedMatchesLocal runs grouped jobs on Prism over tables written
// in many row groups (groups straddle them), two grouped inputs (one
// with a group the other lacks, one with an empty group's marker row)
// and a shared one, and compares the shards with nablasd's output.
func TestGroupedMatchesLocal(t *testing.T) {
	dir := t.TempDir()
	var a, b strings.Builder
	a.WriteString("g:int64 row:int64 col:int64 val:float64\n")
	b.WriteString("g:int64 i:int64 val:float64\n")
	for g := range 30 {
		if g == 7 {
			a.WriteString("7 null null null\n") // an empty group
		} else if g != 11 {
			for k := range 20 + g%9 {
				fmt.Fprintf(&a, "%d %d %d %d.%d\n", g, (g*k+3)%13, (k*k+g)%13, k%7-3, (g*k)%10)
			}
		}
		for i := range 13 {
			if (g+i)%3 == 0 {
				fmt.Fprintf(&b, "%d %d %d\n", g, i, (g*i)%11-5)
			}
		}
	}
	if err := tabletest.Write(filepath.Join(dir, "A.parquet"), a.String(), 50, map[string]string{datasets.MetaShape: "13,13"}); err != nil {
		t.Fatal(err)
	}
	if err := tabletest.Write(filepath.Join(dir, "b.arrow"), b.String(), 16, map[string]string{datasets.MetaShape: "13"}); err != nil {
		t.Fatal(err)
	}
	if err := tabletest.Write(filepath.Join(dir, "x.parquet"), "i:int64 val:float64\n0 1\n1 -2\n2 0.5\n5 3\n12 1.25\n", 0, map[string]string{datasets.MetaShape: "13"}); err != nil {
		t.Fatal(err)
	}
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	for _, c := range []struct {
		name string
		args []string
	}{
		{"lsq-grad-x", []string{"grad", "-e", lsq, "--wrt", "x", "--in", "A=A.parquet", "--in", "b=b.arrow", "--in", "x=x.parquet:dense"}},
		{"lsq-grad-A-csc", []string{"grad", "-e", lsq, "--wrt", "A", "--in", "A=A.parquet:csc", "--in", "b=b.arrow:dense", "--in", "x=x.parquet"}},
		{"lsq-value", []string{"eval", "-e", lsq, "--in", "A=A.parquet", "--in", "b=b.arrow", "--in", "x=x.parquet"}},
		{"Ax", []string{"eval", "-e", "sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) }", "--in", "A=A.parquet:coo", "--in", "x=x.parquet:dense"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			local := filepath.Join(dir, c.name+".parquet")
			out := filepath.Join(dir, c.name)
			mustRun(t, dir, localBin, append(c.args, "--group-by", "g", "--out", local, "--quiet")...)
			errs := mustRun(t, dir, beamBin, append(c.args, "--group-by", "g", "--out", out, "--shards", "3")...)
			checkShards(t, out, local)
			want := int64(30) // the union of A's and b's keys
			if !strings.Contains(strings.Join(c.args, " "), "b=") {
				want = 29 // A's
			}
			if n := counter(errs, "groups"); n != want {
				t.Errorf("groups=%d, want %d\n%s", n, want, errs)
			}
			if n := counter(errs, "splits"); n < 5 {
				t.Errorf("splits=%d: the tables were not read in their row groups\n%s", n, errs)
			}
			for _, name := range []string{"entries_in", "shuffle_bytes", "entries_out", "bytes_out", "compiles"} {
				if counter(errs, name) <= 0 {
					t.Errorf("no counter %s in %q", name, errs)
				}
			}
		})
	}
}

// readResult reads a result table as entries (one with no coordinates
// for a scalar).
func readResult(t testing.TB, path string) (shape []int, idx [][]int, val []float64) {
	t.Helper()
	tt, err := datasets.ReadTable(path, datasets.TableOptions{}, formats.CSF)
	if err != nil {
		t.Fatal(err)
	}
	if tt.Tensor == nil {
		return nil, nil, []float64{tt.Scalar}
	}
	idx, val, err = tt.Tensor.Coords()
	if err != nil {
		t.Fatal(err)
	}
	return tt.Tensor.Shape, idx, val
}

// Tolerance is how close a row-partitioned result must be to nablasd's:
// every entry within Tolerance times the result's largest magnitude (at
// least 1). The blocks' partial sums are added in another order than one
// loop adds them; the differences seen are about 1e-14 of it.
const Tolerance = 1e-9

// sameResult compares two result tables: the same shape and positions,
// the values within Tolerance.
func sameResult(t testing.TB, got, want string) {
	t.Helper()
	gs, gi, gv := readResult(t, got)
	ws, wi, wv := readResult(t, want)
	if !slices.Equal(gs, ws) || len(gv) != len(wv) {
		t.Fatalf("%s: shape %v, %d entries; nablasd's %v, %d", got, gs, len(gv), ws, len(wv))
	}
	for m := range gi {
		if !slices.Equal(gi[m], wi[m]) {
			t.Fatalf("%s: the entries' coordinates (mode %d) differ from nablasd's", got, m)
		}
	}
	scale := 1.0
	for _, v := range wv {
		scale = max(scale, math.Abs(v))
	}
	worst := 0.0
	for e := range gv {
		worst = max(worst, math.Abs(gv[e]-wv[e])/scale)
	}
	if worst > Tolerance || math.IsNaN(worst) {
		t.Errorf("%s: differs from nablasd's result by %g of its largest magnitude %g", got, worst, scale)
	}
	t.Logf("%s: %d entries, largest difference %.2g of the largest magnitude %.3g", filepath.Base(got), len(gv), worst, scale)
}
