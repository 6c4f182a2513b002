package datasets

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/tabletest"
)

// fuzzSeeds are small tables of every kind: plain, grouped, with nulls,
// several batches.
func fuzzSeeds(f *testing.F) {
	dir := f.TempDir()
	tables := []struct {
		text  string
		batch int
		meta  map[string]string
	}{
		{"row:int64 col:int64 val:float64\n0 1 2.5\n2 0 -1\n", 0, map[string]string{MetaShape: "3,2"}},
		{"g:int32 i:int64 val:float32\n1 0 1\n1 3 2\n2 1 null\n3 null null\n", 2, nil},
		{"i0:int8 i1:uint16 i2:int32 val:decimal\n0 1 2 1.5\n1 0 0 -2\n", 1, nil},
		{"g:string i:int64 val:float64\na 0 1\nb 1 2\n", 0, nil},
		{"val:float64\n3\n", 0, nil},
	}
	for i, tb := range tables {
		for k, ext := range tableExts {
			path := filepath.Join(dir, "seed"+ext)
			if err := tabletest.Write(path, tb.text, tb.batch, tb.meta); err != nil {
				f.Fatal(err)
			}
			b, err := os.ReadFile(path)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(b, uint8(k), uint8(i))
		}
	}
}

// FuzzReadTable reads arbitrary bytes as a Parquet file, an Arrow IPC file
// and stream, whole and grouped by g: no input panics, errors are about the
// file, tensors are valid, and allocation stays bounded by the input's size
// (as a table of int64 or float64 columns could hold), not by what its
// metadata declares.
func FuzzReadTable(f *testing.F) {
	fuzzSeeds(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, kind, seed uint8) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(20 * time.Second):
				panic(fmt.Sprintf("reading %d bytes took over 20 s", len(data)))
			}
		}()
		path := filepath.Join(dir, "f"+tableExts[int(kind)%len(tableExts)])
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		limit := uint64(64<<20 + 400*len(data))
		var tt *TableTensor
		var err error
		alloc := allocatedBytes(func() { tt, err = ReadTable(path, TableOptions{}, formats.Format{}) })
		if alloc > limit {
			t.Fatalf("ReadTable allocated %d bytes for %d input bytes", alloc, len(data))
		}
		if err == nil && tt.Tensor != nil {
			if verr := tt.Tensor.Validate(); verr != nil {
				t.Fatalf("invalid tensor: %v", verr)
			}
		}
		alloc = allocatedBytes(func() {
			g, err := OpenGroups("g", []GroupInput{{Name: "A", Path: path}})
			if err != nil {
				return
			}
			defer g.Close()
			for range 1000 {
				grp, err := g.Next(nil)
				if errors.Is(err, io.EOF) || err != nil {
					return
				}
				if x := grp.Inputs["A"].Tensor; x != nil {
					if verr := x.Validate(); verr != nil {
						t.Fatalf("invalid group tensor: %v", verr)
					}
				}
			}
		})
		if alloc > limit {
			t.Fatalf("grouped reading allocated %d bytes for %d input bytes", alloc, len(data))
		}
	})
}
