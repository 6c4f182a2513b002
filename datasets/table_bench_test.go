package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nablasd/nablasd/formats"
)

// BenchmarkLoadTable loads the same 4M-entry matrix (banded, 100,000 ×
// 100,000, values with 16 significant digits) into CSR from Matrix Market
// and from Parquet and Arrow files written by WriteTable, interleaved:
// source=mtx is LoadMatrixMarket then formats.FromCoords, as `--in A=a.mtx`
// does; the tables are ReadTable. x_mtx is the median of the per-round
// ratios of the Matrix Market load time to the table's (issue 12 asks
// ≥ 3 for Parquet).
func BenchmarkLoadTable(b *testing.B) {
	const nnz = 4_000_000
	dir := b.TempDir()
	mtx := writeBenchMatrix(b, dir, nnz)
	c, _, err := LoadMatrixMarket(mtx)
	if err != nil {
		b.Fatal(err)
	}
	x, err := formats.FromCoords(c.Shape, c.Idx, c.Val, formats.CSR)
	if err != nil {
		b.Fatal(err)
	}
	loaders := map[string]func() error{
		"mtx": func() error {
			c, _, err := LoadMatrixMarket(mtx)
			if err == nil {
				_, err = formats.FromCoords(c.Shape, c.Idx, c.Val, formats.CSR)
			}
			return err
		},
	}
	for _, ext := range tableExts {
		path := filepath.Join(dir, "bench"+ext)
		if err := WriteTensorTable(path, x, nil); err != nil {
			b.Fatal(err)
		}
		loaders[ext[1:]] = func() error {
			_, err := ReadTable(path, TableOptions{}, formats.CSR)
			return err
		}
	}
	timeOnce := func(f func() error) time.Duration {
		start := time.Now()
		if err := f(); err != nil {
			b.Fatal(err)
		}
		return time.Since(start)
	}
	for _, src := range []string{"mtx", "parquet", "arrow", "arrows"} {
		b.Run(fmt.Sprintf("source=%s/entries=%d", src, nnz), func(b *testing.B) {
			if src != "mtx" {
				st, _ := os.Stat(filepath.Join(dir, "bench."+src))
				b.SetBytes(st.Size())
			}
			var ratios []float64
			b.ResetTimer()
			var total time.Duration
			for range b.N {
				d := timeOnce(loaders[src])
				total += d
				b.StopTimer()
				if src != "mtx" {
					ratios = append(ratios, timeOnce(loaders["mtx"]).Seconds()/d.Seconds())
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(nnz)/(total.Seconds()/float64(b.N)), "entries/s")
			if len(ratios) > 0 {
				b.ReportMetric(median(ratios), "x_mtx")
			}
		})
	}
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
