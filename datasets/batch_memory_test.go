package datasets

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/nablasd/nablasd/formats"
)

// writeGroupedTable writes a table (g, row, col, val) of groups sorted by
// g, group g having sizes[g] entries in rows of 0..n-1, in record batches
// of batch rows (Parquet row groups of 64Ki rows); with shuffle, its rows
// in a random order. It returns the table's size in bytes as Go slices
// (what reading it whole would hold: 8 bytes a column a row).
func writeGroupedTable(t testing.TB, path string, sizes []int, n, batch int, shuffle ...bool) int64 {
	r := rand.New(rand.NewPCG(1, 2))
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "g", Type: arrow.PrimitiveTypes.Int64}, {Name: "row", Type: arrow.PrimitiveTypes.Int64},
		{Name: "col", Type: arrow.PrimitiveTypes.Int64}, {Name: "val", Type: arrow.PrimitiveTypes.Float64},
	}, nil)
	w, err := createTable(path, schema, 1<<16, true)
	if err != nil {
		t.Fatal(err)
	}
	b := array.NewRecordBuilder(goAlloc, schema)
	defer b.Release()
	rows := 0
	flush := func() {
		rec := b.NewRecordBatch()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		rec.Release()
	}
	type row struct{ g, e int32 }
	var order []row
	for g, size := range sizes {
		for e := 0; e < size; e++ {
			order = append(order, row{int32(g), int32(e)})
		}
	}
	if len(shuffle) > 0 && shuffle[0] {
		r.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	}
	for _, o := range order {
		g, e, size := int(o.g), int(o.e), sizes[o.g]
		b.Field(0).(*array.Int64Builder).Append(int64(g))
		b.Field(1).(*array.Int64Builder).Append(int64(e * n / size))
		b.Field(2).(*array.Int64Builder).Append(int64(r.IntN(n)))
		b.Field(3).(*array.Float64Builder).Append(r.Float64())
		if rows++; rows%batch == 0 {
			flush()
		}
	}
	order = nil
	if rows%batch != 0 {
		flush()
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return int64(rows) * 32
}

// parquetOverhead returns a Parquet file's footer size and the bytes of
// one decoded page of each column (the largest column chunk, uncompressed,
// up to the 1 MiB page limit of the usual writers): what a reader holds
// whatever the groups.
func parquetOverhead(t testing.TB, path string) (footer, pages int64) {
	tf, err := openTable(path)
	if err != nil {
		t.Fatal(err)
	}
	defer tf.close()
	if tf.pq == nil {
		return 0, 0
	}
	md := tf.pq.MetaData()
	for c := range md.NumColumns() {
		largest := int64(0)
		for rg := range md.NumRowGroups() {
			cc, err := md.RowGroup(rg).ColumnChunk(c)
			if err != nil {
				t.Fatal(err)
			}
			largest = max(largest, min(cc.TotalUncompressedSize(), 1<<20))
		}
		pages += largest
	}
	return int64(md.Size()), pages
}

// liveHeap is the Go heap in use after a collection.
func liveHeap() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}

// TestGroupedJobMemory shows that a grouped job's memory is bounded by its
// largest group and its shared inputs, not by its table: jobs over tables
// of 40 and 320 groups (the same largest group, 8× the entries) hold the
// same live heap at their peak (measured in every step, after a
// collection, from before the inputs are opened), far below the table,
// and within twice the largest group and the shared input, plus two
// record batches of the input (the one being read, and the one a group
// that straddles batches was copied from), and for Parquet one decoded
// page of each column and the file's footer (decoded, about four times its
// size on disk: it grows with the number of row groups, not of entries).
// The same tables shuffled (not sorted by the key) are sorted in
// temporary files first: measured too when each run of the sort is
// gathered, their peak keeps the bound with the sort's memory
// (GroupOptions.SortMemory, here 512 KiB) beside it, and flat in the
// table's size.
func TestGroupedJobMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping the memory test")
	}
	for _, shuffle := range []bool{false, true} {
		t.Run(fmt.Sprintf("shuffled=%v", shuffle), func(t *testing.T) { groupedJobMemory(t, shuffle) })
	}
}

func groupedJobMemory(t *testing.T, shuffle bool) {
	const n, largest, batch = 20_000, 40_000, streamBatchRows
	const sortMemory = 512 << 10
	dir := t.TempDir()
	// the shared input: a dense vector of n entries
	xpath := filepath.Join(dir, "x.arrow")
	x, err := formats.FromSortedCoords([]int{n}, [][]int{make([]int, 0)}, nil, formats.COO)
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteTensorTable(xpath, x, nil); err != nil {
		t.Fatal(err)
	}
	for _, ext := range []string{".parquet", ".arrows"} {
		peaks := map[int]int64{}
		for _, groups := range []int{40, 320} {
			r := rand.New(rand.NewPCG(uint64(groups), 3))
			sizes := make([]int, groups)
			for g := range sizes {
				sizes[g] = 1000 + r.IntN(largest/4)
			}
			sizes[groups/2] = largest
			path := filepath.Join(dir, fmt.Sprintf("A%d%s", groups, ext))
			tableBytes := writeGroupedTable(t, path, sizes, n, batch, shuffle)
			base := liveHeap() // before the shared input is read
			var peak int64
			sortProbe = func() { peak = max(peak, liveHeap()-base) }
			g, err := OpenGroupsWith("g", []GroupInput{{Name: "A", Path: path}, {Name: "x", Path: xpath, Format: formats.Dense}},
				&GroupOptions{SortMemory: sortMemory, TempDir: dir})
			sortProbe = nil
			if err != nil {
				t.Fatal(err)
			}
			if names, _ := g.Sorted(); (len(names) > 0) != shuffle {
				t.Fatalf("shuffled %v: sorted %v", shuffle, names)
			}
			job := &Job{Groups: g, Out: filepath.Join(dir, fmt.Sprintf("out%d%s", groups, ext)), Workers: 1,
				Step: func(grp *Group) (*TableTensor, error) {
					// the step's peak: the group's tensors are alive
					peak = max(peak, liveHeap()-base)
					s := 0.0
					for _, v := range grp.Inputs["A"].Tensor.Val {
						s += v
					}
					return &TableTensor{Scalar: s}, nil
				}}
			st, err := job.Run(context.Background())
			g.Close()
			if err != nil {
				t.Fatal(err)
			}
			if st.Groups != groups {
				t.Fatalf("%d groups run, want %d", st.Groups, groups)
			}
			// bytes as a CSR tensor: row pointers, column indices, values
			largestBytes := int64(largest*16 + (n+1)*8)
			sharedBytes := int64(n * 8)
			batchBytes := int64(batch * 32)
			footer, pages := parquetOverhead(t, path)
			bound := 2*(largestBytes+sharedBytes) + 2*batchBytes + 4*footer + 2*pages
			if shuffle {
				bound += sortMemory
			}
			sortBytes := int64(0)
			if shuffle {
				sortBytes = sortMemory
			}
			t.Logf("%s %d groups: table %d KiB, peak live heap %d KiB, bound 2×(largest group %d KiB + shared %d KiB) + 2 batches %d KiB + 4 × footer %d KiB + 2 pages a column %d KiB + the sort %d KiB = %d KiB",
				ext, groups, tableBytes>>10, peak>>10, largestBytes>>10, sharedBytes>>10, batchBytes>>10, footer>>10, pages>>10, sortBytes>>10, bound>>10)
			if peak > bound {
				t.Errorf("%s %d groups: peak live heap %d KiB over the bound %d KiB", ext, groups, peak>>10, bound>>10)
			}
			if groups == 320 && peak > tableBytes/8 {
				t.Errorf("%s %d groups: peak live heap %d KiB is not small next to the table's %d KiB", ext, groups, peak>>10, tableBytes>>10)
			}
			peaks[groups] = peak
		}
		if peaks[320] > peaks[40]*3/2+256<<10 {
			t.Errorf("%s: the peak grew with the table: %d KiB for 40 groups, %d KiB for 320", ext, peaks[40]>>10, peaks[320]>>10)
		}
	}
}
