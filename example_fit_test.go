package nablasd_test

import (
	"context"
	"fmt"
	"math"

	"github.com/nablasd/nablasd"
)

// Logistic regression with a ridge penalty on a sparse design: A (CSR,
// from scipy.sparse.csr_matrix's arrays) holds one sample a row, y the
// labels. L-BFGS fits x; at the fit the gradient computed by hand,
// Aᵀ(σ(Ax) − y) + λx, vanishes.
func ExampleQuery_Minimize() {
	// six samples of three features, two of them set in each
	A, err := nablasd.CSR(6, 3,
		[]int{0, 2, 4, 6, 8, 10, 12},
		[]int{0, 1, 1, 2, 0, 2, 0, 1, 1, 2, 0, 2},
		[]float64{1, 0.5, -1, 2, 1.5, -0.5, -2, 1, 0.5, 0.5, 1, 1})
	if err != nil {
		panic(err)
	}
	y := []float64{1, 0, 1, 0, 1, 1}
	q, err := nablasd.Prepare(`
		(sum(<i, row> in A)
		   let z = sum(<j, a> in row) a * x(j) in
		   log(1 + exp(z)) - y(i) * z)
		+ 0.5 * lambda * sum(<j, v> in x) v * v`,
		nablasd.Inputs{"A": A, "y": y, "x": []float64{0, 0, 0}, "lambda": 0.1}, nil)
	if err != nil {
		panic(err)
	}
	fit, err := q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"x"}, Tol: 1e-10})
	if err != nil {
		panic(err)
	}
	x := fit.Value("x")
	fmt.Printf("converged %v, x = [%.4f %.4f %.4f]\n", fit.Converged, x[0], x[1], x[2])

	// by hand, row by row of the CSR arrays
	g := []float64{0.1 * x[0], 0.1 * x[1], 0.1 * x[2]}
	for i := 0; i < 6; i++ {
		z := 0.0
		for p := A.Pos[1][i]; p < A.Pos[1][i+1]; p++ {
			z += A.Val[p] * x[A.Idx[1][p]]
		}
		s := 1 / (1 + math.Exp(-z))
		for p := A.Pos[1][i]; p < A.Pos[1][i+1]; p++ {
			g[A.Idx[1][p]] += A.Val[p] * (s - y[i])
		}
	}
	fmt.Println("gradient by hand below 1e-8:", math.Abs(g[0]) < 1e-8 && math.Abs(g[1]) < 1e-8 && math.Abs(g[2]) < 1e-8)
	// Output:
	// converged true, x = [2.4781 2.0374 -0.0524]
	// gradient by hand below 1e-8: true
}

// Matrix factorization over the observed entries of R: U (4×2) and W
// (3×2) such that U(i)·W(j) reproduces R(i, j). A rank-2 fit of seven
// entries is exact; the entries reproduce, computed from the fitted
// matrices by hand.
func Example_matrixFactorization() {
	R, err := nablasd.CSR(4, 3,
		[]int{0, 2, 4, 5, 7},
		[]int{0, 1, 1, 2, 0, 0, 2},
		[]float64{5, 3, 4, 1, 1, 2, 4})
	if err != nil {
		panic(err)
	}
	U := [][]float64{{0.1, 0.2}, {0.3, -0.1}, {0.2, 0.4}, {-0.3, 0.1}}
	W := [][]float64{{0.2, -0.1}, {0.1, 0.3}, {0.4, 0.2}}
	q, err := nablasd.Prepare(`
		sum(<i, row> in R) sum(<j, r> in row)
		  let e = r - sum(<k, u> in U(i)) u * W(j)(k) in
		  e * e`, nablasd.Inputs{"R": R, "U": U, "W": W}, nil)
	if err != nil {
		panic(err)
	}
	fit, err := q.Minimize(context.Background(), &nablasd.FitOptions{Wrt: []string{"U", "W"}, Tol: 1e-9, MaxIter: 5000})
	if err != nil {
		panic(err)
	}
	u, w := fit.Value("U"), fit.Value("W") // row-major, 2 columns
	fmt.Printf("converged %v, loss below 1e-10: %v\n", fit.Converged, fit.Loss < 1e-10)
	for i := 0; i < 4; i++ {
		for p := R.Pos[1][i]; p < R.Pos[1][i+1]; p++ {
			j := R.Idx[1][p]
			fmt.Printf("R(%d,%d) = %g, U(%d)·W(%d) = %.4f\n", i, j, R.Val[p], i, j, u[2*i]*w[2*j]+u[2*i+1]*w[2*j+1])
		}
	}
	// Output:
	// converged true, loss below 1e-10: true
	// R(0,0) = 5, U(0)·W(0) = 5.0000
	// R(0,1) = 3, U(0)·W(1) = 3.0000
	// R(1,1) = 4, U(1)·W(1) = 4.0000
	// R(1,2) = 1, U(1)·W(2) = 1.0000
	// R(2,0) = 1, U(2)·W(0) = 1.0000
	// R(3,0) = 2, U(3)·W(0) = 2.0000
	// R(3,2) = 4, U(3)·W(2) = 4.0000
}
