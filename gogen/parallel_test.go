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

// TestParallelPanics: a run-time error in a worker of a parallel loop (an
// input that breaks its format's invariants: a CSR matrix's pos array
// past its entries) is recovered by the worker and
// returned by the kernel as an error, never a crash, and the error is the
// serial loop's: the first worker's in order, whose range holds the first
// failing row, however many workers run.
func TestParallelPanics(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds kernels")
	}
	A, _, _, x := twoPerRow(t)
	var cases []gorun.Case
	var names []string
	for i, prog := range []string{
		"sum(<i, r> in A) tanh(sum(<j, a> in r) a * x(j))", // into a scalar
		"sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) }",
	} {
		for _, wrt := range []string{"", "x"} {
			q, err := nablasd.Prepare(prog, nablasd.Inputs{"A": A, "x": x}, nil)
			if err != nil {
				t.Fatal(err)
			}
			k, err := q.GenerateGo(nablasd.GoOptions{Wrt: wrt, Func: fmt.Sprintf("Panics%d%s", i, wrt), Package: "main",
				Workspace: wrt != "", Parallel: true, MinParallel: 2})
			if err != nil {
				t.Fatal(err)
			}
			if !k.Parallel {
				t.Fatalf("%s wrt %q: no loop runs in parallel", prog, wrt)
			}
			var ws []string
			if wrt != "" {
				ws = []string{wrt}
			}
			plan, err := q.Plan(ws...)
			if err != nil {
				t.Fatal(err)
			}
			// every row holds 2 entries: pos is 0, 2, ..., 12
			for _, pos := range [][]int{
				{0, 2, 4, 6, 8, 10, 14},  // the last row past the entries
				{0, 2, 13, 6, 8, 10, 12}, // row 1 past them (row 2 empty)
				{0, 20, 4, 6, 8, 10, 15}, // rows 0 and 5
			} {
				in := map[string]sdql.Value{}
				for name, v := range plan.Bindings {
					in[name] = v
				}
				in["A_pos"] = sdql.IntArray(pos)
				for _, threads := range []int{1, 2, 3} {
					cases = append(cases, gorun.Case{Name: fmt.Sprintf("%s wrt %q, pos %v, %d threads", prog, wrt, pos, threads),
						Kernel: k, Inputs: in, Threads: threads})
					names = append(names, prog)
				}
			}
		}
	}
	results, err := gorun.Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(results); i += 3 {
		serial := results[i]
		if serial.Err != nil || serial.KernelErr == nil || !strings.Contains(serial.KernelErr.Error(), "breaks its format's invariants") {
			t.Errorf("%s: %v, %v; want the kernel's error for a broken input", cases[i].Name, serial.Err, serial.KernelErr)
			continue
		}
		for j := i + 1; j < i+3; j++ {
			if r := results[j]; r.Err != nil || r.KernelErr == nil || r.KernelErr.Error() != serial.KernelErr.Error() {
				t.Errorf("%s: %v, %v; want the serial loop's error %v", cases[j].Name, r.Err, r.KernelErr, serial.KernelErr)
			}
		}
	}
}

// TestDeferredClear: a parallel loop's first worker empties the
// destination its Init left as it was (deferclear.go), and so do the
// loop's serial form and the else of the if that guards it: each case
// runs first over a matrix into the destination (gorun.Case.Prime), then
// over the case's own, on one goroutine and on two, and must give the
// column sums of its own matrix alone.
func TestDeferredClear(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds kernels")
	}
	A, cols, vals, x := twoPerRow(t)
	q, err := nablasd.Prepare("sum(<i, r> in A) sum(<j, a> in r) a * x(j)", nablasd.Inputs{"A": A, "x": x}, &nablasd.Options{Mode: "forward"})
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: "x", Func: "DeferredClear", Package: "main", Workspace: true, Parallel: true, MinParallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(k.Source), "deferclear.go") {
		t.Fatalf("the destination's clear was not deferred to the parallel loop:\n%s", k.Source)
	}
	plan, err := q.Plan("x")
	if err != nil {
		t.Fatal(err)
	}
	full := plan.Bindings
	empty := map[string]sdql.Value{}
	for name, v := range full {
		empty[name] = v
	}
	empty["A_len"], empty["A_pos"], empty["A_idx"], empty["A_val"] = sdql.Int(0), sdql.IntArray{0}, sdql.IntArray{}, sdql.RealArray{}
	colSums := make([]float64, len(x))
	for p, j := range cols {
		colSums[j] += vals[p]
	}
	sums := sdql.NewDict()
	for j, v := range colSums {
		sums.Set(j, sdql.Real(v))
	}
	var cases []gorun.Case
	var wants []sdql.Value
	for _, threads := range []int{1, 2} {
		cases = append(cases,
			gorun.Case{Name: fmt.Sprintf("A after A, %d threads", threads), Kernel: k, Inputs: full, Prime: full, Threads: threads, AsFunctions: true},
			gorun.Case{Name: fmt.Sprintf("no rows after A, %d threads", threads), Kernel: k, Inputs: empty, Prime: full, Threads: threads, AsFunctions: true})
		wants = append(wants, sums, sdql.NewDict())
	}
	gorun.Check(t, cases, wants, nil)
}

// twoPerRow is a 6 x 6 CSR matrix with two entries a row, at columns i
// and i + 2 (mod 6), valued i + j + 1, its entries' columns and values in
// order, and a vector x of 6.
func twoPerRow(t *testing.T) (A *formats.Tensor, cols []int, vals, x []float64) {
	t.Helper()
	const n = 6
	var rows []int
	for i := 0; i < n; i++ {
		for _, j := range []int{i, (i + 2) % n} {
			rows, cols, vals = append(rows, i), append(cols, j), append(vals, float64(i+j+1))
		}
	}
	A, err := formats.FromCoords([]int{n, n}, [][]int{rows, cols}, vals, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	return A, cols, vals, []float64{0.5, -1, 2, 0.25, 1.5, -0.75}
}
