package paper

// The hand-written Go closed forms of the six gradients over the inputs of
// the paper's experiments (the matrix A in CSR, B and x dense, V2 and V
// sparse vectors), the practical lower bound of the compiled kernels. Each
// kernel's form is built by newHand over its inputs and returns a run over
// buffers it owns (the "reused destination" system runs one of them many
// times; the "allocating" system builds a new one for every run) and the
// values of its last result.

// handForm is one hand-written gradient bound to its inputs.
type handForm struct {
	run    func()
	values func() []float64
}

// handInputs are the slices a hand-written form reads.
type handInputs struct {
	n          int // the dense inputs' length (A's columns, the vector's length)
	pos, idx   []int
	val        []float64
	cpos, cidx []int // A in CSC (BATAx reads Aᵀ by columns; not timed)
	cval       []float64
	vidx       []int // the sparse vector's positions and values
	vval       []float64
	beta, s    float64
}

// newHand returns the kernel's hand-written form over fresh buffers.
func newHand(kernel string, in *handInputs) handForm {
	n := in.n
	switch kernel {
	case "batax":
		g := newGustavson(n)
		return handForm{func() { g.run(in.beta, in.cpos, in.cidx, in.cval, in.pos, in.idx, in.val) }, func() []float64 { return g.val }}
	case "smmm":
		// d/dB(k, j) of Σ A B = Σ_i A(i, k): the column sums of A, copied
		// along every row of the dense B
		s, out := make([]float64, n), make([]float64, n*n)
		return handForm{func() {
			clear(s)
			for p, j := range in.idx {
				s[j] += in.val[p]
			}
			for k := 0; k < n; k++ {
				row, c := out[k*n:(k+1)*n], s[k]
				for j := range row {
					row[j] = c
				}
			}
		}, func() []float64 { return out }}
	case "smmm-sparse":
		// d/dB(k, j) on B's stored positions (B = A in CSR): A's column
		// sum k at each entry of row k
		s, out := make([]float64, n), make([]float64, len(in.idx))
		return handForm{func() {
			clear(s)
			for p, j := range in.idx {
				s[j] += in.val[p]
			}
			for k := 0; k+1 < len(in.pos); k++ {
				row, c := out[in.pos[k]:in.pos[k+1]], s[k]
				for q := range row {
					row[q] = c
				}
			}
		}, func() []float64 { return out }}
	case "smvm":
		g := make([]float64, n)
		return handForm{func() {
			clear(g)
			for p, j := range in.idx {
				g[j] += in.val[p]
			}
		}, func() []float64 { return g }}
	case "vva":
		// the identity on V1's (dense) positions: its diagonal
		out := make([]float64, n)
		return handForm{func() {
			for i := range out {
				out[i] = 1
			}
		}, func() []float64 { return out }}
	case "vvd":
		// V2, on V1's dense positions
		out := make([]float64, n)
		return handForm{func() {
			clear(out)
			for e, i := range in.vidx {
				out[i] = in.vval[e]
			}
		}, func() []float64 { return out }}
	case "vsm":
		// 2 s V, on V's positions
		out := make([]float64, len(in.vval))
		return handForm{func() {
			c := 2 * in.s
			for e, v := range in.vval {
				out[e] = c * v
			}
		}, func() []float64 { return out }}
	}
	panic("internal error: no hand-written form of " + kernel)
}

// gustavson computes β AᵀA row by row (Gustavson's algorithm over Aᵀ's
// rows, A's columns in CSC, and A in CSR) into a CSR result with a dense
// workspace; its buffers are reused across runs.
type gustavson struct {
	w    []float64
	mark []int
	pos  []int
	idx  []int
	val  []float64
}

func newGustavson(n int) *gustavson {
	return &gustavson{w: make([]float64, n), mark: make([]int, n), pos: make([]int, n+1)}
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
