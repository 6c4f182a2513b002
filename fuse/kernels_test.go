package fuse

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// kernel is a benchmark kernel of the paper's section 7.1, as the
// derivative program of tensorized forward mode (the one-hot seed of the
// input differentiated, zero tangents for the others).
type kernel struct {
	name    string
	primal  string // the kernel as the paper writes it
	wrt     string
	deriv   string            // its derivative as tensorized forward mode gives it (hand-written)
	dense   []string          // inputs that store every index (dense vectors)
	mats    []string          // matrix inputs
	vecs    []string          // vector inputs
	formats map[string]string // default formats for the matrix and vector inputs
}

var kernels = []kernel{
	{name: "batax", primal: "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }", wrt: "x", mats: []string{"A"}, vecs: []string{"x"}, dense: []string{"x"}, deriv: `
let x' = sum(<k, _> in x) {k -> {k -> 1.0}}
let beta' = {}
sum(<i, r> in A)
  sum(<j, v1> in r)
    sum(<k, v2> in r)
      { j -> ((beta' * v1) * v2) * x(k) + ((beta * v1) * v2) * x'(k) }`},
	{name: "smmm", primal: "sum(<i, a> in A) sum(<k, av> in a) sum(<j, bv> in B(k)) av * bv", wrt: "B", mats: []string{"A", "B"}, deriv: `
let B' = sum(<k, row> in B) { k -> sum(<j, _> in row) { j -> { k -> { j -> 1.0 } } } }
let A' = {}
sum(<i, a> in A) sum(<k, av> in a) sum(<j, bv> in B(k)) A'(i)(k) * bv + av * B'(k)(j)`},
	{name: "smvm", primal: "sum(<i, r> in A) sum(<j, a> in r) a * X(j)", wrt: "X", mats: []string{"A"}, vecs: []string{"X"}, dense: []string{"X"}, deriv: `
let X' = sum(<j, _> in X) { j -> { j -> 1.0 } }
let A' = {}
sum(<i, r> in A) sum(<j, a> in r) A'(i)(j) * X(j) + a * X'(j)`},
	{name: "vva", primal: "V1 + V2", wrt: "V1", vecs: []string{"V1", "V2"}, deriv: `
let V1' = sum(<i, _> in V1) { i -> { i -> 1.0 } }
let V2' = {}
V1' + V2'`},
	{name: "vvd", primal: "sum(<i, a> in V2) V1(i) * a", wrt: "V1", vecs: []string{"V1", "V2"}, dense: []string{"V1"}, deriv: `
let V1' = sum(<i, a> in V1) {i -> {i -> 1.0}}
let V2' = {}
sum(<i, a> in V2)
  let <i', a'> = <{}, V2'(i)> in
    V1(i) * a' + V1'(i) * a`},
	{name: "vsm", primal: "sum(<i, v> in V) { i -> v * s * s }", wrt: "s", vecs: []string{"V"}, deriv: `
let s' = 1.0
let V' = {}
sum(<i, v> in V) { i -> (V'(i) * s) * s + (v * s') * s + (v * s) * s' }`},
}

// randomMatrix returns an n x n matrix with nnz distinct entries.
func randomMatrix(r *rand.Rand, n, nnz int) *sdql.Dict {
	m := sdql.NewDict()
	seen := map[[2]int]bool{}
	for len(seen) < nnz {
		i, j := r.Intn(n), r.Intn(n)
		if seen[[2]int{i, j}] {
			continue
		}
		seen[[2]int{i, j}] = true
		row, ok := m.Get(i)
		if !ok {
			row = sdql.NewDict()
			m.Set(i, row)
		}
		row.(*sdql.Dict).Set(j, sdql.Real(float64(r.Intn(9)+1)/4))
	}
	return m
}

func randomVector(r *rand.Rand, n, nnz int) *sdql.Dict {
	v := sdql.NewDict()
	if nnz >= n {
		for i := 0; i < n; i++ {
			v.Set(i, sdql.Real(float64(r.Intn(9)+1)/4))
		}
		return v
	}
	for v.Len() < nnz {
		v.Set(r.Intn(n), sdql.Real(float64(r.Intn(9)+1)/4))
	}
	return v
}

type kernelSetup struct {
	cfg       *Config
	logical   map[string]sdql.Value
	physical  map[string]sdql.Value
	stored    float64 // stored entries of all inputs
	rowSquare float64 // sum over rows of the squared row lengths (BATAx)
}

// setupKernel binds the kernel's inputs: matrices n x n with nnz entries
// in matFormat, dense vectors of length n, sparse vectors with nnz/4
// entries in vecFormat.
func setupKernel(k kernel, n, nnz int, matFormat, vecFormat string, seed int64) *kernelSetup {
	r := rand.New(rand.NewSource(seed))
	s := &kernelSetup{logical: map[string]sdql.Value{}, physical: map[string]sdql.Value{}}
	cfg := &Config{Inputs: map[string]sdql.Type{}, Dense: map[string]bool{}, Stats: Stats{}, PhysStats: Stats{},
		Defs: map[string]sdql.Expr{}, PhysInputs: map[string]sdql.Type{}}
	dense := map[string]bool{}
	for _, d := range k.dense {
		dense[d] = true
		cfg.Dense[d] = true
	}
	bind := func(name, format string, v *sdql.Dict, dims []int) {
		s.logical[name] = v
		vals, types := physBind(format, name, v, dims)
		cfg.Defs[name] = sdql.MustParse(defText(format, name, len(dims)))
		for nm, x := range vals {
			s.physical[nm] = x
			cfg.PhysInputs[nm] = types[nm]
			switch x := x.(type) {
			case sdql.Int:
				cfg.PhysStats[nm] = []float64{float64(x)}
			case sdql.IntArray:
				cfg.PhysStats[nm] = []float64{float64(len(x))}
			case sdql.RealArray:
				cfg.PhysStats[nm] = []float64{float64(len(x))}
			}
		}
	}
	for _, m := range k.mats {
		v := randomMatrix(r, n, nnz)
		cfg.Inputs[m] = matT
		cfg.Stats[m] = []float64{float64(v.Len()), float64(nnz) / float64(v.Len())}
		s.stored += float64(nnz)
		v.Range(func(_ int, row sdql.Value) bool {
			l := float64(row.(*sdql.Dict).Len())
			s.rowSquare += l * l
			return true
		})
		bind(m, matFormat, v, []int{n, n})
	}
	for _, name := range k.vecs {
		cnt := nnz / 4
		f := vecFormat
		if dense[name] {
			cnt, f = n, "dense"
		}
		v := randomVector(r, n, cnt)
		cfg.Inputs[name] = vecT
		cfg.Stats[name] = []float64{float64(v.Len())}
		s.stored += float64(v.Len())
		bind(name, f, v, []int{n})
	}
	if k.name == "batax" || k.name == "vsm" {
		sc := "beta"
		if k.name == "vsm" {
			sc = "s"
		}
		cfg.Inputs[sc] = sdql.RealType
		s.logical[sc], s.physical[sc] = sdql.Real(0.75), sdql.Real(0.75)
		cfg.PhysInputs[sc] = sdql.RealType
	}
	s.cfg = cfg
	return s
}

// TestKernelsLinear optimizes the gradients of the six benchmark kernels
// over CSR and COO matrices and dense and COO vectors (5,000 x 5,000 with
// 20,000 entries) and checks, through the cost model and through the
// operation counts of the reference interpreter, that the work is linear
// in the stored entries (for BATAx in the sum over rows of the squared row
// lengths), never in the dense size, and that the result is right.
func TestKernelsLinear(t *testing.T) {
	const n, nnz = 5000, 20000
	if testing.Short() {
		t.Skip("large inputs")
	}
	for _, k := range kernels {
		for _, combo := range [][2]string{{"csr", "coo"}, {"coo", "coo"}, {"csr", "dense"}} {
			if len(k.mats) == 0 && combo[0] == "coo" || len(k.vecs) == 0 && combo[1] == "dense" {
				continue
			}
			for _, path := range []string{"ad", "given"} {
				name := fmt.Sprintf("%s/mat=%s/vec=%s/grad=%s", k.name, combo[0], combo[1], path)
				t.Run(name, func(t *testing.T) {
					s := setupKernel(k, n, nnz, combo[0], combo[1], 7)
					prog := sdql.MustParse(k.deriv)
					wrt := ""
					if path == "ad" {
						wrt = k.wrt
						prog = sdql.MustParse(k.primal)
					}
					res, err := optimizeGrad(prog, wrt, s.cfg)
					if err != nil {
						t.Fatal(err)
					}
					if path == "ad" {
						prog = res.Stages[1].Program // the differentiated program
					}
					phys := map[string]sdql.Type{}
					for nm, ty := range s.cfg.PhysInputs {
						phys[nm] = ty
					}
					// linear in the stored entries; BATAx's gradient βAᵀA has
					// the sum over rows of the squared row lengths as its size
					bound := 50 * (s.stored + n)
					if k.name == "batax" {
						bound += 50 * s.rowSquare
					}
					cost := Cost(res.Program, phys, s.cfg.PhysStats)
					if cost > bound || cost > float64(n)*float64(n) {
						t.Errorf("cost %.3g exceeds %.3g (stored %g, dense size %d)\n%s", cost, bound, s.stored, n*n, sdql.Print(res.Program))
					}
					in := &sdql.Interp{}
					got, err := in.Eval(res.Program, s.physical)
					if err != nil {
						t.Fatalf("%v\n%s", err, sdql.Print(res.Program))
					}
					if float64(in.Ops) > bound {
						t.Errorf("%d operations exceed %.3g\n%s", in.Ops, bound, sdql.Print(res.Program))
					}
					want, err := sdql.Eval(prog, s.logical)
					if err != nil {
						t.Fatal(err)
					}
					if !sdql.Equal(got, want) {
						t.Errorf("the optimized program computes a different gradient\n%s", sdql.Print(res.Program))
					}
					t.Logf("cost %.3g, %d ops, stored %g, optimized in %v", cost, in.Ops, s.stored, res.Elapsed)
				})
			}
		}
	}
}

// TestOptimizeTime checks that optimizing any kernel of the paper takes
// under 100 ms (the median of five runs) and that the runner reports why
// it stopped.
func TestOptimizeTime(t *testing.T) {
	for _, k := range kernels {
		s := setupKernel(k, 100, 400, "csr", "coo", 1)
		prog := sdql.MustParse(k.primal)
		var times []time.Duration
		for i := 0; i < 5; i++ {
			res, err := optimizeGrad(prog, k.wrt, s.cfg)
			if err != nil {
				t.Fatal(err)
			}
			times = append(times, res.Elapsed)
			for _, rep := range res.Reports {
				if rep.Stop == StopNotStarted || rep.Stop == "" {
					t.Errorf("%s: saturation did not report why it stopped", k.name)
				}
			}
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		t.Logf("%s: optimized in %v (median of 5)", k.name, times[2])
		if times[2] > 100*time.Millisecond {
			t.Errorf("%s: optimizing took %v, want under 100ms", k.name, times[2])
		}
	}
}
