package nablasd

import (
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestParallelGrainCountsInnerLoops: a loop of few iterations, each over
// a long inner range (a stencil's rows), has the work of all its inner
// iterations, and two goroutines split it; the value is the serial one.
// The grain counted only the outer iterations (64 < exec's least work),
// so such a loop always ran on one goroutine.
func TestParallelGrainCountsInnerLoops(t *testing.T) {
	const rows, cols = 64, 2000
	var r, c []int
	var v []float64
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			r, c, v = append(r, i), append(c, j), append(v, float64((i*7+j)%13)/4)
		}
	}
	U, err := formats.FromCoords([]int{rows, cols}, [][]int{r, c}, v, formats.Dense)
	if err != nil {
		t.Fatal(err)
	}
	prog := "sum(<i, _> in (1:n - 1)) sum(<j, _> in (1:m - 1)) let d = U(i - 1)(j) + U(i + 1)(j) - 2 * U(i)(j + 1) in d * d"
	var want sdql.Value
	for _, threads := range []int{1, 2} {
		q, err := Prepare(prog, Inputs{"U": U, "n": rows, "m": cols}, &Options{Exec: "compiled", Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile()
		if err != nil {
			t.Fatal(err)
		}
		res := k.NewResult()
		if err := k.Run(res, nil); err != nil {
			t.Fatal(err)
		}
		if threads == 1 {
			want = res.Value()
			continue
		}
		if d := sdql.DiffDicts(res.Value(), want, 1e-12); d != "" {
			t.Errorf("two goroutines: %s", d)
		}
		if got := k.Threads(); got != 2 {
			t.Errorf("a loop of %d rows of %d entries ran on %d goroutines, want 2", rows-2, cols-2, got)
		}
	}
}
