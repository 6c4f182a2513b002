package lower_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// completeCases are gradients with respect to B of programs over two
// matrices in the shape of SMMM's, and whether the completion's passes
// (complete.go) apply: extend says the column sums' lookup is run for
// every row (t unmarked), full that the result's level 0 is full.
var completeCases = []struct {
	src          string
	extend, full bool
}{
	{"sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b", true, true},
	{"sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) 3.0 * a * b", true, true},
	{"sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b * b", false, false},
	{"(sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b) + sum(<k, r> in B) sum(<j, b> in r) b * b", true, false},
	{"sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) -a * b", false, false},
	{"sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) (a + 1.0) * b", false, false},
}

// TestCompletedRandom runs the completion's cases over random matrices
// (empty rows and columns, a column of A past B's rows' keys, infinite
// values) as the compiled kernel and the interpreter, which must agree
// as dictionaries, and checks that the passes applied where expected and
// that the compiled result holds exactly B's stored positions when the
// level is full.
func TestCompletedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 23))
	rounds := 40
	if testing.Short() {
		rounds = 12 // still rounds with infinities in A (4, 9) and in B (6)
	}
	for round := range rounds {
		n, m := 1+r.IntN(7), 1+r.IntN(7)
		A := randomCSR(r, n, m, round%5 == 4)
		B := randomCSR(r, m, 1+r.IntN(7), round%7 == 6)
		for ci, c := range completeCases {
			where := fmt.Sprintf("round %d, case %d (%s), A %dx%d, B %dx%d", round, ci, c.src, n, m, B.Shape[0], B.Shape[1])
			inputs := nablasd.Inputs{"A": A, "B": B}
			q, err := nablasd.Prepare(c.src, inputs, nil)
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			p, err := q.Plan("B")
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			ir := lower.Print(p.Loops)
			if got := strings.Contains(ir, " unmarked"); got != c.extend {
				t.Errorf("%s: extended %v, want %v:\n%s", where, got, c.extend, ir)
			}
			if got := strings.Contains(ir, "dense(B_len) full"); got != c.full {
				t.Errorf("%s: full %v, want %v:\n%s", where, got, c.full, ir)
			}
			got := gradOf(t, where, c.src, inputs, &nablasd.Options{Exec: "compiled"})
			want := gradOf(t, where, c.src, inputs, &nablasd.Options{Exec: "interp"})
			if d := sdql.DiffDicts(got, want, 1e-9); d != "" && !sdql.Equal(got, want) {
				t.Errorf("%s: compiled and interpreter differ: %s\ncompiled    %s\ninterpreter %s", where, d, sdql.FormatValue(got), sdql.FormatValue(want))
			}
		}
	}
}

func gradOf(t *testing.T, where, src string, inputs nablasd.Inputs, o *nablasd.Options) sdql.Value {
	t.Helper()
	q, err := nablasd.Prepare(src, inputs, o)
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	rs, err := q.Grad("B")
	if err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	return rs[0].Value()
}

// randomCSR is a random n×m matrix in CSR with about a third of its
// entries stored (some rows and columns empty); inf puts infinities among
// its values.
func randomCSR(r *rand.Rand, n, m int, inf bool) *formats.Tensor {
	idx := [][]int{nil, nil}
	var val []float64
	for i := range n {
		for j := range m {
			if r.IntN(3) != 0 {
				continue
			}
			v := math.Round(r.NormFloat64()*8) / 4
			if inf && r.IntN(4) == 0 {
				v = math.Inf(1 - 2*r.IntN(2))
			}
			idx[0], idx[1] = append(idx[0], i), append(idx[1], j)
			val = append(val, v)
		}
	}
	x, err := formats.FromCoords([]int{n, m}, idx, val, formats.CSR)
	if err != nil {
		panic(err)
	}
	return x
}
