package lower_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// fingerPrograms search B's rows from a finger (FingerSearches): an
// intersection of rows, one under a test of the entry, a dense loop's
// keys, a search in an inner loop.
var fingerPrograms = []string{
	"sum(<i, row> in A) sum(<j, a> in row) a * B(i)(j)",
	"sum(<i, row> in A) sum(<j, a> in row) if (0.5 < a) then a * B(i)(j) else a",
	"sum(<i, row> in A) { i -> sum(<k, v> in x) v * B(i)(k) }",
	"sum(<i, row> in A) sum(<j, a> in row) sum(<k, c> in C(j)) a * c * B(i)(k)",
}

// TestFingerSearchesRandom runs the programs that search from a finger
// over random matrices (rows empty, rows of one entry, rows full: the
// gallop's long steps and keys past a row's end) on the closures and the
// JIT, against the interpreter, and checks that the finger is there.
func TestFingerSearchesRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	seeds := 12
	if testing.Short() {
		seeds = 6
	}
	for s := 0; s < seeds; s++ {
		rows, cols := 1+rng.IntN(9), 1+rng.IntN(40)
		in := nablasd.Inputs{
			"A": rowsCSR(t, rng, rows, cols),
			"B": rowsCSR(t, rng, rows, cols),
			"C": rowsCSR(t, rng, cols, cols),
			"x": denseVector(t, rng, cols),
		}
		for _, src := range fingerPrograms {
			name := fmt.Sprintf("seed%d/%s", s, src)
			q, err := nablasd.Prepare(src, in, &nablasd.Options{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			p, err := q.Plan()
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if ir := lower.Print(p.Loops); !strings.Contains(ir, "gallop(") {
				t.Errorf("%s: no search from a finger:\n%s", name, ir)
			}
			execs := []string{"compiled"}
			if jitUnavailable() == "" {
				execs = append(execs, "jit")
			}
			want := runWith(t, name, src, in, "interp")
			for _, ex := range execs {
				if got := runWith(t, name, src, in, ex); sdql.DiffDicts(got, want, 1e-9) != "" {
					t.Errorf("%s: %s and the interpreter differ: %s\n%s\n%s", name, ex, sdql.DiffDicts(got, want, 1e-9), sdql.FormatValue(got), sdql.FormatValue(want))
				}
			}
		}
	}
}

func runWith(t *testing.T, name, src string, in nablasd.Inputs, ex string) sdql.Value {
	t.Helper()
	q, err := nablasd.Prepare(src, in, &nablasd.Options{Exec: ex})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	r, err := q.Value()
	if err != nil {
		t.Fatalf("%s (%s): %v", name, ex, err)
	}
	return r.Value()
}

// rowsCSR is a rows×cols CSR matrix whose rows are each empty, of one
// entry, full, or of a random density.
func rowsCSR(t *testing.T, rng *rand.Rand, rows, cols int) *formats.Tensor {
	idx := [][]int{nil, nil}
	var val []float64
	for i := 0; i < rows; i++ {
		var density float64
		switch rng.IntN(4) {
		case 0:
			density = 0
		case 1:
			density = 1
		default:
			density = rng.Float64()
		}
		one := rng.IntN(cols)
		for j := 0; j < cols; j++ {
			if rng.Float64() < density || density == 0 && j == one && rng.IntN(2) == 0 {
				idx[0] = append(idx[0], i)
				idx[1] = append(idx[1], j)
				val = append(val, float64(rng.IntN(7))-2)
			}
		}
	}
	m, err := formats.FromCoords([]int{rows, cols}, idx, val, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func denseVector(t *testing.T, rng *rand.Rand, n int) *formats.Tensor {
	idx := [][]int{nil}
	var val []float64
	for j := 0; j < n; j++ {
		idx[0] = append(idx[0], j)
		val = append(val, float64(rng.IntN(5))-1)
	}
	v, err := formats.FromCoords([]int{n}, idx, val, formats.Dense)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
