package datasets

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/nablasd/nablasd/formats"
)

// TestFirstOnly: with GroupOptions.FirstOnly, the first group of a table
// not sorted by its key is the one the sorted table gives, to the bit
// (the same tensor, rows, key), with a shared input beside it, without a
// sort (no temporary file, Sorted empty); Next then ends. Over Parquet
// and Arrow, in CSR and COO.
func TestFirstOnly(t *testing.T) {
	dir := t.TempDir()
	sizes := []int{300, 40, 1000, 7, 250}
	for _, ext := range []string{".parquet", ".arrows"} {
		path := filepath.Join(dir, "A"+ext)
		writeGroupedTable(t, path, sizes, 50, 128, true)
		for _, f := range []formats.Format{formats.CSR, formats.COO} {
			t.Run(fmt.Sprintf("%s/%s", ext, f), func(t *testing.T) {
				in := []GroupInput{{Name: "A", Path: path, Format: f}}
				tmp := t.TempDir()
				first := func(o *GroupOptions) *Group {
					g, err := OpenGroupsWith("g", in, o)
					if err != nil {
						t.Fatal(err)
					}
					defer g.Close()
					grp, err := g.Next(nil)
					if err != nil {
						t.Fatal(err)
					}
					if names, _ := g.Sorted(); o.FirstOnly {
						if len(names) != 0 {
							t.Errorf("FirstOnly sorted %v", names)
						}
						if _, err := g.Next(nil); !errors.Is(err, io.EOF) {
							t.Errorf("FirstOnly: a second group (%v)", err)
						}
					}
					return grp
				}
				got, want := first(&GroupOptions{FirstOnly: true, TempDir: tmp}), first(&GroupOptions{TempDir: t.TempDir()})
				if left, _ := os.ReadDir(tmp); len(left) != 0 {
					t.Errorf("FirstOnly left %d files", len(left))
				}
				if got.Key != want.Key || got.Rows != want.Rows {
					t.Errorf("key %v, %d rows; the sort's %v, %d", got.Key, got.Rows, want.Key, want.Rows)
				}
				a, b := got.Inputs["A"].Tensor, want.Inputs["A"].Tensor
				if fmt.Sprint(a.Shape, a.Pos, a.Idx, a.Val) != fmt.Sprint(b.Shape, b.Pos, b.Idx, b.Val) {
					t.Errorf("tensor %v, the sort's %v", a, b)
				}
			})
		}
	}
}
