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

// TestPreGrow: Gustavson's workspace grown once a row, to the row's last
// key (pregrow.go). On a valid CSR matrix whose rows' keys pass the
// workspace's initial size (64) and its doublings, on one goroutine and
// on several (each worker's own workspace), BATAx's generated kernel
// gives the interpreter's result; on a row whose keys do not ascend (its
// last key not its largest) or hold a negative key, it returns the error
// for an input that breaks its format, never a crash or a result.
func TestPreGrow(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds kernels")
	}
	const n, m = 6, 300
	rowsOf := [][]int{{0, 70, 299}, {5}, {}, {64, 65, 130, 200}, {1, 2, 3}, {150, 298}}
	var rows, cols []int
	var vals []float64
	for i, r := range rowsOf {
		for _, j := range r {
			rows, cols, vals = append(rows, i), append(cols, j), append(vals, float64(i+j%7)+0.5)
		}
	}
	A, err := formats.FromCoords([]int{n, m}, [][]int{rows, cols}, vals, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	x := make([]float64, m)
	for j := range x {
		x[j] = float64(j%5) - 1.5
	}
	prog := "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }"
	q, err := nablasd.Prepare(prog, nablasd.Inputs{"A": A, "x": x, "beta": 0.5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: "x", Func: "PreGrow", Package: "main",
		Workspace: true, Parallel: true, MinParallel: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(k.Source), "(pregrow.go)") {
		t.Fatalf("the workspace is not grown before the row's loop:\n%s", k.Source)
	}
	plan, err := q.Plan("x")
	if err != nil {
		t.Fatal(err)
	}
	want, err := (&sdql.Interp{}).Run(plan.Program, plan.Info, plan.Bindings)
	if err != nil {
		t.Fatal(err)
	}
	var cases []gorun.Case
	for _, threads := range []int{1, 2, 3} {
		cases = append(cases, gorun.Case{Name: fmt.Sprintf("valid, %d threads", threads), Kernel: k,
			Inputs: plan.Bindings, Threads: threads})
	}
	nValid := len(cases)
	// row 0's keys replaced: its last key is not its largest, or one is
	// negative
	for _, row0 := range [][]int{{299, 70, 0}, {0, 299, 70}, {-1, 70, 299}} {
		in := map[string]sdql.Value{}
		for name, v := range plan.Bindings {
			in[name] = v
		}
		idx := append([]int(nil), A.Idx[1]...)
		copy(idx, row0)
		in["A_idx"] = sdql.IntArray(idx)
		for _, threads := range []int{1, 2} {
			cases = append(cases, gorun.Case{Name: fmt.Sprintf("row 0 %v, %d threads", row0, threads), Kernel: k,
				Inputs: in, Threads: threads})
		}
	}
	results, err := gorun.Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		if i < nValid {
			if d := gorun.Diff(res, want, true); d != "" {
				t.Errorf("%s: %s", cases[i].Name, d)
			}
			continue
		}
		if res.Err != nil || res.KernelErr == nil || !strings.Contains(res.KernelErr.Error(), "breaks its format's invariants") {
			t.Errorf("%s: %v, %v, %v; want the kernel's error for a broken input", cases[i].Name, res.Err, res.KernelErr, res.Value)
		}
	}
}
