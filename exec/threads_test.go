package exec

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestThreadsChoice: with Options.Threads > 1 a program the whole-loop
// primitives run keeps them and runs serially (Threads() == 1), a program
// they do not cover has its outermost range split across the workers
// (Threads() == Options.Threads), and both give the serial results.
func TestThreadsChoice(t *testing.T) {
	inputs := map[string]sdql.Value{
		"A_len": sdql.Int(6),
		"A_pos": sdql.IntArray{0, 2, 3, 3, 5, 6, 8},
		"A_idx": sdql.IntArray{0, 3, 1, 0, 2, 4, 1, 3},
		"A_val": sdql.RealArray{1, 2, 3, 4, 5, 6, 7, 8},
	}
	for _, c := range []struct {
		name, src string
		split     bool
	}{
		// column sums: a scatter-add over the positions
		{"fast", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }", false},
		// a row's key computed from its values: no primitive applies
		{"general", "sum(<_, i> in (0:A_len)) { i -> sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) if A_val(p) > 2.5 then { j * j -> exp(A_val(p) / 8.0) } }", true},
	} {
		prog, err := sdql.Parse(c.name, c.src)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sdql.Eval(prog, inputs)
		if err != nil {
			t.Fatal(err)
		}
		k, err := CompileFor(prog, inputs, Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Threads() == 2; got != c.split {
			t.Errorf("%s: split across workers %v, want %v (fast loops %d)", c.name, got, c.split, k.c.fast)
		}
		for run := 0; run < 3; run++ {
			res, err := k.Run(inputs)
			if err != nil {
				t.Fatal(err)
			}
			if got := res.Value(); !sdql.Equal(got, want) {
				t.Errorf("%s: threads=2 gives %s, interpreter %s", c.name, sdql.FormatValue(got), sdql.FormatValue(want))
			}
		}
	}
}
