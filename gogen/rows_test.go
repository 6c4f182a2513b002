package gogen_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/gorun"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestDenseRowsChecked: a loop adding into two rows of a dense result of
// a given shape, out(i)(j + s) and out(i)(j + t), stores through two
// segments, their keys checked before the loop (storage_dense_seg.go).
// Where a key is out of range the kernel returns the error of the key
// the loop would have met first, iteration by iteration and in the
// statements' order, as the loop IR's evaluator does: with m = 5 columns
// over 4, s = 0 and t = -1 it is -1 (the second row's first key), not 4
// (the first row's last); with s = -1 and t = -2, -1 (the first row's,
// both failing at j = 0).
func TestDenseRowsChecked(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds kernels")
	}
	const src = "sum(<i, _> in (0:n)) sum(<j, _> in (0:m)) { i -> { j + s -> 1.0, j + t -> 2.0 } }"
	prog, err := sdql.Parse("rows.sdql", src)
	if err != nil {
		t.Fatal(err)
	}
	in := func(m, s, t int) map[string]sdql.Value {
		return map[string]sdql.Value{"n": sdql.Int(3), "m": sdql.Int(int64(m)), "s": sdql.Int(int64(s)), "t": sdql.Int(int64(t))}
	}
	k, ir, err := gorun.Generate(prog, gorun.TypesOf(in(4, 0, 0)), lower.Options{ResultShape: []int{3, 4}},
		gogen.Options{Func: "Rows", Package: "main"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(k.Source), "outRow1[k] += 2.0") {
		t.Fatalf("the rows are not stored through segments:\n%s", k.Source)
	}
	var cases []gorun.Case
	var wants []sdql.Value
	var wantErrs []string
	for _, c := range [][3]int{{4, 0, 0}, {3, 1, 0}, {4, 1, 0}, {4, 0, -1}, {5, 0, -1}, {4, -1, -2}, {5, 0, 0}} {
		m, s, t := c[0], c[1], c[2]
		cases = append(cases, gorun.Case{Name: fmt.Sprintf("m=%d s=%d t=%d", m, s, t), Kernel: k, Inputs: in(m, s, t)})
		want, err := lower.Eval(ir, in(m, s, t))
		wants = append(wants, want)
		e := ""
		if err != nil {
			e = strings.Replace(err.Error(), "exec: ", "Rows: ", 1)
		}
		wantErrs = append(wantErrs, e)
	}
	if wantErrs[0] != "" || wantErrs[1] != "" || wantErrs[2] == "" {
		t.Fatalf("the evaluator's outcomes are not the ones this test means: %q", wantErrs)
	}
	results, err := gorun.Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		if wantErrs[i] == "" {
			if d := gorun.Diff(res, wants[i], true); d != "" {
				t.Errorf("%s: %s", cases[i].Name, d)
			}
			continue
		}
		if res.Err != nil || res.KernelErr == nil || res.KernelErr.Error() != wantErrs[i] {
			t.Errorf("%s: %v, %v, %v; want the error %s", cases[i].Name, res.Err, res.KernelErr, res.Value, wantErrs[i])
		}
	}
}
