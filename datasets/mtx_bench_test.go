package datasets

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// writeBenchMatrix writes a real general n-entry matrix file like
// SuiteSparse ones.
func writeBenchMatrix(tb testing.TB, dir string, nnz int) string {
	c, err := Generate(SynthSpec{Dims: []int{nnz / 40, nnz / 40}, NNZ: nnz, Kind: "banded", Seed: 1})
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, fmt.Sprintf("bench%d.mtx", nnz))
	// Values with 16 significant digits, as the collection writes them.
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", c.Shape[0], c.Shape[1], c.NNZ())
	for e, v := range c.Val {
		fmt.Fprintf(w, "%d %d %.16g\n", c.Idx[0][e]+1, c.Idx[1][e]+1, v*1000)
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	f.Close()
	return path
}

// BenchmarkLoadMatrixMarket loads a 2M-entry file and reports, besides the
// load rate, entries/s and the ratio to `wc -l` on the same file (x_wc).
func BenchmarkLoadMatrixMarket(b *testing.B) {
	for _, nnz := range []int{2_000_000} {
		b.Run(fmt.Sprintf("entries=%d", nnz), func(b *testing.B) {
			path := writeBenchMatrix(b, b.TempDir(), nnz)
			st, _ := os.Stat(path)
			b.SetBytes(st.Size())
			b.ResetTimer()
			start := time.Now()
			for range b.N {
				if _, _, err := LoadMatrixMarket(path); err != nil {
					b.Fatal(err)
				}
			}
			per := time.Since(start) / time.Duration(b.N)
			b.ReportMetric(float64(nnz)/per.Seconds(), "entries/s")
			b.StopTimer()
			if wc, err := exec.LookPath("wc"); err == nil {
				best := time.Hour
				for range 5 {
					t0 := time.Now()
					if err := exec.Command(wc, "-l", path).Run(); err != nil {
						b.Fatal(err)
					}
					best = min(best, time.Since(t0))
				}
				b.ReportMetric(per.Seconds()/best.Seconds(), "x_wc")
			}
		})
	}
}

// BenchmarkParseCoordText parses the lines of a 2M-entry file held in
// memory on one goroutine: the parser's cost without I/O or parallelism.
func BenchmarkParseCoordText(b *testing.B) {
	path := writeBenchMatrix(b, b.TempDir(), 2_000_000)
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	body := data[bytes.IndexByte(data[bytes.IndexByte(data, '\n')+1:], '\n')+bytes.IndexByte(data, '\n')+2:]
	p := &mmParser{name: "bench.mtx", h: Header{Format: "coordinate", Field: "real", Symmetry: "general", Rows: 50000, Cols: 50000, Entries: 2_000_000}}
	out := coordOut{make([]int, 0, 2_000_000), make([]int, 0, 2_000_000), make([]float64, 0, 2_000_000)}
	big := 0
	for _, line := range bytes.Split(body[:len(body)-1], []byte("\n")) {
		f := bytes.Fields(line)
		m := strings.TrimLeft(strings.ReplaceAll(strings.Split(string(f[2]), "e")[0], ".", ""), "-0")
		if u, err := strconv.ParseUint(m, 10, 64); err != nil || u > 1<<53 {
			big++
		}
	}
	b.Logf("%d of 2000000 mantissas exceed 2^53", big)
	b.SetBytes(int64(len(body)))
	b.ResetTimer()
	for range b.N {
		out.I, out.J, out.V = out.I[:0], out.J[:0], out.V[:0]
		if _, c, err := p.parseCoordText(body, 2, 2_000_000, &out); err != nil || c != 2_000_000 {
			b.Fatal(c, err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2e6, "ns/entry")
}
