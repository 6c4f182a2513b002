package sdql_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// vec is a sparse vector as a Go map, the independent representation the
// expected values are computed on.
type vec map[int]float64

// mat is a sparse matrix as a Go map of rows.
type mat map[int]vec

func randVec(r *rand.Rand, n int, density float64) vec {
	v := vec{}
	for i := 0; i < n; i++ {
		if r.Float64() < density {
			v[i] = math.Round(r.NormFloat64()*100) / 10
		}
	}
	return v
}

func randMat(r *rand.Rand, n, m int, density float64) mat {
	a := mat{}
	for i := 0; i < n; i++ {
		if row := randVec(r, m, density); len(row) > 0 {
			a[i] = row
		}
	}
	return a
}

func (v vec) value() sdql.Value {
	d := sdql.NewDict()
	for k, x := range v {
		d.Set(k, sdql.Real(x))
	}
	return d
}

func (a mat) value() sdql.Value {
	d := sdql.NewDict()
	for i, r := range a {
		d.Set(i, r.value())
	}
	return d
}

func (a mat) csr(n int) (pos, idx []int, val []float64) {
	pos = []int{0}
	for i := 0; i < n; i++ {
		for j := 0; j < n*4; j++ { // columns in ascending order
			if x, ok := a[i][j]; ok {
				idx = append(idx, j)
				val = append(val, x)
			}
		}
		pos = append(pos, len(idx))
	}
	return
}

func evalOK(t *testing.T, src string, in map[string]sdql.Value) sdql.Value {
	t.Helper()
	e, err := sdql.Parse("paper.sdql", src)
	if err != nil {
		t.Fatal(err)
	}
	v, err := sdql.Eval(e, in)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	return v
}

func expect(t *testing.T, name string, got, want sdql.Value) {
	t.Helper()
	if !sdql.Equal(got, want) {
		t.Errorf("%s:\n got  %s\n want %s", name, sdql.FormatValue(got), sdql.FormatValue(want))
	}
}

// TestPaperValues evaluates the paper's programs on random inputs and
// compares with values computed by Go loops.
func TestPaperValues(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 12
	for trial := 0; trial < 20; trial++ {
		V1, V2 := randVec(r, n, 0.5), randVec(r, n, 0.5)
		M1, M2 := randMat(r, n, n, 0.3), randMat(r, n, n, 0.3)
		s, beta := r.Float64()*3, r.Float64()*2
		in := map[string]sdql.Value{"V1": V1.value(), "V2": V2.value(), "M1": M1.value(), "M2": M2.value(),
			"s": sdql.Real(s), "beta": sdql.Real(beta)}

		dot := 0.0
		for i, a := range V1 {
			dot += a * V2[i]
		}
		expect(t, "dot V1", evalOK(t, "sum(<i, a> in V1) a * V2(i)", in), sdql.Real(dot))
		expect(t, "dot V2", evalOK(t, "sum(<i, a> in V2) V1(i) * a", in), sdql.Real(dot))

		prod := mat{}
		for i, row := range M1 {
			for j, v1 := range row {
				for k, v2 := range M2[j] {
					if prod[i] == nil {
						prod[i] = vec{}
					}
					prod[i][k] += v1 * v2
				}
			}
		}
		expect(t, "matmul", evalOK(t, "sum(<i, row> in M1) { i ->\n  sum(<j, v1> in row)\n    sum(<k, v2> in M2(j)) { k ->\n      v1 * v2 } }", in), prod.value())

		mapped := vec{}
		for k, v := range V1 {
			mapped[k] = math.Exp(v)
		}
		in["e"] = V1.value()
		expect(t, "map", evalOK(t, "sum(<k, v> in e) { k -> exp(v) }", in), mapped.value())

		scaled := vec{}
		for k, v := range V1 {
			scaled[k] = s * v
		}
		in["V"] = V1.value()
		expect(t, "scalar-vector", evalOK(t, "s * V", in), scaled.value())

		trace := 0.0
		for i, row := range M1 {
			trace += row[i]
		}
		in["M"] = M1.value()
		expect(t, "trace", evalOK(t, "sum(<i, r> in M) r(i)", in), sdql.Real(trace))

		// Section 4.3/5.2: the expanded gradients of the dot product: w.r.t.
		// V2 it is V1 restricted to V2's positions, w.r.t. V1 it is V2 on
		// V1's positions.
		gradV2 := vec{}
		for i, a := range V1 {
			if _, ok := V2[i]; ok {
				gradV2[i] = a
			}
		}
		expect(t, "gradient expansion", evalOK(t, "let V1' = {}\nlet V2' = sum(<i, _> in V2) {i -> {i -> 1}}\nsum(<i, a> in V1)\n    let <i', a'> = <{}, V1'(i)> in\n        a * V2'(i) + a' * V2(i)", in), gradV2.value())
		gradV1 := vec{}
		for i, a := range V2 {
			if _, ok := V1[i]; ok {
				gradV1[i] = a
			}
		}
		expect(t, "sparsity propagated", evalOK(t, "let V1' = sum(<i, a> in V1) {i -> {i -> 1}}\nsum(<i, a> in V2)\n  V1'(i) * a", in), gradV1.value())
		expect(t, "before sparsity propagation", evalOK(t, "let V1' = sum(<i, a> in V1) {i -> {i -> 1}}\nlet V2' = {}\nsum(<i, a> in V2)\n  let <i', a'> = <{}, V2'(i)> in\n    V1(i) * a' + V1'(i) * a", in), gradV1.value())

		// BATAx and its gradient βAᵀA, logical and over CSR.
		A := randMat(r, n, n, 0.3)
		x := randVec(r, n, 1)
		in["A"], in["x"] = A.value(), x.value()
		batax := vec{}
		ata := mat{}
		for _, row := range A {
			for j, v1 := range row {
				for k, v2 := range row {
					batax[j] += beta * v1 * v2 * x[k]
					if ata[j] == nil {
						ata[j] = vec{}
					}
					ata[j][k] += beta * v1 * v2
				}
			}
		}
		expect(t, "BATAx", evalOK(t, "sum(<i, r> in A)\n  sum(<j, v1> in r)\n    sum(<k, v2> in r)\n      { j -> ((beta * v1) * v2) * (x(k)) }", in), batax.value())
		expect(t, "BATAx gradient", evalOK(t, "beta * (sum(<i, r> in A) r * r)", in), ata.value())
		pos, idx, val := A.csr(n)
		in["A_len"], in["A_VRow"], in["A_VCol"], in["A_VVal"] = sdql.Int(n), sdql.IntArray(pos), sdql.IntArray(idx), sdql.RealArray(val)
		expect(t, "BATAx gradient over CSR", evalOK(t, "beta * sum(<_, i> in (0:A_len))\n  let r = sum(<p, j> in A_VCol(A_VRow(i):A_VRow((i + 1))))\n    { j -> A_VVal(p) } in\n  r * r", in), ata.value())
		expect(t, "BATAx gradient normalized", evalOK(t, "sum(<_, i> in (0:A_len))\n  let r = sum(<p, j> in A_VCol(A_VRow(i):A_VRow((i + 1))))\n    { j -> A_VVal(p) } in\n  sum(<i1, v1> in r) { i1 ->\n    sum(<i2, v2> in r)\n      { i2 -> beta * v1 * v2 } }", in), ata.value())

		// Fig. 10: the storage definitions give back the logical tensors.
		in["len"], in["pos"], in["idx"], in["val"] = sdql.Int(n), sdql.IntArray(pos), sdql.IntArray(idx), sdql.RealArray(val)
		expect(t, "CSR", evalOK(t, "sum(<_, i> in (0:len)) { unique(i) -> sum(<p, j> in idx(pos(i):pos(i+1))) { unique(j) -> val(p) } }", in), A.value())
		var rows []int
		var vals []float64
		for i := 0; i < n; i++ {
			if v, ok := V2[i]; ok {
				rows, vals = append(rows, i), append(vals, v)
			}
		}
		in["len"], in["row"], in["val"] = sdql.Int(len(rows)), sdql.IntArray(rows), sdql.RealArray(vals)
		expect(t, "vector COO", evalOK(t, "sum(<_, i> in (0:len)) { unique(row(i)) -> val(i) }", in), V2.value())
		dense := make([]float64, n*n)
		full := mat{}
		for i := 0; i < n; i++ {
			full[i] = vec{}
			for j := 0; j < n; j++ {
				dense[i*n+j] = A[i][j]
				full[i][j] = A[i][j]
			}
		}
		in["rows"], in["cols"], in["M"] = sdql.Int(n), sdql.Int(n), sdql.RealArray(dense)
		expect(t, "dense row-major", evalOK(t, "sum(<_, i> in (0:rows)) { unique(i) -> sum(<_, j> in (0:cols)) { unique(j) -> M(i*cols+j) } }", in), full.value())
		dv := make([]float64, n)
		for i := range dv {
			dv[i] = x[i]
		}
		in["len"], in["V"] = sdql.Int(n), sdql.RealArray(dv)
		expect(t, "dense vector", evalOK(t, "sum(<_, i> in (0:len)) { unique(i) -> V(i) }", in), x.value())
	}
}

// TestInterpreterScale evaluates the paper's kernels on a 10,000 × 10,000
// matrix with 100,000 entries: the interpreter must take seconds, not
// minutes (the limit here is generous for slow machines; it is not a
// benchmark).
func TestInterpreterScale(t *testing.T) {
	if testing.Short() {
		t.Skip("scale test skipped in -short mode")
	}
	r := rand.New(rand.NewPCG(3, 4))
	const n, nnz = 10000, 100000
	A := sdql.NewDict()
	for e := 0; e < nnz; e++ {
		i, j := r.IntN(n), r.IntN(n)
		row, ok := A.Get(i)
		if !ok {
			row = sdql.NewDict()
			A.Set(i, row)
		}
		row.(*sdql.Dict).Set(j, sdql.Real(r.Float64()))
	}
	x := sdql.NewDict()
	for i := 0; i < n; i++ {
		x.Set(i, sdql.Real(r.Float64()))
	}
	in := map[string]sdql.Value{"A": A, "x": x, "beta": sdql.Real(0.5)}
	for _, k := range []struct{ name, src string }{
		{"smvm", "sum(<i, r> in A) sum(<j, a> in r) a * x(j)"},
		{"colsum", "sum(<i, r> in A) sum(<j, a> in r) { j -> a }"},
		{"batax", "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }"},
		{"batax-grad", "beta * (sum(<i, r> in A) r * r)"},
	} {
		start := time.Now()
		evalOK(t, k.src, in)
		el := time.Since(start)
		t.Logf("%s: %v", k.name, el)
		if el > 60*time.Second {
			t.Errorf("%s took %v on 10,000 × 10,000 with 100,000 entries", k.name, el)
		}
	}
}
