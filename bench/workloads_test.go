package bench

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// smallWorkloadData is a small seeded input of a workload: a rectangular
// 30×20 matrix (so that a transposition shows) where the workload allows
// one, a square 25×25 one otherwise (laplacian, mlp2: not symmetric, so
// that the general closed form is what is checked), both with empty rows;
// the factorization's rank is 3.
func smallWorkloadData(t testing.TB, w Workload) *WorkloadData {
	spec := "rows=30,cols=20,density=0.1,seed=7"
	if w.Name == "laplacian" || w.Name == "mlp2" {
		spec = "rows=25,cols=25,density=0.1,seed=8"
	}
	m, err := datasets.ParseSynthetic(spec)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewWorkloadData("small", m, 3)
	if err != nil {
		t.Fatal(err)
	}
	empty := false
	for i := 0; i < d.Rows(); i++ {
		empty = empty || d.A.Pos[1][i] == d.A.Pos[1][i+1]
	}
	if !empty {
		t.Fatalf("%s: the small input has no empty row: choose another seed", spec)
	}
	return d
}

// workloadSource returns the workload's text, skipping the test when the
// workloads folder is absent.
func workloadSource(t testing.TB, name string) string {
	src, _, why, err := WorkloadSource(name)
	if err != nil {
		t.Fatal(err)
	}
	if why != "" {
		t.Skipf("skipping the workloads: %s", why)
	}
	return src
}

// interpret evaluates the logical program src over the data with the
// reference interpreter (sdql.Eval), the value only.
func interpret(t testing.TB, file, src string, d *WorkloadData) float64 {
	t.Helper()
	prog, err := sdql.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	b, err := d.Logical(sdql.FreeVars(prog))
	if err != nil {
		t.Fatal(err)
	}
	v, err := sdql.Eval(prog, b)
	if err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	f, ok := v.(sdql.Real)
	if !ok {
		t.Fatalf("%s: the value is a %T, want a real", file, v)
	}
	return float64(f)
}

// finiteDifference returns the central finite differences of the program's
// value (by the interpreter) with respect to every entry of the wrt
// input's values (x or U), the gradient on its positions.
func finiteDifference(t testing.TB, w Workload, file, src string, d *WorkloadData) []float64 {
	wrt := d.X
	if w.Wrt == "U" {
		wrt = d.U
	}
	g := make([]float64, len(wrt))
	for i := range wrt {
		old := wrt[i]
		h := 1e-6 * math.Max(1, math.Abs(old))
		wrt[i] = old + h
		hi := interpret(t, file, src, d)
		wrt[i] = old - h
		lo := interpret(t, file, src, d)
		wrt[i] = old
		g[i] = (hi - lo) / (2 * h)
	}
	return g
}

func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Max(math.Abs(a), math.Abs(b)))
}

// flat returns a hand-written or compiled result (a real, a vector or a
// row-major matrix as nested dictionaries) as a flat slice of n values.
func flat(v sdql.Value, n, cols int) []float64 {
	out := make([]float64, n)
	if f, ok := v.(sdql.Real); ok && n == 1 {
		out[0] = float64(f)
		return out
	}
	sdql.Entries(v, func(i int, x sdql.Value) bool {
		if f, ok := x.(sdql.Real); ok {
			out[i] = float64(f)
			return true
		}
		sdql.Entries(x, func(j int, y sdql.Value) bool {
			out[i*cols+j] = float64(y.(sdql.Real))
			return true
		})
		return true
	})
	return out
}

// TestWorkloadHand checks every workload's hand-written closed form on a
// small seeded input against three oracles: the reference interpreter's
// value of the workload's program, central finite differences of it for
// the gradient, and nablasd's own results (the compiled kernel, serial and
// on two goroutines, and the interpreter through the root package), so
// that the closed forms and the engine check each other.
func TestWorkloadHand(t *testing.T) {
	threaded, ran := map[string]bool{}, false
	defer func() {
		// least squares, ridge, logistic, factorization: value and gradient
		if n := len(threaded); ran && n < 8 {
			t.Errorf("%d closed forms on several goroutines checked (%v), want 8", n, threaded)
		}
	}()
	for _, w := range Workloads {
		t.Run(w.Name, func(t *testing.T) {
			src := workloadSource(t, w.Name)
			ran = true
			d := smallWorkloadData(t, w)
			file := w.Name + ".sdql"

			want := interpret(t, file, src, d)
			fd := finiteDifference(t, w, file, src, d)
			nonzero := 0
			for _, x := range fd {
				if math.Abs(x) > 1e-3 {
					nonzero++
				}
			}
			if want == 0 || nonzero < len(fd)/3 {
				t.Fatalf("a weak test input: value %v, %d of %d gradient entries away from 0", want, nonzero, len(fd))
			}
			cols := 1
			if w.Wrt == "U" {
				cols = d.K
			}
			ev, _, err := NewWorkloadCase(w, "eval", d, nil)
			if err != nil {
				t.Fatal(err)
			}
			ev.Hand()
			if got := float64(ev.HandValue().(sdql.Real)); !closeTo(got, want, 1e-12) {
				t.Errorf("hand-written value %v, the interpreter's %v", got, want)
			}
			gr, _, err := NewWorkloadCase(w, "grad", d, nil)
			if err != nil {
				t.Fatal(err)
			}
			gr.Hand()
			hand := flat(gr.HandValue(), len(fd), cols)
			for i := range fd {
				if !closeTo(hand[i], fd[i], 1e-5) {
					t.Errorf("hand-written gradient [%d] = %v, finite differences %v", i, hand[i], fd[i])
				}
			}
			for _, threads := range []int{1, 2} {
				c, err := ev.Compile(threads)
				if err != nil {
					t.Fatal(err)
				}
				if got := c.Result.Scalar(); !closeTo(got, want, 1e-9) {
					t.Errorf("threads=%d: compiled value %v, the interpreter's %v", threads, got, want)
				}
				if c, err = gr.Compile(threads); err != nil {
					t.Fatal(err)
				}
				for i, x := range flat(c.Result.Value(), len(fd), cols) {
					if !closeTo(x, hand[i], 1e-9) {
						t.Errorf("threads=%d: compiled gradient [%d] = %v, hand-written %v", threads, i, x, hand[i])
					}
				}
			}
			// A fresh set of buffers gives the same results.
			for _, cs := range []*WorkloadCase{ev, gr} {
				run, value := cs.NewHand()
				run()
				if !sdql.Equal(value(), cs.HandValue()) || sdql.IsZero(value()) {
					t.Errorf("%s: the hand-written closed form over new buffers gives %s, over the case's %s", cs.Mode, short(value()), short(cs.HandValue()))
				}
			}
			// On several goroutines (run twice: the buffers are
			// reused), the same results up to summation order.
			for _, cs := range []*WorkloadCase{ev, gr} {
				if cs.HandThreads == nil {
					continue
				}
				threaded[w.Name+" "+cs.Mode] = true
				want := flat(cs.HandValue(), len(fd), cols)
				if cs.Mode == "eval" {
					want = []float64{float64(cs.HandValue().(sdql.Real))}
				}
				for _, threads := range []int{1, 2, 3} {
					run, value := cs.HandThreads(threads)
					run()
					run()
					got := []float64{}
					if cs.Mode == "eval" {
						got = append(got, float64(value().(sdql.Real)))
					} else {
						got = flat(value(), len(fd), cols)
					}
					for i := range want {
						if !closeTo(got[i], want[i], 1e-12) {
							t.Errorf("%s on %d goroutines: [%d] = %v, on one %v", cs.Mode, threads, i, got[i], want[i])
						}
					}
				}
			}
			inputs, err := d.Inputs(sdql.FreeVars(mustParse(t, file, src)))
			if err != nil {
				t.Fatal(err)
			}
			q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: file, Exec: "interp"})
			if err != nil {
				t.Fatal(err)
			}
			v, g, err := q.ValueAndGrad(w.Wrt)
			if err != nil {
				t.Fatal(err)
			}
			if !closeTo(v.Scalar(), want, 1e-9) {
				t.Errorf("interpreted value %v, want %v", v.Scalar(), want)
			}
			for i, x := range flat(g[0].Value(), len(fd), cols) {
				if !closeTo(x, fd[i], 1e-5) {
					t.Errorf("interpreted gradient [%d] = %v, finite differences %v", i, x, fd[i])
				}
			}
		})
	}
}

func mustParse(t testing.TB, file, src string) sdql.Expr {
	t.Helper()
	e, err := sdql.Parse(file, src)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// TestWorkloadHandErrors: the closed forms that need a square matrix say
// so, and an unknown workload or mode is an error.
func TestWorkloadHandErrors(t *testing.T) {
	m, err := datasets.ParseSynthetic("rows=6,cols=4,density=0.5,seed=1")
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewWorkloadData("rect", m, 2)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"laplacian", "mlp2"} {
		if _, err := handFormOf(name, d); err == nil || err.Error() != fmt.Sprintf("bench: workload %s needs a square matrix, have 6×4", name) {
			t.Errorf("%s over a 6×4 matrix: %v", name, err)
		}
	}
	if _, err := handFormOf("nope", d); err == nil {
		t.Error("an unknown workload: no error")
	}
	if _, err := d.Inputs([]string{"z"}); err == nil {
		t.Error("an unknown input name: no error")
	}
	if _, _, err := NewWorkloadCase(Workloads[0], "hessian", d, nil); err == nil {
		t.Error("an unknown mode: no error")
	}
}

// TestWorkloadDir: $NABLASD_SHARED/workloads comes first, and a workload
// is read from the folder found.
func TestWorkloadDir(t *testing.T) {
	shared := t.TempDir()
	dir := filepath.Join(shared, "workloads")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "least_squares.sdql"), []byte("x + 1"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("NABLASD_SHARED", shared)
	if got, why := WorkloadDir(); got != dir {
		t.Fatalf("WorkloadDir() = %q (%s), want %q", got, why, dir)
	}
	src, path, why, err := WorkloadSource("least_squares")
	if err != nil || why != "" || src != "x + 1" || path != filepath.Join(dir, "least_squares.sdql") {
		t.Errorf("WorkloadSource = %q, %q, %q, %v", src, path, why, err)
	}
	if _, _, _, err := WorkloadSource("ridge"); err == nil || !strings.Contains(err.Error(), "bench: workload ridge: ") {
		t.Errorf("a workload missing from the folder: %v", err)
	}
}
