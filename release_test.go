package nablasd_test

import (
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestKernelRelease: a kernel whose tensor input is released
// (Kernel.Release) runs over the tensor each run gives as a kernel
// prepared over that tensor does, refuses a run without it, and holds the
// tensor it was compiled over no longer (it is collected): for the value,
// a gradient and a product (a vector–Jacobian product, whose query is a
// copy of its parent's), over each executor that runs the plan's
// bindings, with the optimizer and without it.
func TestKernelRelease(t *testing.T) {
	const src = "sum(<i, r> in A) { i -> sum(<j, a> in r) a * x(j) * x(j) }"
	matrix := func(seed int) *formats.Tensor {
		var ri, ci []int
		var vals []float64
		for i := range 30 {
			for _, j := range []int{i % 7, (i*seed + 3) % 7} {
				if len(ci) > 0 && ri[len(ri)-1] == i && ci[len(ci)-1] >= j {
					continue
				}
				ri, ci, vals = append(ri, i), append(ci, j), append(vals, float64(seed*i+j)/8)
			}
		}
		a, err := formats.FromCoords([]int{30, 7}, [][]int{ri, ci}, vals, formats.CSR)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	x := []float64{1, -2, 0.5, 3, 0.25, -1, 2}
	cot := make([]float64, 30)
	for i := range cot {
		cot[i] = float64(i%5) - 2
	}
	for _, exec := range []string{"compiled", "interp"} {
		for _, opt := range []string{"full", "none"} {
			for _, what := range []string{"value", "grad", "vjp"} {
				t.Run(fmt.Sprintf("%s/%s/%s", exec, opt, what), func(t *testing.T) {
					opts := &nablasd.Options{Exec: exec, Opt: opt}
					compile := func(q *nablasd.Query) *nablasd.Kernel {
						var k *nablasd.Kernel
						var err error
						switch what {
						case "value":
							k, err = q.Compile()
						case "grad":
							k, err = q.Compile("x")
						default:
							k, err = q.CompileDerivative(&nablasd.Derivative{Wrt: []string{"x"}, Cotangent: cot})
						}
						if err != nil {
							t.Fatal(err)
						}
						return k
					}
					run := func(k *nablasd.Kernel, in nablasd.Inputs) (string, error) {
						res := k.NewResult()
						if err := k.Run(res, in); err != nil {
							return "", err
						}
						return sdql.FormatValue(res.Value()), nil
					}
					first := matrix(2)
					var collected atomic.Bool
					runtime.SetFinalizer(&first.Val[0], func(*float64) { collected.Store(true) })
					q, err := nablasd.Prepare(src, nablasd.Inputs{"A": first, "x": x}, opts)
					if err != nil {
						t.Fatal(err)
					}
					k := compile(q)
					if _, err := run(k, nablasd.Inputs{"A": first}); err != nil {
						t.Fatal(err)
					}
					if err := k.Release("A"); err != nil {
						t.Fatal(err)
					}
					first = nil
					if _, err := run(k, nil); err == nil || !strings.Contains(err.Error(), "input A: released") {
						t.Errorf("a run without the released input: err %v", err)
					}
					second := matrix(5)
					got, err := run(k, nablasd.Inputs{"A": second})
					if err != nil {
						t.Fatal(err)
					}
					q2, err := nablasd.Prepare(src, nablasd.Inputs{"A": second, "x": x}, opts)
					if err != nil {
						t.Fatal(err)
					}
					want, err := run(compile(q2), nil)
					if err != nil {
						t.Fatal(err)
					}
					if got != want {
						t.Errorf("after Release: %s, want %s", got, want)
					}
					for range 20 {
						runtime.GC()
						if collected.Load() {
							break
						}
						time.Sleep(time.Millisecond)
					}
					if !collected.Load() {
						t.Errorf("the released tensor was not collected")
					}
					runtime.KeepAlive(k)
					runtime.KeepAlive(q)
				})
			}
		}
	}
}
