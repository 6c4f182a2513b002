package nablasd

import (
	"testing"

	"github.com/nablasd/nablasd/lower"
)

// factorization is a loss over two dense matrices of different row counts
// (U 3×2, W 5×2) and a number: its value-and-gradients bundle is padded
// to dense(4) × dense(5) × dense(2): the value and c at [0 0], U in
// rows 0..2 of its block.
const bundleFactorization = `
sum(<i, row> in R) sum(<j, r> in row)
  let e = r - c - sum(<k, u> in U(i)) u * W(j)(k) in
  e * e`

func bundleQuery(t *testing.T, exec string) *Query {
	t.Helper()
	R, err := CSR(3, 5, []int{0, 2, 3, 5}, []int{0, 4, 2, 1, 3}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	U := [][]float64{{0.1, 0.2}, {0.3, -0.1}, {0.5, 0.4}}
	W := [][]float64{{1, 0}, {0, 1}, {1, 1}, {-1, 2}, {0.5, 0.5}}
	q, err := Prepare(bundleFactorization, Inputs{"R": R, "U": U, "W": W, "c": 0.25}, &Options{Exec: exec})
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestBundleDense: the value and the gradients with respect to dense
// inputs and a number are one dense array (every level dense and full,
// the shape bundleShape gives), the compiled kernel's destination array
// (exec.Result.Dense); Split trims each gradient to its input's extents
// and agrees with the gradients computed alone.
func TestBundleDense(t *testing.T) {
	q := bundleQuery(t, "compiled")
	k, err := q.CompileDerivative(&Derivative{Wrt: []string{"U", "W", "c"}, Value: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := q.bundleShape(k.plan, q.dims()); len(got) != 3 || got[0] != 4 || got[1] != 5 || got[2] != 2 {
		t.Fatalf("bundleShape %v, want [4 5 2]", got)
	}
	if !k.plan.fullResult() {
		t.Fatalf("the bundle is not dense and full:\n%s", lower.Print(k.plan.Loops))
	}
	r := k.NewResult()
	if err := k.Run(r, nil); err != nil {
		t.Fatal(err)
	}
	outs, err := k.Split(r)
	if err != nil {
		t.Fatal(err)
	}
	for i, w := range []string{"U", "W", "c"} {
		alone, err := q.Grad(w)
		if err != nil {
			t.Fatal(err)
		}
		if outs[i+1].String() != alone[0].String() {
			t.Errorf("the bundle's gradient of %s: %s, alone %s", w, outs[i+1], alone[0])
		}
	}
	v, _ := q.Value()
	if outs[0].Scalar() != v.Scalar() {
		t.Errorf("the bundle's value %v, alone %v", outs[0], v)
	}
	// a vector's gradient scattered into a row of the bundle
	// (exec's SegAccum into a dense row): least squares
	ls, err := Prepare("let d = (sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) }) - b in sum(<i, v> in d) v * v",
		Inputs{"A": q.inputs["R"].tensor, "x": []float64{1, -2, 0.5, 3, 1}, "b": []float64{1, 2, 3}}, &Options{Exec: "compiled"})
	if err != nil {
		t.Fatal(err)
	}
	lv, lg, err := ls.ValueAndGrad("x")
	if err != nil {
		t.Fatal(err)
	}
	// by hand: Ax = [3, 1.5, 7], d = [2, -0.5, 4]; ‖d‖² and 2Aᵀd
	if lv.Scalar() != 20.25 || lg[0].String() != "{0 -> 4, 1 -> 32, 2 -> -3, 3 -> 40, 4 -> 8}" {
		t.Errorf("least squares: %v, %v", lv, lg[0])
	}

	dense, _, ok := r.ex.Dense()
	if !ok || len(dense) != 4*5*2 {
		t.Fatalf("the destination's array: %v %v", dense, ok)
	}
	if dense[0] != v.Scalar() {
		t.Errorf("the array's value %v, want %v", dense[0], v)
	}
}
