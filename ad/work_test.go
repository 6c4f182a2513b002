package ad

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/internal/sdqlgen"
	"github.com/nablasd/nablasd/sdql"
)

// workloads is where ../shared keeps the programs users write every day.
const workloads = "../../shared/workloads"

// cheapBound is the cheap-gradient bound: a gradient's work is at most
// this many times its function's (Baur–Strassen; "Differentiating a Tensor
// Language", Thm 6.35).
const cheapBound = 4

// TestCheapGradientWork checks the cheap-gradient principle on operation
// counts (sdql.Work, deterministic and independent of the machine): for
// every workload of ../shared/workloads and for tanh stacks of depth 1 to
// 5, the reverse-mode gradient's work over random inputs is at most
// cheapBound times the program's. Forward mode's ratio is logged: it grows
// with depth (9× at depth 2, 150× at depth 5 on these inputs).
func TestCheapGradientWork(t *testing.T) {
	progs := map[string]string{}
	for d := 1; d <= 5; d++ {
		progs[fmt.Sprintf("tanh%d", d)] = sdqlgen.TanhStack(d)
	}
	files, _ := filepath.Glob(filepath.Join(workloads, "*.sdql"))
	if len(files) == 0 {
		t.Logf("%s is absent: only the tanh stacks are checked", workloads)
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		progs[strings.TrimSuffix(filepath.Base(f), ".sdql")] = string(src)
	}
	in := workloadInputs(rand.New(rand.NewPCG(1, 2)), 400, 0.02, 16)
	names := make([]string, 0, len(progs))
	for n := range progs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			prog, err := sdql.Parse(name, progs[name])
			if err != nil {
				t.Fatal(err)
			}
			wrt := "x"
			if name == "factorization" {
				wrt = "U"
			}
			ratio, fwd, err := workRatios(prog, wrt, in)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("gradient work ÷ evaluation work: reverse %.2f, forward %.2f", ratio, fwd)
			if ratio > cheapBound {
				t.Errorf("reverse mode's gradient does %.2f times the program's work, over %d", ratio, cheapBound)
			}
		})
	}
}

// workloadInputs returns the inputs of the workloads and the tanh stacks:
// an n×n sparse matrix A (and R, the same) of the given density, dense
// vectors x, b and y (y in {0, 1}), lambda, and dense n×k matrices U and W.
func workloadInputs(r *rand.Rand, n int, density float64, k int) map[string]sdql.Value {
	a := randomCOO(r, n, n, density)
	x, b, y := vec{}, vec{}, vec{}
	for i := range n {
		x[i], b[i], y[i] = r.Float64()-0.5, r.Float64(), float64(r.IntN(2))
	}
	U, W := sdql.NewDict(), sdql.NewDict()
	for i := range n {
		u, w := sdql.NewDict(), sdql.NewDict()
		for j := range k {
			u.Set(j, sdql.Real(r.Float64()))
			w.Set(j, sdql.Real(r.Float64()))
		}
		U.Set(i, u)
		W.Set(i, w)
	}
	return map[string]sdql.Value{"A": a.dict(), "R": a.dict(), "x": x.dict(), "b": b.dict(), "y": y.dict(),
		"lambda": sdql.Real(0.1), "U": U, "W": W}
}

// workRatios returns the work of the reverse-mode and of the forward-mode
// gradient of prog with respect to wrt, each divided by the program's, over
// the inputs prog uses among in.
func workRatios(prog sdql.Expr, wrt string, in map[string]sdql.Value) (reverse, forward float64, err error) {
	vals := map[string]sdql.Value{}
	types := map[string]sdql.Type{}
	for _, v := range sdql.FreeVars(prog) {
		vals[v] = in[v]
		types[v] = sdql.TypeOfValue(in[v])
	}
	work := func(e sdql.Expr) (float64, error) {
		it := &sdql.Interp{}
		if _, err := it.Eval(e, vals); err != nil {
			return 0, fmt.Errorf("%v\n%s", err, sdql.Print(e))
		}
		return float64(it.Work.Total()), nil
	}
	base, err := work(prog)
	if err != nil {
		return 0, 0, err
	}
	st, err := Reverse(prog, &Request{Wrt: []string{wrt}}, types)
	if err != nil {
		return 0, 0, err
	}
	rw, err := work(st.Result)
	if err != nil {
		return 0, 0, err
	}
	g, err := Grad(prog, wrt, types)
	if err != nil {
		return 0, 0, err
	}
	fw, err := work(g)
	if err != nil {
		return 0, 0, err
	}
	return rw / base, fw / base, nil
}
