package nablasd_test

import (
	"fmt"
	"math"
	"strings"

	"github.com/nablasd/nablasd"
	"gonum.org/v1/gonum/mat"
)

// The gradient of Σ A x with respect to x, A a CSR matrix built from the
// arrays of scipy.sparse.csr_matrix: the column sums of A.
func Example() {
	// A = [[1, 0, 2],
	//      [0, 3, 0]]
	A, err := nablasd.CSR(2, 3, []int{0, 2, 3}, []int{0, 2, 1}, []float64{1, 2, 3})
	if err != nil {
		panic(err)
	}
	q, err := nablasd.Prepare("sum(<i, row> in A) sum(<j, a> in row) a * x(j)",
		nablasd.Inputs{"A": A, "x": []float64{1, 1, 1}}, nil)
	if err != nil {
		panic(err)
	}
	g, err := q.Grad("x")
	if err != nil {
		panic(err)
	}
	fmt.Println(g[0])
	// Output: {0 -> 1, 1 -> 3, 2 -> 2}
}

const leastSquares = `
let r = sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) } in
let d = r - b in
0.5 * sum(<i, v> in d) v * v`

// A gonum matrix and vectors in, the gradient of ½‖Ax − b‖² out as a gonum
// vector, next to the closed form Aᵀ(Ax − b) computed by gonum.
func Example_gonum() {
	A := mat.NewDense(3, 2, []float64{1, 2, 3, 4, 5, 6})
	x := mat.NewVecDense(2, []float64{1, -1})
	b := mat.NewVecDense(3, []float64{1, 0, 2})
	q, err := nablasd.Prepare(leastSquares, nablasd.Inputs{"A": A, "x": x, "b": b}, nil)
	if err != nil {
		panic(err)
	}
	g, err := q.Grad("x")
	if err != nil {
		panic(err)
	}
	d, err := g[0].Dense()
	if err != nil {
		panic(err)
	}
	fmt.Println("nablasd:", mat.Formatted(mat.NewVecDense(len(d), d).T()))

	var r, want mat.VecDense
	r.MulVec(A, x)
	r.SubVec(&r, b)
	want.MulVec(A.T(), &r)
	fmt.Println("gonum:  ", mat.Formatted(want.T()))
	// Output:
	// nablasd: [-20  -26]
	// gonum:   [-20  -26]
}

// The logistic loss Σ softplus(zᵢ) − yᵢzᵢ, z = Ax, and its gradient
// Aᵀ(sigmoid(Ax) − y) from one kernel and one run (reverse mode: the
// gradient's primal sweep computes the loss), next to both computed by
// hand.
func ExampleQuery_ValueAndGrad() {
	A, err := nablasd.CSR(3, 2, []int{0, 2, 3, 4}, []int{0, 1, 1, 0}, []float64{1, -1, 2, 0.5})
	if err != nil {
		panic(err)
	}
	x, y := []float64{0.5, -0.25}, []float64{1, 0, 1}
	q, err := nablasd.Prepare(`
		sum(<i, row> in A)
		  let z = sum(<j, a> in row) a * x(j) in
		  softplus(z) - y(i) * z`,
		nablasd.Inputs{"A": A, "x": x, "y": y}, nil)
	if err != nil {
		panic(err)
	}
	v, g, err := q.ValueAndGrad("x")
	if err != nil {
		panic(err)
	}
	grad, _ := g[0].Dense()
	fmt.Printf("loss %.6f, gradient [%.6f %.6f]\n", v.Scalar(), grad[0], grad[1])

	// by hand: rows (1, -1), (0, 2), (0.5, 0)
	rows := [][]float64{{1, -1}, {0, 2}, {0.5, 0}}
	loss, want := 0.0, []float64{0, 0}
	for i, a := range rows {
		z := a[0]*x[0] + a[1]*x[1]
		loss += math.Log1p(math.Exp(z)) - y[i]*z
		s := 1 / (1 + math.Exp(-z))
		want[0] += a[0] * (s - y[i])
		want[1] += a[1] * (s - y[i])
	}
	fmt.Printf("loss %.6f, gradient [%.6f %.6f]\n", loss, want[0], want[1])
	// Output:
	// loss 1.436887, gradient [-0.539733 1.075903]
	// loss 1.436887, gradient [-0.539733 1.075903]
}

// A kernel compiled once runs over new inputs of the same formats (a batch
// of groups) into a destination it reuses.
func ExampleKernel_Run() {
	q, err := nablasd.Prepare("sum(<i, a> in v) a * a * w",
		nablasd.Inputs{"v": []float64{1, 2}, "w": 1.0}, nil)
	if err != nil {
		panic(err)
	}
	k, err := q.Compile("v") // d/dv: 2 v w
	if err != nil {
		panic(err)
	}
	dst := k.NewResult()
	for _, group := range []nablasd.Inputs{
		{"v": []float64{1, 2, 3}, "w": 0.5},
		{"v": []float64{4}, "w": 2.0},
	} {
		if err := k.Run(dst, group); err != nil {
			panic(err)
		}
		fmt.Println(dst)
	}
	// Output:
	// {0 -> 1, 1 -> 2, 2 -> 3}
	// {0 -> 16}
}

// The gradient's kernel as Go source, for ahead-of-time use: its doc
// comment says how the parameters come from the inputs' storage.
func ExampleQuery_GenerateGo() {
	A, err := nablasd.CSR(2, 3, []int{0, 2, 3}, []int{0, 2, 1}, []float64{1, 2, 3})
	if err != nil {
		panic(err)
	}
	q, err := nablasd.Prepare("sum(<i, row> in A) sum(<j, a> in row) a * x(j)",
		nablasd.Inputs{"A": A, "x": []float64{1, 1, 1}}, nil)
	if err != nil {
		panic(err)
	}
	k, err := q.GenerateGo(nablasd.GoOptions{Wrt: "x", Func: "GradX"})
	if err != nil {
		panic(err)
	}
	for _, line := range strings.Split(string(k.Source), "\n") {
		if strings.HasPrefix(line, "func "+k.Func+"(") || strings.Contains(line, "formats.Tensor") {
			fmt.Println(line)
		}
	}
	// Output:
	// //   - from A, a formats.Tensor t in csr: A_len = t.Shape[0], A_pos = t.Pos[1], A_idx = t.Idx[1], A_val = t.Val;
	// //   - from x, a formats.Tensor t in dense: x_len = t.Shape[0], x_val = t.Val.
	// func GradX(A_idx []int, A_len int, A_pos []int, A_val []float64, x_len int, x_val []float64, dst *GradXResult) (err error) {
}

// A lookup whose key ranges over another input's dimension is checked
// before anything runs.
func ExamplePrepare_shapeMismatch() {
	A, _ := nablasd.CSR(2, 3, []int{0, 2, 3}, []int{0, 2, 1}, []float64{1, 2, 3})
	_, err := nablasd.Prepare("sum(<i, row> in A) sum(<j, a> in row) a * x(j)",
		nablasd.Inputs{"A": A, "x": []float64{1, 1}}, &nablasd.Options{File: "smvm.sdql"})
	fmt.Println(err)
	// Output: smvm.sdql:1:43: x has 2 entries but is indexed by A's columns (3)
}

// The Hessian–vector product of ½‖Ax − b‖² is AᵀA v whatever x and b:
// forward mode over the reverse-mode gradient.
func ExampleQuery_HVP() {
	A, err := nablasd.CSR(3, 2, []int{0, 2, 3, 4}, []int{0, 1, 1, 0}, []float64{1, -1, 2, 0.5})
	if err != nil {
		panic(err)
	}
	q, err := nablasd.Prepare(`
		let d = (sum(<i, row> in A) { i -> sum(<j, a> in row) a * x(j) }) - b in
		0.5 * sum(<i, v> in d) v * v`,
		nablasd.Inputs{"A": A, "x": []float64{0.5, -0.25}, "b": []float64{1, 0, 1}}, nil)
	if err != nil {
		panic(err)
	}
	h, err := q.HVP("x", []float64{1, 0})
	if err != nil {
		panic(err)
	}
	// AᵀA = [[1.25, -1], [-1, 5]], its first column
	fmt.Println(h)
	// Output: {0 -> 1.25, 1 -> -1}
}
