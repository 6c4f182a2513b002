package nablasd

import (
	"os/exec"
	"testing"
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
