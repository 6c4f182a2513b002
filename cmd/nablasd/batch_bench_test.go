package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// benchGraphs writes the grouped Parquet tables of a batch of graphs like
// DuckDB would: A (graph int32, row, col int64, val double), graph g having
// sizes[g] entries over nodes[g] nodes, sorted by graph, row and col; and
// x (graph, i, val), every node of every graph. Snappy, row groups of
// 122,880 rows, streamed (memory stays one row group).
func benchGraphs(b *testing.B, dir, suffix string, sizes, nodes []int) {
	r := rand.New(rand.NewPCG(1, 2))
	cols := func(names ...string) *arrow.Schema {
		fields := []arrow.Field{{Name: "graph", Type: arrow.PrimitiveTypes.Int32}}
		for _, n := range names {
			fields = append(fields, arrow.Field{Name: n, Type: arrow.PrimitiveTypes.Int64})
		}
		return arrow.NewSchema(append(fields, arrow.Field{Name: "val", Type: arrow.PrimitiveTypes.Float64}), nil)
	}
	write := func(name string, schema *arrow.Schema, fill func(bld *array.RecordBuilder, flush func())) {
		f, err := os.Create(filepath.Join(dir, name+suffix+".parquet"))
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(122880),
			parquet.WithDictionaryDefault(false))
		w, err := pqarrow.NewFileWriter(schema, f, props, pqarrow.DefaultWriterProps())
		if err != nil {
			b.Fatal(err)
		}
		bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
		defer bld.Release()
		flush := func() {
			rec := bld.NewRecordBatch()
			if err := w.WriteBuffered(rec); err != nil {
				b.Fatal(err)
			}
			rec.Release()
		}
		fill(bld, flush)
		flush()
		if err := w.Close(); err != nil {
			b.Fatal(err)
		}
	}
	write("A", cols("row", "col"), func(bld *array.RecordBuilder, flush func()) {
		for g, size := range sizes {
			n := nodes[g]
			gs, rs, cs, vs := make([]int32, size), make([]int64, size), make([]int64, size), make([]float64, size)
			for e := range size {
				gs[e], rs[e], cs[e], vs[e] = int32(g), int64(e*n/size), int64(r.IntN(n)), r.Float64()
			}
			for lo := 0; lo < size; { // sort the columns of each row
				hi := lo
				for hi < size && rs[hi] == rs[lo] {
					hi++
				}
				slices.Sort(cs[lo:hi])
				lo = hi
			}
			bld.Field(0).(*array.Int32Builder).AppendValues(gs, nil)
			bld.Field(1).(*array.Int64Builder).AppendValues(rs, nil)
			bld.Field(2).(*array.Int64Builder).AppendValues(cs, nil)
			bld.Field(3).(*array.Float64Builder).AppendValues(vs, nil)
			if bld.Field(0).Len() >= 1<<16 {
				flush()
			}
		}
	})
	write("x", cols("i"), func(bld *array.RecordBuilder, flush func()) {
		for g, n := range nodes {
			for i := range n {
				bld.Field(0).(*array.Int32Builder).Append(int32(g))
				bld.Field(1).(*array.Int64Builder).Append(int64(i))
				bld.Field(2).(*array.Float64Builder).Append(1 + float64(i%7)/8)
			}
			if bld.Field(0).Len() >= 1<<16 {
				flush()
			}
		}
	})
}

// runMeasured runs the binary and returns its wall time and peak resident
// memory, measured by GNU time (/usr/bin/time -f %M): the rusage Go reads
// for its own child counts the parent's memory, since Linux starts a
// CLONE_VM child's high-water mark at the parent's. -1 without GNU time.
func runMeasured(b *testing.B, dir string, bin string, args ...string) (time.Duration, int64) {
	timeBin, err := exec.LookPath("/usr/bin/time")
	name, argv := bin, args
	if err == nil {
		name, argv = timeBin, append([]string{"-f", "maxrss_kib=%M", bin}, args...)
	}
	cmd := exec.Command(name, argv...)
	cmd.Dir = dir
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		b.Fatalf("nablasd %q: %v\n%s", args, err, stderr.String())
	}
	d := time.Since(start)
	_, kib, ok := strings.Cut(stderr.String(), "maxrss_kib=")
	if !ok {
		return d, -1
	}
	n, err := strconv.ParseInt(strings.TrimSpace(kib), 10, 64)
	if err != nil {
		return d, -1
	}
	return d, n << 10
}

// BenchmarkGroupedJob is the scale figure of issue 12: a batch of 2,000
// graphs in a 20M-entry Parquet table, each graph's adjacency matrix A and
// node features x grouped by graph (1,000 nodes and about 9,500 entries a
// graph, but one of 10,000 nodes and 1M entries), the gradient of SMVM
// with respect to x per graph (the column sums of its A, on x's nodes:
// 2.01M output rows), run by the built binary (go build) with 1 and 2
// workers. It reports the entries of A per second and the peak resident
// memory of the process, next to the same job over the largest graph alone
// (memory flat in the table's size) and to 2 × (largest group + shared
// inputs): the largest graph's A as CSR (16 bytes an entry, 8 a row) and
// its x (COO: 16 bytes a node), or as the rows it is read from (24 bytes
// an entry of A: row, col, val); there are no shared inputs. floor is the
// peak of `nablasd eval -e 1.0` (the binary and the Go runtime), and
// peak-floor what the job's data took. About a minute: -bench GroupedJob
// -benchtime 1x.
func BenchmarkGroupedJob(b *testing.B) {
	const groups, total, largest, small, big = 2000, 20_000_000, 1_000_000, 1000, 10_000
	dir := b.TempDir()
	bin := filepath.Join(dir, "nablasd")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	sizes, nodes := make([]int, groups), make([]int, groups)
	rest := (total - largest) / (groups - 1)
	for g := range sizes {
		sizes[g], nodes[g] = rest, small
	}
	sizes[groups/2], nodes[groups/2] = largest, big
	sizes[0] += total - largest - rest*(groups-1)
	start := time.Now()
	benchGraphs(b, dir, "", sizes, nodes)
	benchGraphs(b, dir, "1", []int{largest}, []int{big})
	st, _ := os.Stat(filepath.Join(dir, "A.parquet"))
	b.Logf("A.parquet: %d entries, %d groups, %.0f MB, written in %v", total, groups, float64(st.Size())/1e6, time.Since(start).Round(time.Second))
	bound := 2 * (int64(largest)*16 + int64(big+1)*8 + int64(big)*16)
	boundRows := 2 * (int64(largest)*24 + int64(big)*16) // the group as its rows: row, col, val; i, val
	prog := "sum(<i, r> in A) sum(<j, a> in r) a * x(j)"
	job := func(suffix, out string, workers int) []string {
		return []string{"grad", "-e", prog, "--wrt", "x", "--in", "A=A" + suffix + ".parquet", "--in", "x=x" + suffix + ".parquet:coo",
			"--group-by", "graph", "--out", out, "--threads", strconv.Itoa(workers), "--quiet"}
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("groups=%d/entries=%d/workers=%d", groups, total, workers), func(b *testing.B) {
			var secs, rss, rss1, floor []float64
			for range b.N {
				d, peak := runMeasured(b, dir, bin, job("", "out.parquet", workers)...)
				_, peak1 := runMeasured(b, dir, bin, job("1", "out1.parquet", workers)...)
				_, peak0 := runMeasured(b, dir, bin, "eval", "-e", "1.0")
				secs = append(secs, d.Seconds())
				rss = append(rss, float64(peak))
				rss1 = append(rss1, float64(peak1))
				floor = append(floor, float64(peak0))
			}
			b.ReportMetric(float64(total)/median(secs), "entries/s")
			b.ReportMetric(median(rss)/1e6, "peak_MB")
			b.ReportMetric(median(rss1)/1e6, "peak_1group_MB")
			b.ReportMetric(median(floor)/1e6, "floor_MB")
			b.ReportMetric((median(rss)-median(floor))/1e6, "peak-floor_MB")
			b.ReportMetric(float64(bound)/1e6, "2x(largest+shared)_MB")
			b.ReportMetric(float64(boundRows)/1e6, "2x(largest_rows+shared)_MB")
			b.ReportMetric(float64(boundRows)/1e6, "2x(largest_rows+shared)_MB")
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
