package pipeline

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
	"github.com/nablasd/nablasd/sdql"
)

// TestBlocksAreTheirRows: for every format and order, a row block built
// from a table's chunks is, as a dictionary (keys and all), exactly the
// whole tensor's rows lo..hi-1; so the blocks' dictionaries partition the
// whole one's rows.
func TestBlocksAreTheirRows(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	dir := t.TempDir()
	for _, shape := range [][]int{{11}, {11, 4}, {11, 3, 2}} {
		path := filepath.Join(dir, fmt.Sprintf("T%d.parquet", len(shape)))
		writeRandomTable(t, r, path, shape)
		for _, f := range formats.All() {
			if !f.Supports(len(shape)) {
				continue
			}
			st, err := Table{Name: "A", Path: path, Format: f.Name(), Shape: shape}.open("")
			if err != nil {
				t.Fatal(err)
			}
			var all []*datasets.Chunk
			for s := range st.Splits() {
				if err := st.Read(s, func(c *datasets.Chunk) error { all = append(all, c); return nil }); err != nil {
					t.Fatal(err)
				}
			}
			whole, err := st.Tensor(all)
			if err != nil {
				t.Fatal(err)
			}
			wv := formats.ToValue(whole.Tensor)
			for _, n := range []int{1, 3, 4, 11, 20} {
				for lo := 0; lo < shape[0]; lo += n {
					hi := lo + n
					var in []*datasets.Chunk
					for _, c := range all {
						if part := rowsOf(c, lo, hi); part != nil {
							in = append(in, part)
						}
					}
					b, err := blockTensor(st, in, lo, hi)
					if err != nil {
						t.Fatalf("%v %s: %v", shape, f.Name(), err)
					}
					if err := b.Tensor.Validate(); err != nil {
						t.Fatalf("%v %s rows %d..%d: %v", shape, f.Name(), lo, hi-1, err)
					}
					got := sdql.FormatValue(formats.ToValue(b.Tensor))
					want := sdql.FormatValue(restrict(wv, lo, hi))
					if got != want {
						t.Errorf("%v %s rows %d..%d: block %s\nwant %s", shape, f.Name(), lo, hi-1, got, want)
					}
				}
			}
			st.Close()
		}
	}
}

// rowsOf is a chunk's entries in rows lo..hi-1 (nil for none).
func rowsOf(c *datasets.Chunk, lo, hi int) *datasets.Chunk {
	out := &datasets.Chunk{Row: c.Row, Idx: make([][]int, len(c.Idx))}
	for e, i := range c.Idx[0] {
		if i >= lo && i < hi {
			for m := range c.Idx {
				out.Idx[m] = append(out.Idx[m], c.Idx[m][e])
			}
			out.Val = append(out.Val, c.Val[e])
		}
	}
	if len(out.Val) == 0 {
		return nil
	}
	return out
}

func restrict(v sdql.Value, lo, hi int) sdql.Value {
	d := sdql.NewDict()
	sdql.Entries(v, func(k int, x sdql.Value) bool {
		if k >= lo && k < hi {
			d.Set(k, x)
		}
		return true
	})
	return d
}

// writeRandomTable writes a table of random entries (coordinates stored
// twice among them, rows left empty) in row groups of 5 rows.
func writeRandomTable(t *testing.T, r *rand.Rand, path string, shape []int) {
	var b strings.Builder
	for m := range shape {
		fmt.Fprintf(&b, "i%d:int64 ", m)
	}
	b.WriteString("val:float64\n")
	for range 25 {
		i0 := r.IntN(shape[0])
		if i0%4 == 1 {
			continue
		}
		fmt.Fprintf(&b, "%d ", i0)
		for _, n := range shape[1:] {
			fmt.Fprintf(&b, "%d ", r.IntN(n))
		}
		fmt.Fprintf(&b, "%d\n", r.IntN(9)-4)
	}
	if err := tabletest.Write(path, b.String(), 5, nil); err != nil {
		t.Fatal(err)
	}
}
