package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// overheadTable writes a Parquet table (g int64, i int64, val double) of
// groups groups sorted by g, each of size entries at distinct indices
// below extent in ascending order, values in [-1, 1): the shape of a
// SuiteSparse matrix grouped by its columns (e40r0000: 17,281 columns of
// about 32 entries).
func overheadTable(b testing.TB, path string, groups, size, extent int) {
	r := rand.New(rand.NewPCG(7, uint64(groups)))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: arrow.PrimitiveTypes.Int64}, {Name: "i", Type: arrow.PrimitiveTypes.Int64},
		{Name: "val", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy)), pqarrow.DefaultWriterProps())
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
	seen := map[int]bool{}
	idx := make([]int, 0, size)
	for g := range groups {
		clear(seen)
		idx = idx[:0]
		for len(idx) < size {
			if i := r.IntN(extent); !seen[i] {
				seen[i] = true
				idx = append(idx, i)
			}
		}
		slices.Sort(idx)
		for _, i := range idx {
			bld.Field(0).(*array.Int64Builder).Append(int64(g))
			bld.Field(1).(*array.Int64Builder).Append(int64(i))
			bld.Field(2).(*array.Float64Builder).Append(2*r.Float64() - 1)
		}
		if bld.Field(0).Len() >= 1<<16 {
			flush()
		}
	}
	flush()
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
}

// handGrouped is the hand-written job: it reads the table's record
// batches (pqarrow), computes each group's gradient of sum(<i, a> in x)
// a * a with respect to x, 2a at x's stored positions, into one output
// table per run of the key (g, i0, val; Snappy), and returns the rows
// written.
func handGrouped(b testing.TB, in, out string) int64 {
	rf, err := file.OpenParquetFile(in, false)
	if err != nil {
		b.Fatal(err)
	}
	defer rf.Close()
	fr, err := pqarrow.NewFileReader(rf, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		b.Fatal(err)
	}
	rr, err := fr.GetRecordReader(context.Background(), nil, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer rr.Release()
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: arrow.PrimitiveTypes.Int64}, {Name: "i0", Type: arrow.PrimitiveTypes.Int64},
		{Name: "val", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	f, err := os.Create(out)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	w, err := pqarrow.NewFileWriter(schema, f, parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy)), pqarrow.DefaultWriterProps())
	if err != nil {
		b.Fatal(err)
	}
	bld := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer bld.Release()
	gs, is, vs := bld.Field(0).(*array.Int64Builder), bld.Field(1).(*array.Int64Builder), bld.Field(2).(*array.Float64Builder)
	rows := int64(0)
	for rr.Next() {
		rec := rr.RecordBatch()
		g := rec.Column(0).(*array.Int64).Int64Values()
		idx := rec.Column(1).(*array.Int64).Int64Values()
		val := rec.Column(2).(*array.Float64).Float64Values()
		for lo := 0; lo < len(g); {
			hi := lo
			for hi < len(g) && g[hi] == g[lo] {
				hi++
			}
			// a group: its gradient
			for p := lo; p < hi; p++ {
				gs.Append(g[p])
				is.Append(idx[p])
				vs.Append(2 * val[p])
			}
			rows += int64(hi - lo)
			lo = hi
		}
		out := bld.NewRecordBatch()
		if err := w.WriteBuffered(out); err != nil {
			b.Fatal(err)
		}
		out.Release()
	}
	if err := rr.Err(); err != nil {
		b.Fatal(err)
	}
	if err := w.Close(); err != nil {
		b.Fatal(err)
	}
	return rows
}

// groupTensors reads the table's groups as COO vectors of the given
// extent, for the kernel alone.
func groupTensors(b *testing.B, in string, extent int) []*formats.Tensor {
	tt, err := datasets.ReadTable(in, datasets.TableOptions{Index: []string{"g", "i"}}, formats.COO)
	if err != nil {
		b.Fatal(err)
	}
	idx, val, err := tt.Tensor.Coords()
	if err != nil {
		b.Fatal(err)
	}
	var out []*formats.Tensor
	for lo := 0; lo < len(val); {
		hi := lo
		for hi < len(val) && idx[0][hi] == idx[0][lo] {
			hi++
		}
		x, err := formats.FromSortedCoords([]int{extent}, [][]int{idx[1][lo:hi]}, val[lo:hi], formats.COO)
		if err != nil {
			b.Fatal(err)
		}
		out = append(out, x)
		lo = hi
	}
	return out
}

// kernelAlone runs the job's kernel (compiled once, as the job's) over
// every group's tensor into one destination, as the API's Kernel.Run.
func kernelAlone(b *testing.B, prog string, groups []*formats.Tensor) {
	q, err := nablasd.Prepare(prog, nablasd.Inputs{"x": groups[0]}, &nablasd.Options{Exec: "compiled", Threads: 1})
	if err != nil {
		b.Fatal(err)
	}
	k, err := q.Compile("x")
	if err != nil {
		b.Fatal(err)
	}
	res := k.NewResult()
	for _, x := range groups {
		if err := k.Run(res, nablasd.Inputs{"x": x}); err != nil {
			b.Fatal(err)
		}
	}
}

// cpuTime is the process's user and system time so far (every thread's:
// the collector's too).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkGroupOverhead measures what a grouped job pays per group: the
// gradient of sum(<i, a> in x) a * a with respect to x (2a at x's stored
// positions, a few multiply-adds a group) over tables of many small
// groups, run by the command (in this process, one worker) next to a
// hand-written Go loop doing the same work over the same rows (reading
// the table's record batches and writing a Parquet table of the
// results), and to the job's kernel alone over the same groups' tensors
// (read beforehand). It reports each one's wall time a group (job_ns,
// hand_ns, kernel_ns), the job's over the hand-written loop's (job/hand),
// and the same in processor time (user and system, the collector's
// included: job_cpu/hand_cpu), steadier than wall time on a shared
// machine.
//
//	go test -run '^$' -bench GroupOverhead -benchtime 3x ./cmd/nablasd
func BenchmarkGroupOverhead(b *testing.B) {
	for _, c := range []struct{ groups, size int }{{1000, 32}, {17281, 32}, {100, 10000}} {
		dir := b.TempDir()
		in := filepath.Join(dir, "x.parquet")
		extent := max(c.groups, c.size*2)
		overheadTable(b, in, c.groups, c.size, extent)
		prog := "sum(<i, a> in x) a * a"
		tensors := groupTensors(b, in, extent)
		b.Run(fmt.Sprintf("groups=%d/size=%d", c.groups, c.size), func(b *testing.B) {
			var job, hand, kernel, jobCPU, handCPU float64
			for n := range b.N {
				out := filepath.Join(dir, fmt.Sprintf("out%d.parquet", n))
				start, cpu := time.Now(), cpuTime()
				code, _, stderr := runCLI("grad", "-e", prog, "--wrt", "x", "--in", fmt.Sprintf("x=%s?i=i,shape=%d", in, extent),
					"--group-by", "g", "--out", out, "--threads", "1", "--quiet", "--exec", "compiled")
				if code != 0 {
					b.Fatalf("job: %s", stderr)
				}
				job += float64(time.Since(start))
				jobCPU += float64(cpuTime() - cpu)
				start, cpu = time.Now(), cpuTime()
				if rows := handGrouped(b, in, filepath.Join(dir, "hand.parquet")); rows != int64(c.groups*c.size) {
					b.Fatalf("hand: %d rows, want %d", rows, c.groups*c.size)
				}
				hand += float64(time.Since(start))
				handCPU += float64(cpuTime() - cpu)
				start = time.Now()
				kernelAlone(b, prog, tensors)
				kernel += float64(time.Since(start))
				os.Remove(out)
			}
			b.ReportMetric(job/float64(b.N)/float64(c.groups), "job_ns/group")
			b.ReportMetric(hand/float64(b.N)/float64(c.groups), "hand_ns/group")
			b.ReportMetric(kernel/float64(b.N)/float64(c.groups), "kernel_ns/group")
			b.ReportMetric(job/hand, "job/hand")
			b.ReportMetric(jobCPU/handCPU, "job_cpu/hand_cpu")
		})
	}
}

// TestGroupOverheadOutput: the job BenchmarkGroupOverhead times gives,
// group by group, what the hand-written loop gives (2a at x's stored
// positions), over 2,100 groups of 32 entries: more rows than the
// journal gathers into one write of the output, so the output is written
// in several.
func TestGroupOverheadOutput(t *testing.T) {
	const groups, size, extent = 2100, 32, 4000
	dir := t.TempDir()
	in := filepath.Join(dir, "x.parquet")
	overheadTable(t, in, groups, size, extent)
	out, hand := filepath.Join(dir, "out.parquet"), filepath.Join(dir, "hand.parquet")
	code, _, stderr := runCLI("grad", "-e", "sum(<i, a> in x) a * a", "--wrt", "x", "--in", fmt.Sprintf("x=%s?i=i,shape=%d", in, extent),
		"--group-by", "g", "--out", out, "--quiet")
	if code != 0 {
		t.Fatalf("job: %s", stderr)
	}
	if rows := handGrouped(t, in, hand); rows != groups*size {
		t.Fatalf("hand: %d rows", rows)
	}
	got, want := readGroups(t, out, "g"), readGroups(t, hand, "g")
	if len(got) != groups || len(want) != groups {
		t.Fatalf("%d groups from the job, %d by hand, want %d", len(got), len(want), groups)
	}
	for g, w := range want {
		if !sdql.ApproxEqual(got[g], w, 0) {
			t.Errorf("group %d: job %.200s, by hand %.200s", g, sdql.FormatValue(got[g]), sdql.FormatValue(w))
		}
	}
}
