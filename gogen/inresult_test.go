package gogen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/sdql"
)

// TestInResultParallel: a temporary kept in the result with parallel
// loops (inresult.go) gives its struct the result's memory for the
// workers, and gives it back on return. The downsampling's gradient is
// run on 1 and 2 goroutines into one destination with x̄ kept there (x
// of 10, n = 4: x̄'s 10 keys fit), then, with the same workspace, into
// another destination where x̄ does not fit (x of 8): x̄'s init then
// sizes its own memory, and had its struct kept the first destination's
// (capacity 10, enough), the second call would overwrite the first
// call's result (gorun.Case.PrimeApart checks it did not). Both results
// must equal the interpreter's. It fails, tried, without the deferred
// call that gives the struct its memory back.
func TestInResultParallel(t *testing.T) {
	const src = `let y = sum(<i, _> in (0:n)) { i -> sum(<k, w> in K) w * x(2 * i + k) } in
sum(<i, v> in y) v * v`
	vec := func(n int) *formats.Tensor {
		val := make([]float64, n)
		for i := range val {
			val[i] = float64(i%5) - 1.5
		}
		return &formats.Tensor{Format: formats.Dense, Shape: []int{n}, Val: val, Pos: make([][]int, 1), Idx: make([][]int, 1)}
	}
	plan := func(xLen int) (*nablasd.Query, map[string]sdql.Value, sdql.Value) {
		q, err := nablasd.Prepare(src, nablasd.Inputs{"x": vec(xLen), "K": vec(4), "n": 4}, &nablasd.Options{File: "down.sdql"})
		if err != nil {
			t.Fatal(err)
		}
		p, err := q.Plan("x")
		if err != nil {
			t.Fatal(err)
		}
		want, err := (&sdql.Interp{}).Run(p.Program, p.Info, p.Bindings)
		if err != nil {
			t.Fatal(err)
		}
		return q, p.Bindings, want
	}
	q, in, want := plan(8)
	_, primeIn, _ := plan(10)
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: "x", Func: "Down", Package: "main", Workspace: true, Parallel: true, MinParallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(k.Source), "xbarInResult") || !strings.Contains(string(k.Source), "defer func() { *xbar = ") {
		t.Fatalf("x̄ is not kept in the result with parallel loops:\n%s", k.Source)
	}
	var cases []gorun.Case
	var wants []sdql.Value
	for _, threads := range []int{1, 2} {
		cases = append(cases, gorun.Case{Name: fmt.Sprintf("%d goroutines", threads), Kernel: k, Inputs: in,
			Threads: threads, Prime: primeIn, PrimeApart: true, AsFunctions: true})
		wants = append(wants, want)
	}
	gorun.Check(t, cases, wants, func(int) string { return src })
}
