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

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// edgeList is a grouped edge list of graphs over nodes nodes: graph 0 of
// big edges, the others of small ones each, with no edge twice in a graph.
type edgeList struct {
	graphs, big, small, nodes int
}

func (l edgeList) rows() int { return l.big + (l.graphs-1)*l.small }

// edge returns row i of the list sorted by graph: its graph, source,
// destination and weight.
func (l edgeList) edge(i int) (g, src, dst int64, w float64) {
	e, deg := i, l.big/l.nodes
	if i >= l.big {
		g = int64(1 + (i-l.big)/l.small)
		e, deg = (i-l.big)%l.small, max(l.small/l.nodes, 1)
	}
	// deg edges from each source, to distinct destinations (7919 is
	// prime to nodes)
	src = int64(e / deg)
	dst = int64((e*7919 + int(g)) % l.nodes)
	w = float64((i*37)%1000)/8 - 60 // exact in binary
	return g, src, dst, w
}

// write writes the list to a Parquet file: sorted by graph, or its rows
// in the order of a permutation (i = (step·j) mod rows, step prime to
// rows) that leaves no two neighbours in one graph.
func (l edgeList) write(t *testing.T, path string, sorted bool) {
	t.Helper()
	meta := arrow.MetadataFrom(map[string]string{datasets.MetaShape: fmt.Sprintf("%d,%d", l.nodes, l.nodes)})
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "graph", Type: arrow.PrimitiveTypes.Int64}, {Name: "src", Type: arrow.PrimitiveTypes.Int64},
		{Name: "dst", Type: arrow.PrimitiveTypes.Int64}, {Name: "w", Type: arrow.PrimitiveTypes.Float64},
	}, &meta)
	w, err := datasets.CreateTable(path, schema)
	if err != nil {
		t.Fatal(err)
	}
	n := l.rows()
	step := 1_000_003 // prime, and prime to n unless it divides it
	for n%step == 0 {
		step += 2
	}
	b := array.NewRecordBuilder(memory.NewGoAllocator(), schema)
	defer b.Release()
	const batch = 1 << 16
	for lo := 0; lo < n; lo += batch {
		for j := lo; j < min(lo+batch, n); j++ {
			i := j
			if !sorted {
				i = int((int64(j) * int64(step)) % int64(n))
			}
			g, src, dst, wt := l.edge(i)
			b.Field(0).(*array.Int64Builder).Append(g)
			b.Field(1).(*array.Int64Builder).Append(src)
			b.Field(2).(*array.Int64Builder).Append(dst)
			b.Field(3).(*array.Float64Builder).Append(wt)
		}
		rec := b.NewRecordBatch()
		err := w.Write(rec)
		rec.Release()
		if err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestBatchUnsortedEdgeList: an edge list of 200,000 rows not sorted by
// its graph key, grouped under a 64 MiB --memory-limit (its sort in runs
// of 4 MiB, merged), gives the sorted list's output. TestBatchUnsortedLong
// is the same at 10M rows under 1 GiB, with the peak resident memory
// measured.
func TestBatchUnsortedEdgeList(t *testing.T) {
	unsortedEdges(t, edgeList{graphs: 41, big: 40_000, small: 4_000, nodes: 2_000}, "64MiB", false)
}

// TestBatchUnsortedLong: an unsorted 10M-row Parquet edge list grouped by
// its key runs within a 1 GiB --memory-limit (its peak resident memory
// under 1 GiB) and equals the sorted run.
func TestBatchUnsortedLong(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: a 10M-row table takes minutes")
	}
	unsortedEdges(t, edgeList{graphs: 901, big: 1_000_000, small: 10_000, nodes: 10_000}, "1GiB", true)
}

func unsortedEdges(t *testing.T, l edgeList, limit string, measure bool) {
	dir := t.TempDir()
	start := time.Now()
	l.write(t, filepath.Join(dir, "sorted.parquet"), true)
	l.write(t, filepath.Join(dir, "unsorted.parquet"), false)
	t.Logf("%d rows in %d graphs written twice in %v", l.rows(), l.graphs, time.Since(start).Round(time.Millisecond))
	// each graph's weighted degrees: a vector over its sources
	prog := "sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) }"
	x := filepath.Join(dir, "x.arrow")
	if _, code := runCLIExit("eval", "-e", "sum(<i, _> in (0:n)) { i -> 0.5 + i * 0.25 }", "--in", fmt.Sprintf("n=%d", l.nodes), "--out", x); code != 0 {
		t.Fatal("x")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tmp := t.TempDir()
	outs := map[string]map[int64]sdql.Value{}
	for _, which := range []string{"sorted", "unsorted"} {
		out := filepath.Join(dir, which+".out.parquet")
		hwm := filepath.Join(dir, which+".hwm")
		cmd := osexec.Command(exe, "eval", "-e", prog, "--in", "A="+filepath.Join(dir, which+".parquet")+"?row=src,col=dst,val=w",
			"--in", "x="+x+":dense", "--group-by", "graph", "--out", out, "--memory-limit", limit, "--stats", "--quiet",
			"--exec", "compiled") // one executor in both runs: the same sums to the bit
		cmd.Env = append(os.Environ(), "NABLASD_RUN_MAIN=1", "NABLASD_HWM_FILE="+hwm, "TMPDIR="+tmp)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		start := time.Now()
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s: %v\n%s", which, err, stderr.String())
		}
		kib := int64(-1)
		if b, err := os.ReadFile(hwm); err == nil {
			kib, _ = strconv.ParseInt(string(b), 10, 64)
		}
		t.Logf("%s: %v, peak resident %.1f MiB: %s", which, time.Since(start).Round(time.Millisecond), float64(kib)/1024, strings.TrimSpace(stderr.String()))
		if wantSorted := map[string]string{"sorted": `sorted=""`, "unsorted": `sorted="A"`}[which]; !strings.Contains(stderr.String(), wantSorted) {
			t.Errorf("%s: --stats %q, want %s", which, stderr.String(), wantSorted)
		}
		if lim, _ := nablasd.ParseBytes(limit); measure && (kib < 0 || kib<<10 > lim) {
			t.Errorf("%s: peak resident %d KiB, over the --memory-limit %s", which, kib, limit)
		}
		outs[which] = readGroups(t, out, "graph")
	}
	if len(outs["sorted"]) != l.graphs || len(outs["unsorted"]) != l.graphs {
		t.Fatalf("%d groups sorted, %d unsorted, want %d", len(outs["sorted"]), len(outs["unsorted"]), l.graphs)
	}
	for g, want := range outs["sorted"] {
		if got := outs["unsorted"][g]; !sdql.ApproxEqual(got, want, 0) {
			t.Errorf("graph %d: unsorted %.200s, sorted %.200s", g, sdql.FormatValue(got), sdql.FormatValue(want))
		}
	}
	if left, _ := os.ReadDir(tmp); len(left) != 0 {
		t.Errorf("the sort left %d files", len(left))
	}
}

// runCLIExit runs the command in the process and returns its standard
// error and exit status.
func runCLIExit(args ...string) (string, int) {
	code, _, stderr := runCLI(args...)
	return stderr, code
}
