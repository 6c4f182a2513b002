package exec

import (
	"math/rand"
	"runtime"
	"sort"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestAppendedGrowth: a result appended from nothing (Gustavson's AᵀA,
// its rows' keys and values appended in bursts) grows by doubling, so a
// first run allocates about twice its result's final keys and values
// (at most 4× where the last doubling just passes a power of two), not
// the 5× and more of append's growth by a quarter, which also copies
// four times the result and touches that much fresh memory. The bound
// asserted, 4.5× the result's 16 bytes an entry beside the input's
// transposition and workspaces, fails with append's growth (5.6× here).
func TestAppendedGrowth(t *testing.T) {
	const ata = "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) " +
		"sum(<p2, k> in A_idx(A_pos(i):A_pos(i + 1))) { j -> { k -> A_val(p) * A_val(p2) } }"
	r := rand.New(rand.NewSource(1))
	const rows, cols, perRow = 3000, 2000, 12
	pos, idx := []int{0}, []int{}
	for range rows {
		seen := map[int]bool{}
		var row []int
		for len(row) < perRow {
			if j := r.Intn(cols); !seen[j] {
				seen[j] = true
				row = append(row, j)
			}
		}
		sort.Ints(row)
		idx = append(idx, row...)
		pos = append(pos, len(idx))
	}
	in := csrInput(pos, idx)
	k, err := CompileFor(sdql.MustParse(ata), in, Options{Formats: csrFormats})
	if err != nil {
		t.Fatal(err)
	}
	res := k.NewResult()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := k.RunInto(res, in); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	entries := 0
	res.Value().(*sdql.Dict).Range(func(_ int, row sdql.Value) bool {
		entries += row.(*sdql.Dict).Len()
		return true
	})
	// beside the result: the transposition (tpos, par, at and the copy
	// of the structure) and the workspaces' marks, all of the input's size
	other := 8*(cols+1) + 2*8*len(idx) + 4*(len(idx)+rows+1) + 4*8*cols
	alloc := float64(after.TotalAlloc-before.TotalAlloc-uint64(other)) / float64(16*entries)
	t.Logf("%d entries: %.2f× their 16 bytes allocated", entries, alloc)
	if alloc > 4.5 {
		t.Errorf("a first run allocated %.2f× its result's %d entries of 16 bytes: the appended level does not grow by doubling", alloc, entries)
	}
}
