package nablasd

import (
	"math"
	osexec "os/exec"
	"testing"

	"gonum.org/v1/gonum/optimize"
)

// TestProblemReadsBundle: a Problem reads its dense bundle's array
// directly, and gets the loss and gradient the entries give; the
// interpreter, which keeps no array, gives them through its entries.
func TestProblemReadsBundle(t *testing.T) {
	q := bundleQuery(t, "compiled")
	p, err := q.Problem("U", "W", "c")
	if err != nil {
		t.Fatal(err)
	}
	if p.layout == nil || p.params[0].src != nil || p.params[1].src != nil {
		t.Fatalf("the problem does not read the dense bundle directly: layout %v", p.layout)
	}
	x := p.X0()
	f := p.fn(x)
	if r := p.dst.dense(); r == nil {
		t.Fatalf("no dense array after a run")
	}
	g := append([]float64(nil), p.g...)
	p.readEntries()
	if p.f != f {
		t.Errorf("loss %v from the array, %v from the entries", f, p.f)
	}
	for i := range g {
		if math.Float64bits(g[i]) != math.Float64bits(p.g[i]) {
			t.Errorf("gradient %v from the array, %v from the entries", g, p.g)
			break
		}
	}
	// the same through the interpreter, which keeps no array
	pi, err := bundleQuery(t, "interp").Problem("U", "W", "c")
	if err != nil {
		t.Fatal(err)
	}
	if fi := pi.fn(x); math.Abs(fi-f) > 1e-12 {
		t.Errorf("interpreter's loss %v, compiled %v", fi, f)
	}
	for i := range g {
		if math.Abs(g[i]-pi.g[i]) > 1e-12 {
			t.Errorf("interpreter's gradient %v, compiled %v", pi.g, g)
			break
		}
	}
}

// TestProblemReadsBundleJIT: the native kernel's dense bundle
// (NablasdDense) is read directly too, and gives the closures' loss and
// gradient.
func TestProblemReadsBundleJIT(t *testing.T) {
	if _, err := osexec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler: the JIT falls back")
	}
	if testing.Short() {
		t.Skip("-short: builds a plugin")
	}
	pc, err := bundleQuery(t, "compiled").Problem("U", "W", "c")
	if err != nil {
		t.Fatal(err)
	}
	pj, err := bundleQuery(t, "jit").Problem("U", "W", "c")
	if err != nil {
		t.Fatal(err)
	}
	if pj.k.Executor() != "jit" {
		t.Fatalf("executor %s", pj.k.Executor())
	}
	x := pc.X0()
	fc, fj := pc.fn(x), pj.fn(x)
	if pj.dst.dense() == nil {
		t.Fatalf("the native kernel's bundle is not read directly")
	}
	if math.Abs(fc-fj) > 1e-12 {
		t.Errorf("loss: native %v, closures %v", fj, fc)
	}
	for i := range pc.g {
		if math.Abs(pc.g[i]-pj.g[i]) > 1e-12 {
			t.Errorf("gradient: native %v, closures %v", pj.g, pc.g)
			break
		}
	}
}

// TestGradientTest: the fit's gradient test (gonum's Converger) passes a
// gradient below the bound by its largest magnitude, either sign, and
// never one that holds a NaN, wherever it is.
func TestGradientTest(t *testing.T) {
	c := gradientTest{thresh: 1}
	for _, tc := range []struct {
		g    []float64
		want optimize.Status
	}{
		{[]float64{0.5, -0.9, 0}, optimize.GradientThreshold},
		{[]float64{0.5, -1.5, 0}, optimize.NotTerminated},
		{[]float64{0.5, math.NaN(), 0.1}, optimize.NotTerminated},
		{[]float64{math.NaN()}, optimize.NotTerminated},
		{[]float64{0.1, math.Inf(-1)}, optimize.NotTerminated},
	} {
		if got := c.Converged(&optimize.Location{Gradient: tc.g}); got != tc.want {
			t.Errorf("gradient %v: %v, want %v", tc.g, got, tc.want)
		}
	}
	if got := maxAbs([]float64{-3, 2}); got != 3 {
		t.Errorf("maxAbs: %v, want 3", got)
	}
}
