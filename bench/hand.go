package bench

import "github.com/nablasd/nablasd/sdql"

// The hand-written Go loops: the closed-form gradients over the format's
// slices, the practical lower bound of the compiled kernels.

// handSMVM: the gradient of sum(A x) w.r.t. x is the column sums of A.
func handSMVM(idx []int, val, g []float64) {
	clear(g)
	for p, j := range idx {
		g[j] += val[p]
	}
}

// handSMMM: the gradient of sum(A B) w.r.t. B is the column sums of A
// broadcast over B's positions (here B = A, in CSR).
func handSMMM(idx []int, val []float64, pos []int, s, out []float64) {
	clear(s)
	for p, j := range idx {
		s[j] += val[p]
	}
	for k := 0; k+1 < len(pos); k++ {
		c := s[k]
		row := out[pos[k]:pos[k+1]]
		for q := range row {
			row[q] = c
		}
	}
}

// handVVA: the identity on V1's positions (the diagonal's values).
func handVVA(out []float64) {
	for i := range out {
		out[i] = 1
	}
}

// handVSM: 2 s V.
func handVSM(s float64, v, out []float64) {
	c := 2 * s
	for i, x := range v {
		out[i] = c * x
	}
}

// gustavson computes beta * A^T A row by row (Gustavson's algorithm over
// A^T in CSC = the columns of A, and A in CSR) into a CSR result, with a
// dense workspace; its buffers are reused across runs.
type gustavson struct {
	w    []float64
	mark []int
	pos  []int
	idx  []int
	val  []float64
}

func newGustavson(n int) *gustavson {
	g := &gustavson{w: make([]float64, n), mark: make([]int, n), pos: make([]int, n+1)}
	for i := range g.mark {
		g.mark[i] = -1
	}
	return g
}

func (g *gustavson) run(beta float64, cpos, cidx []int, cval []float64, pos, idx []int, val []float64) {
	g.idx, g.val = g.idx[:0], g.val[:0]
	for i := range g.mark {
		g.mark[i] = -1
	}
	n := len(cpos) - 1
	for j := 0; j < n; j++ {
		start := len(g.idx)
		for q := cpos[j]; q < cpos[j+1]; q++ {
			i, a := cidx[q], beta*cval[q]
			for p := pos[i]; p < pos[i+1]; p++ {
				k := idx[p]
				if g.mark[k] != j {
					g.mark[k] = j
					g.w[k] = 0
					g.idx = append(g.idx, k)
				}
				g.w[k] += a * val[p]
			}
		}
		for t := start; t < len(g.idx); t++ {
			g.val = append(g.val, g.w[g.idx[t]])
		}
		g.pos[j+1] = len(g.idx)
	}
}

func (g *gustavson) value() sdql.Value { return csrValue(g.pos, g.idx, g.val) }
