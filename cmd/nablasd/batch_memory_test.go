package main

import (
	"bytes"
	"fmt"
	"os"
	osexec "os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd"
)

// TestGroupedJobRSS: a grouped job's peak resident memory (the child
// process's VmHWM, less the floor of the same job over a one-graph table)
// stays within groupedRSSFactor times its largest group (as CSR) and its
// shared inputs, plus the sort's buffers for an unsorted table and a
// constant (groupedRSSSlack): over an edge list of 41 graphs, one of
// 400,000 edges, sorted and not.
// TestGroupedJobRSSLong is the same over the 10M-row list of
// TestBatchUnsortedLong (a graph of 1M edges).
func TestGroupedJobRSS(t *testing.T) {
	groupedJobRSS(t, edgeList{graphs: 41, big: 400_000, small: 4_000, nodes: 4_000}, "256MiB")
}

// TestGroupedJobRSSLong: TestGroupedJobRSS over 10M rows (a minute).
func TestGroupedJobRSSLong(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 10M-row table takes a minute")
	}
	groupedJobRSS(t, edgeList{graphs: 901, big: 1_000_000, small: 10_000, nodes: 10_000}, "1GiB")
}

// groupedRSSFactor is the multiple of the largest group a grouped job
// holds at its peak: the group's rows (24 bytes an entry of a matrix, 1.5
// times its CSR) while its tensor is built, the in-place sort's keys (16
// bytes an entry, while it sorts), and the collector's quarter
// over the live heap (GOGC 25): (1.5 + 1) × 1.25 ≈ 3. Issue 37 asks for
// 2: building a group's CSR straight from the sorted runs, counting its
// rows first, would hold the CSR alone.
const groupedRSSFactor = 3

// groupedRSSSlack is what a grouped job holds beside its groups and its
// shared inputs whatever their size: the record batches being read and
// decoded (8Ki rows of each input), a Parquet page of each column, the
// journal's and the output's buffers, the output's columns gathered
// (64Ki rows), and the collector's headroom over all that.
const groupedRSSSlack = 24 << 20

// childHWM runs the command (this test binary as nablasd) and returns its
// standard error and peak resident memory in bytes (VmHWM).
func childHWM(t *testing.T, env []string, args ...string) (string, int64) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	hwm := filepath.Join(t.TempDir(), "hwm")
	cmd := osexec.Command(exe, args...)
	cmd.Env = append(append(os.Environ(), "NABLASD_RUN_MAIN=1", "NABLASD_HWM_FILE="+hwm), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("nablasd %q: %v\n%s", args, err, stderr.String())
	}
	b, err := os.ReadFile(hwm)
	if err != nil {
		t.Fatal(err)
	}
	kib, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return stderr.String(), kib << 10
}

func groupedJobRSS(t *testing.T, l edgeList, limit string) {
	dir := t.TempDir()
	start := time.Now()
	l.write(t, filepath.Join(dir, "sorted.parquet"), true)
	l.write(t, filepath.Join(dir, "unsorted.parquet"), false)
	t.Logf("%d rows in %d graphs written twice in %v", l.rows(), l.graphs, time.Since(start).Round(time.Millisecond))
	x := filepath.Join(dir, "x.arrow")
	if _, code := runCLIExit("eval", "-e", "sum(<i, _> in (0:n)) { i -> 0.5 + i * 0.25 }", "--in", fmt.Sprintf("n=%d", l.nodes), "--out", x); code != 0 {
		t.Fatal("x")
	}
	// the floor: the same job over one graph of an edge a node (the binary,
	// the runtime, the code and constant buffers of reading, grouping and
	// writing tables)
	tiny := edgeList{graphs: 1, big: l.nodes, small: 1, nodes: l.nodes}
	tiny.write(t, filepath.Join(dir, "tiny.parquet"), true)
	job := func(which string) []string {
		return []string{"eval", "-e", "sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) }",
			"--in", "A=" + filepath.Join(dir, which+".parquet") + "?row=src,col=dst,val=w", "--in", "x=" + x + ":dense",
			"--group-by", "graph", "--out", filepath.Join(dir, which+".out.parquet"), "--memory-limit", limit, "--stats", "--quiet", "--exec", "compiled"}
	}
	_, floor := childHWM(t, nil, job("tiny")...)
	// the largest graph as CSR (8 bytes an entry's column and value, 8 a
	// row's pointer) and x (dense: 8 bytes a node)
	largest := int64(l.big)*16 + int64(l.nodes+1)*8
	shared := int64(l.nodes) * 8
	sortMem := sortMemory(mustBytes(t, limit))
	tmp := t.TempDir()
	for _, which := range []string{"sorted", "unsorted"} {
		stderr, peak := childHWM(t, []string{"TMPDIR=" + tmp}, job(which)...)
		bound := groupedRSSFactor*(largest+shared) + groupedRSSSlack
		if which == "unsorted" {
			bound += sortMem
		}
		t.Logf("%s: peak resident %.1f MiB, floor %.1f MiB: %.1f MiB above it; bound %d × (largest group %.1f MiB + shared %.1f MiB) + %d MiB (+ the sort's %d MiB unsorted) = %.1f MiB: %s",
			which, mib(peak), mib(floor), mib(peak-floor), groupedRSSFactor, mib(largest), mib(shared), groupedRSSSlack>>20, sortMem>>20, mib(bound), strings.TrimSpace(stderr))
		if peak-floor > bound {
			t.Errorf("%s: peak resident %.1f MiB above the floor, over the bound %.1f MiB", which, mib(peak-floor), mib(bound))
		}
	}
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

func mustBytes(t *testing.T, s string) int64 {
	n, err := nablasd.ParseBytes(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
