package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
)

// The scaling benchmark (make -C beam bench): the row-partitioned
// least-squares gradient Aᵀ(Ax − b) over
// synthetic:rows=2000000,cols=100000,density=0.00005 (10M entries) on
// Prism with 1, 2 and 4 workers, and nablasd's single-machine run of the
// same job as the baseline.
//
// Prism runs every worker in this one process (its loopback SDK harness
// runs up to 8 bundles at once and splits slow ones), so "workers" here is
// what one process can give: the job has as many row blocks as workers
// and the process as many cores (GOMAXPROCS). Each sub-benchmark reports
// the wall time (ns/op), the CPU time, the process's peak resident memory
// (runner and workers together) and the bytes sent to the shuffles (the
// shuffle_bytes counter: the entries keyed by block, and the blocks'
// partial results).
//
// The inputs are written once as Parquet into the user cache folder
// (about 160 MB), by the built nablasd, then rewritten in row groups of
// 2^20 rows (splits the workers read in parallel).

// scalingInput is the benchmark's matrix.
const scalingInput = "synthetic:rows=2000000,cols=100000,density=0.00005,seed=1"

// scalingData returns the directory holding the benchmark's A.parquet,
// b.parquet and x.parquet, writing them on first use.
func scalingData(b *testing.B) string {
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "nablasd", "beam-scaling-v2")
	done := filepath.Join(dir, "complete")
	if _, err := os.Stat(done); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		b.Fatal(err)
	}
	b.Logf("writing the scaling benchmark's inputs into %s", dir)
	for _, in := range []struct{ name, value string }{
		{"A", scalingInput},
		{"b", "synthetic:n=2000000,density=1,seed=2"},
		{"x", "synthetic:n=100000,density=1,seed=3:dense"},
	} {
		code, out, errs := runIn(dir, localBin, "eval", "-e", in.name, "--in", in.name+"="+in.value, "--out", in.name+".parquet")
		if code != 0 {
			b.Fatalf("writing %s: exit %d\n%s%s", in.name, code, out, errs)
		}
		// nablasd writes a tensor in one row group; a data set in a
		// warehouse comes in many, which the workers read in parallel
		if err := regroup(filepath.Join(dir, in.name+".parquet"), scalingRowGroup); err != nil {
			b.Fatalf("rewriting %s in row groups: %v", in.name, err)
		}
	}
	if err := os.WriteFile(done, nil, 0o644); err != nil {
		b.Fatal(err)
	}
	return dir
}

// scalingRowGroup is the rows of a row group of the benchmark's inputs
// (A: 10 row groups, b: 2).
const scalingRowGroup = 1 << 20

// regroup rewrites a Parquet file with row groups of the given rows,
// keeping its schema and metadata.
func regroup(path string, rows int64) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	pr, err := file.NewParquetReader(f)
	if err != nil {
		return err
	}
	fr, err := pqarrow.NewFileReader(pr, pqarrow.ArrowReadProperties{BatchSize: 1 << 16}, memory.DefaultAllocator)
	if err != nil {
		return err
	}
	tbl, err := fr.ReadTable(context.Background())
	if err != nil {
		return err
	}
	defer tbl.Release()
	tmp := path + ".regroup"
	out, err := os.Create(tmp)
	if err != nil {
		return err
	}
	defer os.Remove(tmp)
	w, err := pqarrow.NewFileWriter(tbl.Schema(), out,
		parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Snappy), parquet.WithMaxRowGroupLength(rows)),
		pqarrow.NewArrowWriterProperties(pqarrow.WithStoreSchema()))
	if err != nil {
		out.Close()
		return err
	}
	if err := w.WriteTable(tbl, rows); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// timed is one timed run of a binary: its wall time, CPU time (user and
// system), peak resident memory and standard error.
type timed struct {
	wall, cpu time.Duration
	maxRSS    int64 // bytes
	stderr    string
}

func timedRun(b *testing.B, dir string, env []string, bin string, args ...string) timed {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var stderr, stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := timed{wall: time.Since(start), stderr: stderr.String()}
	if err != nil {
		b.Fatalf("%s %q: %v\n%s%s", filepath.Base(bin), args, err, stdout.String(), stderr.String())
	}
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSS = ru.Maxrss * 1024 // Linux: KiB
	}
	return r
}

func (r timed) report(b *testing.B) {
	b.ReportMetric(float64(r.wall.Nanoseconds()), "ns/op")
	b.ReportMetric(r.cpu.Seconds(), "cpu-s/op")
	b.ReportMetric(float64(r.maxRSS)/(1<<20), "peak-MiB")
}

// BenchmarkScaling: see the comment above. Run it with -benchtime 1x
// (each run is a whole job); make -C beam bench runs interleaved rounds.
func BenchmarkScaling(b *testing.B) {
	dir := scalingData(b)
	const rows = 2000000
	lsq := "sum(<i, r> in A) let d = (sum(<j, a> in r) a * x(j)) - b(i) in 0.5 * d * d"
	job := []string{"grad", "-e", lsq, "--wrt", "x", "--in", "A=A.parquet", "--in", "b=b.parquet:dense", "--in", "x=x.parquet:dense"}
	b.Run("runner=nablasd/workers=1", func(b *testing.B) {
		var r timed
		for range b.N {
			r = timedRun(b, dir, []string{"GOMAXPROCS=1"}, localBin, append(job, "--out", "local.parquet")...)
		}
		r.report(b)
	})
	for _, w := range []int{1, 2, 4} {
		b.Run(fmt.Sprintf("runner=prism/workers=%d", w), func(b *testing.B) {
			var r timed
			for range b.N {
				r = timedRun(b, dir, []string{"GOMAXPROCS=" + strconv.Itoa(w)}, beamBin,
					append(job, "--partition-rows", strconv.Itoa(rows/w), "--out", fmt.Sprintf("prism-%d.parquet", w))...)
			}
			r.report(b)
			if n := counter(r.stderr, "blocks"); n != int64(w) {
				b.Fatalf("blocks=%d, want %d\n%s", n, w, r.stderr)
			}
			b.ReportMetric(float64(counter(r.stderr, "shuffle_bytes"))/(1<<20), "shuffle-MiB")
			sameResult(b, filepath.Join(dir, fmt.Sprintf("prism-%d.parquet", w)), filepath.Join(dir, "local.parquet"))
		})
	}
}
