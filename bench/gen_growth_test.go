package bench

import (
	"runtime"
	"testing"

	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// TestGeneratedAppendedGrowth: the generated BATAx (bench/gen) grows its
// appended result by doubling (PFXRoom), as exec does
// (TestAppendedGrowth): a first run allocates at most 4.5× its result's
// keys and values beside the transposition and workspaces, where
// append's growth by a quarter allocates 5.5× and more.
func TestGeneratedAppendedGrowth(t *testing.T) {
	m, err := datasets.ParseSynthetic("rows=3000,cols=2000,density=0.006,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := NewCase("batax", "csr", "growth", m)
	if err != nil {
		t.Fatal(err)
	}
	mk := gen.Bind["batax_csr"]
	if mk == nil {
		t.Fatal("bench/gen has no batax_csr (go run ./bench/cmd/gengo)")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	run, value := mk(cs.Bindings)
	run()
	runtime.ReadMemStats(&after)
	entries := 0
	value().(*sdql.Dict).Range(func(_ int, row sdql.Value) bool {
		entries += row.(*sdql.Dict).Len()
		return true
	})
	nnz, cols := len(m.Val), m.Shape[1]
	// beside the result: the transposition (tpos, par, at and the copy
	// of the structure), the workspace and marks, the rows' spans
	other := 8*(cols+1) + 2*8*nnz + 4*(nnz+m.Shape[0]+1) + 4*8*cols
	alloc := float64(after.TotalAlloc-before.TotalAlloc-uint64(other)) / float64(16*entries)
	t.Logf("%d entries: %.2f× their 16 bytes allocated", entries, alloc)
	if alloc > 4.5 {
		t.Errorf("a first run allocated %.2f× its result's %d entries of 16 bytes: the appended level does not grow by doubling", alloc, entries)
	}
}
