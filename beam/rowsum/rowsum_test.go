package rowsum

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/nablasd/nablasd/sdql"
)

// TestCheck runs testdata/check: each program's verdict. Every accepted
// program is also checked against the reference interpreter: on random
// inputs and random splits of A's rows into blocks (the inputs of
// Split.With split along, the others whole), the sum of the blocks'
// results equals the result on all of A. A refused program marked
// "counterexample" must also fail that, on some split: the refusal was
// needed.
//
// The inputs: A and B are 6×6 matrices, b, w, x, y vectors of 6, beta a
// number; candidates names the inputs that may be split along.
func TestCheck(t *testing.T) {
	datadriven.RunTest(t, "testdata/check", func(t *testing.T, d *datadriven.TestData) string {
		if d.Cmd != "check" {
			d.Fatalf(t, "unknown command %s", d.Cmd)
		}
		input := "A"
		var candidates []string
		if d.HasArg("input") {
			d.ScanArgs(t, "input", &input)
		}
		if d.HasArg("candidates") {
			d.ScanArgs(t, "candidates", &candidates)
		}
		prog, err := sdql.Parse("prog.sdql", d.Input)
		if err != nil {
			d.Fatalf(t, "%v", err)
		}
		split, err := Check("prog.sdql", prog, input, candidates)
		if err != nil {
			if d.HasArg("counterexample") && !hasCounterexample(t, prog, &Split{Input: input}) {
				t.Errorf("%s: refused, but no split of random inputs breaks it", d.Pos)
			}
			return "refused: " + err.Error()
		}
		if d.HasArg("counterexample") {
			t.Errorf("%s: accepted, but marked counterexample", d.Pos)
		}
		if hasCounterexample(t, prog, split) {
			t.Errorf("%s: accepted, but the blocks' results do not add up to the whole's", d.Pos)
		}
		return fmt.Sprintf("ok: split with (%s)", strings.Join(split.With, ", "))
	})
}

// hasCounterexample evaluates prog on random inputs whole and in blocks
// (split as s says), and reports whether the blocks' results ever fail to
// add up to the whole's.
func hasCounterexample(t *testing.T, prog sdql.Expr, s *Split) bool {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 99))
		in := map[string]sdql.Value{
			"A": randomMatrix(r), "B": randomMatrix(r),
			"b": randomVector(r), "w": randomVector(r), "x": randomVector(r), "y": randomVector(r),
			"beta": sdql.Real(r.IntN(5) + 1),
		}
		whole, err := sdql.Eval(prog, in)
		if err != nil {
			t.Fatalf("whole: %v", err)
		}
		blocks := 1 + r.IntN(4)
		of := func(k int) int { return (k*7 + int(seed)) % blocks }
		var sum sdql.Value
		for b := range blocks {
			part := map[string]sdql.Value{}
			for n, v := range in {
				if n == s.Input || slices.Contains(s.With, n) {
					part[n] = rows(v, func(k int) bool { return of(k) == b })
				} else {
					part[n] = v
				}
			}
			v, err := sdql.Eval(prog, part)
			if err != nil {
				t.Fatalf("block: %v", err)
			}
			sum = add(sum, v)
		}
		if sum == nil {
			sum = sdql.Real(0)
		}
		if !sdql.ApproxEqual(sum, whole, 1e-9) {
			return true
		}
	}
	return false
}

func randomMatrix(r *rand.Rand) sdql.Value {
	d := sdql.NewDict()
	for i := range 6 {
		if r.IntN(4) == 0 {
			continue // a row not stored
		}
		row := sdql.NewDict()
		for j := range 6 {
			if r.IntN(2) == 0 {
				row.Set(j, sdql.Real(r.IntN(9)-4))
			}
		}
		d.Set(i, row) // possibly empty, as a CSR row
	}
	return d
}

func randomVector(r *rand.Rand) sdql.Value {
	d := sdql.NewDict()
	for i := range 6 {
		d.Set(i, sdql.Real(r.IntN(9)-4))
	}
	return d
}

// rows is a dictionary's entries whose keys keep says.
func rows(v sdql.Value, keep func(int) bool) sdql.Value {
	d := sdql.NewDict()
	sdql.Entries(v, func(k int, x sdql.Value) bool {
		if keep(k) {
			d.Set(k, x)
		}
		return true
	})
	return d
}

// add is the semiring's + of two results (nil is zero).
func add(a, b sdql.Value) sdql.Value {
	switch {
	case a == nil || sdql.IsZero(a):
		return b
	case sdql.IsZero(b):
		return a
	}
	switch a := a.(type) {
	case sdql.Real:
		return a + b.(sdql.Real)
	case sdql.Int:
		return a + b.(sdql.Int)
	}
	out := sdql.NewDict()
	for _, v := range []sdql.Value{a, b} {
		sdql.Entries(v, func(k int, x sdql.Value) bool {
			if y, ok := out.Get(k); ok {
				out.Set(k, add(y, x))
			} else {
				out.Set(k, x)
			}
			return true
		})
	}
	return out
}
