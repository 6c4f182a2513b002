package exec

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// csrBindings is a random CSR matrix A (rows x cols, about nnz entries)
// and a dense vector x, bound as a kernel's inputs.
func csrBindings(rows, cols, nnz int, seed uint64) map[string]sdql.Value {
	r := rand.New(rand.NewPCG(seed, 1))
	pos := make(sdql.IntArray, rows+1)
	var idx sdql.IntArray
	var val sdql.RealArray
	for i := 0; i < rows; i++ {
		n := r.IntN(2*nnz/rows + 1)
		seen := map[int]bool{}
		var row []int
		for len(row) < n {
			if j := r.IntN(cols); !seen[j] {
				seen[j] = true
				row = append(row, j)
			}
		}
		sort.Ints(row)
		for _, j := range row {
			idx, val = append(idx, j), append(val, r.Float64())
		}
		pos[i+1] = len(idx)
	}
	x := make(sdql.RealArray, cols)
	for j := range x {
		x[j] = r.Float64()
	}
	return map[string]sdql.Value{"A_len": sdql.Int(rows), "A_pos": pos, "A_idx": idx, "A_val": val,
		"x_len": sdql.Int(cols), "x_val": x}
}

// BenchmarkValidationCost times what a run's validation of its inputs costs
// (Options.NoValidate turns it off) against the run itself, in the same
// process: part=validate is the checks alone, part=run a whole run without
// them. Their ratio is validation's overhead; it is measured this way
// because whole runs with and without it differ by less than this
// machine's run-to-run noise.
func BenchmarkValidationCost(b *testing.B) {
	progs := map[string]string{
		"colsums": "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }",
		"smvm":    "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) A_val(p) * x_val(j)",
	}
	for _, size := range []struct{ rows, nnz int }{{5300, 21842}, {100000, 1000000}} {
		in := csrBindings(size.rows, size.rows, size.nnz, 1)
		for _, name := range []string{"colsums", "smvm"} {
			prog := sdql.MustParse(progs[name])
			k, err := CompileFor(prog, in, Options{ResultShape: []int{size.rows}, NoValidate: true})
			if err != nil {
				b.Fatal(err)
			}
			checked, err := CompileFor(prog, in, Options{ResultShape: []int{size.rows}})
			if err != nil {
				b.Fatal(err)
			}
			if len(checked.checks) == 0 {
				b.Fatalf("%s: no validation compiled", name)
			}
			fr := checked.newFrame()
			if err := checked.bind(fr, in); err != nil {
				b.Fatal(err)
			}
			res := k.NewResult()
			axis := fmt.Sprintf("kernel=%s/rows=%d/nnz=%d", name, size.rows, len(in["A_idx"].(sdql.IntArray)))
			b.Run(axis+"/part=validate", func(b *testing.B) {
				for b.Loop() {
					if err := checked.validate(fr); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(axis+"/part=run", func(b *testing.B) {
				for b.Loop() {
					if err := k.RunInto(res, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
