package lower

// The Smith normal form of an integer matrix (paper 002, "Automatic
// Differentiation for Tensor Algebras", section 4.1, Alg. 1): S = U A V
// with U and V unimodular (integer, determinant ±1) and S diagonal, its
// entries s₁ | s₂ | … | s_r positive and the rest zero (r the rank). It
// solves the integer systems of index arithmetic: A α = b has a solution
// exactly when the last m − r entries of U b (the cokernel's) are zero and
// each of the first r is divisible by its sᵢ; then α = V w with wᵢ = (U
// b)ᵢ / sᵢ for i ≤ r and the other n − r entries of w free (the kernel's
// directions, columns r+1..n of V). A gather loop over the keys of a
// scatter x(2·i + k) enumerates them by w: the image's coordinates give
// the key, the kernel's run the inner loops.

// smith computes the Smith normal form S = U A V of the m×n matrix a: it
// returns S, U (m×m), V (n×n) and the rank r.
func smith(a [][]int64) (s, u, v [][]int64, r int) {
	m := len(a)
	n := 0
	if m > 0 {
		n = len(a[0])
	}
	s = make([][]int64, m)
	for i := range a {
		s[i] = append([]int64(nil), a[i]...)
	}
	u, v = identity64(m), identity64(n)
	swapRows := func(x [][]int64, i, j int) { x[i], x[j] = x[j], x[i] }
	swapCols := func(x [][]int64, i, j int) {
		for _, row := range x {
			row[i], row[j] = row[j], row[i]
		}
	}
	// addRow: row i += k·row j; addCol: column i += k·column j
	addRow := func(x [][]int64, i, j int, k int64) {
		for c := range x[i] {
			x[i][c] += k * x[j][c]
		}
	}
	addCol := func(x [][]int64, i, j int, k int64) {
		for _, row := range x {
			row[i] += k * row[j]
		}
	}
	for t := 0; t < m && t < n; t++ {
		for {
			// the pivot: the least non-zero entry of the rest, moved to
			// (t, t)
			pi, pj := -1, -1
			for i := t; i < m; i++ {
				for j := t; j < n; j++ {
					if s[i][j] != 0 && (pi < 0 || abs64(s[i][j]) < abs64(s[pi][pj])) {
						pi, pj = i, j
					}
				}
			}
			if pi < 0 {
				return s, u, v, r // the rest is zero
			}
			swapRows(s, t, pi)
			swapRows(u, t, pi)
			swapCols(s, t, pj)
			swapCols(v, t, pj)
			// reduce the column and the row by the pivot; a remainder
			// is a smaller pivot: start again
			done := true
			for i := t + 1; i < m; i++ {
				if q := floorDiv(s[i][t], s[t][t]); q != 0 {
					addRow(s, i, t, -q)
					addRow(u, i, t, -q)
				}
				if s[i][t] != 0 {
					done = false
				}
			}
			for j := t + 1; j < n; j++ {
				if q := floorDiv(s[t][j], s[t][t]); q != 0 {
					addCol(s, j, t, -q)
					addCol(v, j, t, -q)
				}
				if s[t][j] != 0 {
					done = false
				}
			}
			if !done {
				continue
			}
			// divisibility: an entry of the rest the pivot does not
			// divide is added into the pivot's row, and reduced again
			bad := -1
			for i := t + 1; i < m && bad < 0; i++ {
				for j := t + 1; j < n; j++ {
					if s[i][j]%s[t][t] != 0 {
						bad = i
						break
					}
				}
			}
			if bad < 0 {
				break
			}
			addRow(s, t, bad, 1)
			addRow(u, t, bad, 1)
		}
		if s[t][t] < 0 {
			for c := range s[t] {
				s[t][c] = -s[t][c]
			}
			for c := range u[t] {
				u[t][c] = -u[t][c]
			}
		}
		r++
	}
	return s, u, v, r
}

func identity64(n int) [][]int64 {
	m := make([][]int64, n)
	for i := range m {
		m[i] = make([]int64, n)
		m[i][i] = 1
	}
	return m
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// matMul64 is the product of two integer matrices.
func matMul64(a, b [][]int64) [][]int64 {
	out := make([][]int64, len(a))
	for i := range a {
		out[i] = make([]int64, len(b[0]))
		for j := range b[0] {
			for k := range b {
				out[i][j] += a[i][k] * b[k][j]
			}
		}
	}
	return out
}

// inverseUnimodular inverts a unimodular matrix (its inverse is integer)
// by Gauss–Jordan elimination over the integers, or returns nil for a
// matrix that is not unimodular.
func inverseUnimodular(a [][]int64) [][]int64 {
	n := len(a)
	// the Smith form of a unimodular matrix is the identity: I = U a V,
	// so a⁻¹ = V U
	s, u, v, r := smith(a)
	if r != n {
		return nil
	}
	for i := 0; i < n; i++ {
		if s[i][i] != 1 {
			return nil
		}
	}
	return matMul64(v, u)
}
