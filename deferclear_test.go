package nablasd_test

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
)

// TestDeferredClearClosures: the closures on two goroutines run the column
// sums' parallel loop (the gradient of Σ A(i,j) x(j) with respect to x)
// with the destination's Init clear on the loop's first worker, in its
// serial form and in the else of the if around it (lower/deferclear.go).
// Each run goes into the destination a run over a large matrix filled
// first, so a path that skipped its clear would add to those sums: a
// large matrix again (the workers), a small one (the serial form) and one
// without rows (the else).
func TestDeferredClearClosures(t *testing.T) {
	const cols = 16
	matrix := func(rows int, scale float64) (*formats.Tensor, []float64) {
		var ri, ci []int
		var vals []float64
		sums := make([]float64, cols)
		for i := 0; i < rows; i++ {
			for _, j := range []int{i % cols, (i + 5) % cols} {
				v := scale * float64(i%7+j+1)
				ri, ci, vals = append(ri, i), append(ci, j), append(vals, v)
				sums[j] += v
			}
		}
		a, err := formats.FromCoords([]int{rows, cols}, [][]int{ri, ci}, vals, formats.CSR)
		if err != nil {
			t.Fatal(err)
		}
		return a, sums
	}
	x := make([]float64, cols)
	big, _ := matrix(20000, 1) // 40K entries: split across both goroutines
	q, err := nablasd.Prepare("sum(<i, r> in A) sum(<j, a> in r) a * x(j)", nablasd.Inputs{"A": big, "x": x},
		&nablasd.Options{Exec: "compiled", Threads: 2, Mode: "forward"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.Compile("x")
	if err != nil {
		t.Fatal(err)
	}
	res := k.NewResult()
	for _, c := range []struct {
		name  string
		rows  int
		scale float64
	}{{"a large matrix", 20000, 0.5}, {"a small matrix", 3, 2}, {"no rows", 0, 1}} {
		a, want := matrix(c.rows, c.scale)
		for _, in := range []*formats.Tensor{big, a} {
			if err := k.Run(res, nablasd.Inputs{"A": in, "x": x}); err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
		}
		got, err := res.Dense()
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s after a large one: column sums %v, want %v", c.name, got, want)
		}
	}
}
