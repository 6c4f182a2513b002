package nablasd

import (
	"os/exec"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// TestExecutor: Kernel.Executor names what runs each Options.Exec, and
// the JIT's kernel gives the compiled kernel's gradient.
func TestExecutor(t *testing.T) {
	_, noCC := exec.LookPath("gcc")
	jit := "jit"
	if noCC != nil {
		jit = "compiled" // the JIT falls back
	}
	var want string
	for _, c := range []struct{ exec, executor string }{{"compiled", "compiled"}, {"interp", "interp"}, {"jit", jit}} {
		q, err := Prepare("sum(<i, a> in x) a * a * c", Inputs{"x": []float64{1.5, 0, 2, -2}, "c": 3.0}, &Options{Exec: c.exec})
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile("x")
		if err != nil {
			t.Fatal(err)
		}
		if got := k.Executor(); got != c.executor {
			t.Errorf("Exec %q: Executor() = %q, want %q (warnings %v)", c.exec, got, c.executor, q.Warnings())
		}
		r := k.NewResult()
		if err := k.Run(r, nil); err != nil {
			t.Fatal(err)
		}
		if want == "" {
			want = r.String()
		} else if r.String() != want {
			t.Errorf("Exec %q: %s, want %s", c.exec, r, want)
		}
	}
}

// TestJITThreads: the JIT's kernel runs its parallel loops on
// Options.Threads goroutines where they have enough work (Kernel.Threads
// says how many a loop used), and its results equal the compiled
// kernel's up to the order of additions: a value reduced into a scalar,
// a gradient added into a dense vector and a map written in place.
func TestJITThreads(t *testing.T) {
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler: the JIT falls back")
	}
	if testing.Short() {
		t.Skip("-short: builds plugins")
	}
	const n = 3000
	var rows, cols []int
	var vals []float64
	for i := 0; i < n; i++ {
		for j := i % 7; j < n; j += 97 + i%13 {
			rows, cols, vals = append(rows, i), append(cols, j), append(vals, float64(i-j)/float64(n))
		}
	}
	A, err := formats.FromCoords([]int{n, n}, [][]int{rows, cols}, vals, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	x, y := make([]float64, n), make([]float64, 20000)
	for i := range y {
		y[i] = float64(i%17) / 8
	}
	copy(x, y)
	for _, c := range []struct{ prog, wrt string }{
		{"sum(<i, r> in A) tanh(sum(<j, a> in r) a * x(j))", ""},
		{"sum(<i, r> in A) tanh(sum(<j, a> in r) a * x(j))", "x"},
		{"sum(<i, a> in y) { i -> a * a }", ""},
	} {
		var want sdql.Value
		for _, o := range []Options{{}, {Exec: "jit", Threads: 1}, {Exec: "jit", Threads: 2}, {Exec: "jit", Threads: 3}} {
			in := Inputs{"y": y}
			if c.prog[len(c.prog)-1] == ')' {
				in = Inputs{"A": A, "x": x}
			}
			q, err := Prepare(c.prog, in, &o)
			if err != nil {
				t.Fatal(err)
			}
			var wrt []string
			if c.wrt != "" {
				wrt = []string{c.wrt}
			}
			k, err := q.Compile(wrt...)
			if err != nil {
				t.Fatal(err)
			}
			r := k.NewResult()
			for range 2 { // the second run reuses the workers' copies
				if err := k.Run(r, nil); err != nil {
					t.Fatal(err)
				}
			}
			if o.Exec == "" {
				want = r.Value()
				continue
			}
			if k.Executor() != "jit" {
				t.Fatalf("%s: the JIT fell back: %v", c.prog, q.Warnings())
			}
			if d := sdql.DiffDicts(r.Value(), want, 1e-9); d != "" {
				t.Errorf("%s wrt %q, %d threads: %s", c.prog, c.wrt, o.Threads, d)
			}
			if got, want := k.Threads(), max(o.Threads, 1); got != want {
				t.Errorf("%s wrt %q, %d threads: Threads() = %d, want %d", c.prog, c.wrt, o.Threads, got, want)
			}
		}
	}
}
