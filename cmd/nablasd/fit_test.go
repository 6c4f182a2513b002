package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/nablasd/nablasd/internal/tabletest"
)

// ridgeLS is a ridge least squares over a group's A and b, fitted in x.
const ridgeLS = "(sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d) + 0.05 * sum(<j, v> in x) v * v"

// fitReport matches the report's iterations and loss.
var fitReport = regexp.MustCompile(`; (\d+) iterations, (\d+) evaluations \(kernel runs\), loss (\S+),`)

// TestGroupedFitAgainstSingleFits fits one model per group (--group-by,
// on several workers) and checks every group's rows, its parameter's
// entries, loss, iterations and evaluations, against a fit of that group
// alone: its rows in tables of their own, fitted without --group-by.
// Both compile in reverse mode with the closures, so the group's
// arithmetic is the single fit's, and the rows are equal as printed
// (shortest round-trip form). --resume of the finished output fits
// nothing and writes the same table.
func TestGroupedFitAgainstSingleFits(t *testing.T) {
	dir := t.TempDir()
	const groups, n = 6, 5
	perA, perB := groupedData(t, dir, rand.New(rand.NewPCG(36, 1)), groups, n)
	out := filepath.Join(dir, "fit.parquet")
	common := []string{"--wrt", "x", "--mode", "reverse", "--exec", "compiled", "--tol", "1e-9"}
	args := append([]string{"fit", "-e", ridgeLS, "--in", "A=" + filepath.Join(dir, "A.parquet"), "--in", "b=" + filepath.Join(dir, "b.arrows"),
		"--init", "x=" + filepath.Join(dir, "x.arrow") + ":dense", "--group-by", "graph", "--out", out, "--threads", "3"}, common...)
	code, stdout, stderr := runCLI(args...)
	if code != 0 {
		t.Fatalf("nablasd %q: exit %d\n%s%s", args, code, stdout, stderr)
	}
	if !strings.Contains(stderr, fmt.Sprintf("fit: %d groups fitted (0 kept from an earlier run): %d converged;", groups+1, groups+1)) {
		t.Errorf("report: %s", stderr)
	}
	table, err := tabletest.Cat(out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if lines[0] != "graph:int64 param:utf8 i0:int64 val:float64 loss:float64 iterations:int64 evaluations:int64 converged:bool status:utf8" {
		t.Fatalf("columns %s", lines[0])
	}
	rows := map[int][]string{}
	for _, l := range lines[1:] {
		if strings.HasPrefix(l, "nablasd.") {
			continue
		}
		var g int
		fmt.Sscan(l, &g)
		rows[g] = append(rows[g], l)
	}
	for g := 1; g <= groups+1; g++ {
		ga, gb := filepath.Join(dir, fmt.Sprintf("A%d.arrow", g)), filepath.Join(dir, fmt.Sprintf("b%d.arrow", g))
		if err := tabletest.Write(ga, perA[g], 0, nil); err != nil {
			t.Fatal(err)
		}
		if err := tabletest.Write(gb, perB[g], 0, nil); err != nil {
			t.Fatal(err)
		}
		xg := filepath.Join(dir, fmt.Sprintf("x%d.parquet", g))
		args := append([]string{"fit", "-e", ridgeLS, "--in", fmt.Sprintf("A=%s?shape=%dx%d", ga, n, n), "--in", fmt.Sprintf("b=%s?shape=%d", gb, n),
			"--init", "x=" + filepath.Join(dir, "x.arrow") + ":dense", "--out", xg}, common...)
		code, stdout, stderr := runCLI(args...)
		if code != 0 {
			t.Fatalf("nablasd %q: exit %d\n%s%s", args, code, stdout, stderr)
		}
		m := fitReport.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("graph %d: no report in %q", g, stderr)
		}
		single, err := tabletest.Cat(xg)
		if err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, l := range strings.Split(strings.TrimSpace(single), "\n")[1:] {
			if strings.HasPrefix(l, "nablasd.") {
				continue
			}
			f := strings.Fields(l) // i0 val
			want = append(want, fmt.Sprintf("%d x %s %s %s %s %s true converged", g, f[0], f[1], m[3], m[1], m[2]))
		}
		if strings.Join(rows[g], "\n") != strings.Join(want, "\n") {
			t.Errorf("graph %d: grouped\n%s\nwant (a fit of the group alone)\n%s", g, strings.Join(rows[g], "\n"), strings.Join(want, "\n"))
		}
	}

	args = append(args[:0:0], "fit", "-e", ridgeLS, "--in", "A="+filepath.Join(dir, "A.parquet"), "--in", "b="+filepath.Join(dir, "b.arrows"),
		"--init", "x="+filepath.Join(dir, "x.arrow")+":dense", "--group-by", "graph", "--out", out, "--resume")
	args = append(args, common...)
	code, stdout, stderr = runCLI(args...)
	if code != 0 || !strings.Contains(stderr, fmt.Sprintf("fit: 0 groups fitted (%d kept", groups+1)) {
		t.Fatalf("--resume: exit %d\n%s%s", code, stdout, stderr)
	}
	if again, _ := tabletest.Cat(out); again != table {
		t.Errorf("--resume wrote\n%s\nwant\n%s", again, table)
	}
	// another optimizer's settings: not the same job
	code, _, stderr = runCLI(append(args, "--method", "cg")...)
	if code != 1 || !strings.Contains(stderr, "was written by another job (its nablasd.fit differs)") {
		t.Errorf("--resume with --method cg: exit %d, %s", code, stderr)
	}
}

// interrupter is standard error for a fit that interrupts the process
// (SIGINT, as Ctrl-C) once a progress line shows iteration 20.
type interrupter struct {
	mu   sync.Mutex
	b    strings.Builder
	sent bool
}

func (w *interrupter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if !w.sent && strings.Contains(w.b.String(), "fit: iteration 20:") {
		w.sent = true
		syscall.Kill(os.Getpid(), syscall.SIGINT)
	}
	return len(p), nil
}

var _ io.Writer = (*interrupter)(nil)

// TestFitInterrupt: Ctrl-C (SIGINT) stops a fit cleanly: exit 1, a
// message saying so, and the last iterate written.
func TestFitInterrupt(t *testing.T) {
	dir := t.TempDir()
	x0 := filepath.Join(dir, "x0.mtx")
	if err := os.WriteFile(x0, []byte("%%MatrixMarket matrix array real general\n3 1\n5\n5\n5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "x.mtx")
	// Adam with a tiny step never meets the tests: only the signal stops it
	args := []string{"fit", "-e", "sum(<i, v> in x) (v - i) * (v - i)", "--wrt", "x", "--init", x0, "--method", "adam",
		"--lr", "1e-9", "--tol", "0", "--max-iter", "0", "--progress", "0", "--exec", "compiled", "--out", out}
	var stdout strings.Builder
	stderr := &interrupter{}
	code := run(args, &stdout, stderr)
	msg := stderr.b.String()
	if code != 1 || !strings.Contains(msg, "nablasd: fit: interrupted: the fit was stopped at iteration") || !strings.Contains(msg, "it is written to "+out) {
		t.Fatalf("exit %d\n%s", code, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil || !strings.HasPrefix(string(b), "%%MatrixMarket matrix array real general\n% fitted by nablasd\n3 1\n4.99999") {
		t.Errorf("the last iterate: %v\n%s", err, b)
	}
}
