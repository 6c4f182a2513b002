package exec

import (
	"testing"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestTransposeReuse: a kernel that transposes an input's structure
// (Gustavson's AᵀA) reuses the sort on a run over the same structure and
// sorts again when the structure changed, even in place (the same
// slices, new contents): every run agrees with the interpreter. On two
// threads the sort runs on two goroutines (TestMain lowers the least
// size it takes).
func TestTransposeReuse(t *testing.T) {
	for _, threads := range []int{1, 2} {
		transposeReuse(t, threads)
	}
}

func transposeReuse(t *testing.T, threads int) {
	const ata = "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) " +
		"sum(<p2, k> in A_idx(A_pos(i):A_pos(i + 1))) { j -> { k -> A_val(p) * A_val(p2) } }"
	prog := sdql.MustParse(ata)
	in := csrInput([]int{0, 2, 3, 5}, []int{0, 2, 1, 2, 3})
	k, err := CompileFor(prog, in, Options{Formats: csrFormats, Threads: threads})
	if err != nil {
		t.Fatal(err)
	}
	transposes := 0
	lower.WalkStmts(k.Program().Body, func(s lower.Stmt) {
		if _, ok := s.(*lower.Transpose); ok {
			transposes++
		}
	})
	if transposes != 1 {
		t.Fatalf("the kernel has %d transpositions, want 1 (the test exercises their reuse)\n%s", transposes, lower.Print(k.Program()))
	}
	res := k.NewResult()
	check := func(what string) {
		t.Helper()
		if err := k.RunInto(res, in); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		want, err := sdql.Eval(prog, in)
		if err != nil {
			t.Fatal(err)
		}
		if d := sdql.DiffDicts(res.Value(), want, 1e-12); d != "" {
			t.Fatalf("%s (%d threads): %s\ngot  %s\nwant %s", what, threads, d, sdql.FormatValue(res.Value()), sdql.FormatValue(want))
		}
	}
	check("first run")
	check("same structure")
	// new values, same structure: the sort is reused
	vals := in["A_val"].(sdql.RealArray)
	for i := range vals {
		vals[i] = -2 * vals[i]
	}
	check("new values")
	// the same arrays changed in place: row 0's second entry moves from
	// column 2 to column 3, row 2's entries from columns 2, 3 to 0, 1
	idx := in["A_idx"].(sdql.IntArray)
	copy(idx, []int{0, 3, 1, 0, 1})
	check("structure changed in place")
	// entries moved between rows, same idx: pos changed in place
	pos := in["A_pos"].(sdql.IntArray)
	copy(pos, []int{0, 1, 3, 5})
	copy(idx, []int{0, 1, 3, 0, 1})
	check("rows changed in place")
	check("again")
}

// TestIntsCopy: the copy a transposition keeps of the structure it
// sorted compares equal exactly to the array it copied, whether it holds
// it in int32 or, where an entry does not fit, in int: an array differing
// by 2³² in one entry (equal in int32) or in length is not equal.
func TestIntsCopy(t *testing.T) {
	for _, tc := range []struct {
		kept, other []int
		want        bool
	}{
		{[]int{0, 2, 5}, []int{0, 2, 5}, true},
		{[]int{0, 2, 5}, []int{0, 2, 6}, false},
		{[]int{0, 2, 5}, []int{0, 2}, false},
		{[]int{0, 2, 5}, []int{0, 2, 5 + 1<<32}, false},
		{[]int{0, 2, -5}, []int{0, 2, -5}, true},
		{[]int{1, 1 << 40}, []int{1, 1 << 40}, true},
		{[]int{1, 1 << 40}, []int{1, 0}, false},
		{[]int{1, 1<<40 + 1}, []int{1, 1}, false},
		{nil, []int{}, true},
	} {
		var c intsCopy
		c.keep([]int{7, 1 << 33}) // reused memory, wide then narrow
		c.keep(tc.kept)
		if got := c.equal(tc.other); got != tc.want {
			t.Errorf("a copy of %v equal to %v: %v, want %v", tc.kept, tc.other, got, tc.want)
		}
	}
}
