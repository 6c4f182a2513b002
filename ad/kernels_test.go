package ad

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// coo is a sparse matrix as coordinates (the tests' own tiny container).
type coo struct {
	rows, cols int
	i, j       []int
	v          []float64
}

func (m *coo) dict() *sdql.Dict {
	d := sdql.NewDict()
	for p := range m.i {
		row, ok := d.Get(m.i[p])
		if !ok {
			row = sdql.NewDict()
			d.Set(m.i[p], row)
		}
		row.(*sdql.Dict).Set(m.j[p], sdql.Real(m.v[p]))
	}
	return d
}

// randomCOO returns an n×m matrix with about density·n·m distinct
// entries, values in [0.5, 1.5).
func randomCOO(r *rand.Rand, n, m int, density float64) *coo {
	c := &coo{rows: n, cols: m}
	for i := range n {
		for j := range m {
			if r.Float64() < density {
				c.i, c.j, c.v = append(c.i, i), append(c.j, j), append(c.v, 0.5+r.Float64())
			}
		}
	}
	return c
}

// vec is a sparse vector: its stored positions and values.
type vec map[int]float64

func (v vec) dict() *sdql.Dict {
	d := sdql.NewDict()
	for k, x := range v {
		d.Set(k, sdql.Real(x))
	}
	return d
}

func randomVec(r *rand.Rand, n int, density float64) vec {
	v := vec{}
	for i := range n {
		if r.Float64() < density {
			v[i] = 0.5 + r.Float64()
		}
	}
	return v
}

// readPatternMTX reads a gzip Matrix Market "pattern symmetric" file with
// values 1, mirroring the off-diagonal entries.
func readPatternMTX(path string) (*coo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	sc := bufio.NewScanner(z)
	c := &coo{rows: -1}
	header := true
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if header && !strings.Contains(line, "pattern symmetric") {
			return nil, fmt.Errorf("%s: want a pattern symmetric matrix", path)
		}
		header = false
		if line == "" || line[0] == '%' {
			continue
		}
		fs := strings.Fields(line)
		if c.rows < 0 {
			c.rows, _ = strconv.Atoi(fs[0])
			c.cols, _ = strconv.Atoi(fs[1])
			continue
		}
		i, _ := strconv.Atoi(fs[0])
		j, _ := strconv.Atoi(fs[1])
		c.i, c.j, c.v = append(c.i, i-1), append(c.j, j-1), append(c.v, 1)
		if i != j {
			c.i, c.j, c.v = append(c.i, j-1), append(c.j, i-1), append(c.v, 1)
		}
	}
	return c, sc.Err()
}

// kernelData are the inputs of the benchmark kernels.
type kernelData struct {
	A, B  *coo
	X, V1 vec // dense
	V2    vec // sparse
	beta  float64
	s     float64
}

func (d *kernelData) inputs() map[string]sdql.Value {
	return map[string]sdql.Value{
		"A": d.A.dict(), "B": d.B.dict(), "X": d.X.dict(), "x": d.X.dict(),
		"V1": d.V1.dict(), "V2": d.V2.dict(), "V": d.V1.dict(),
		"beta": sdql.Real(d.beta), "s": sdql.Real(d.s),
	}
}

// colSums returns Σ_i A[i][j] for every column j.
func colSums(a *coo) map[int]float64 {
	out := map[int]float64{}
	for p := range a.i {
		out[a.j[p]] += a.v[p]
	}
	return out
}

type kernel struct {
	name, prog, wrt string
	want            func(d *kernelData) map[string]float64 // closed form, flattened
}

// The six kernels of section 7.1 and the closed forms of their gradients,
// computed with loops.
var kernels = []kernel{
	{"batax", `sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }`, "x",
		func(d *kernelData) map[string]float64 { // β AᵀA on x's positions
			rows := map[int][]int{}
			for p := range d.A.i {
				rows[d.A.i[p]] = append(rows[d.A.i[p]], p)
			}
			out := map[string]float64{}
			for _, ps := range rows {
				for _, p := range ps {
					for _, q := range ps {
						if _, ok := d.X[d.A.j[q]]; ok {
							out[keyOf([]int{d.A.j[p], d.A.j[q]})] += d.beta * d.A.v[p] * d.A.v[q]
						}
					}
				}
			}
			return out
		}},
	{"smmm", `sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b`, "B",
		func(d *kernelData) map[string]float64 { // column sums of A over B's positions
			cs := colSums(d.A)
			out := map[string]float64{}
			for p := range d.B.i {
				out[keyOf([]int{d.B.i[p], d.B.j[p]})] = cs[d.B.i[p]]
			}
			return out
		}},
	{"smvm", `sum(<i, r> in A) sum(<j, a> in r) a * X(j)`, "X",
		func(d *kernelData) map[string]float64 { // column sums of A on X's positions
			cs := colSums(d.A)
			out := map[string]float64{}
			for j := range d.X {
				out[keyOf([]int{j})] = cs[j]
			}
			return out
		}},
	{"vva", `V1 + V2`, "V1",
		func(d *kernelData) map[string]float64 { // the identity on V1's positions
			out := map[string]float64{}
			for i := range d.V1 {
				out[keyOf([]int{i, i})] = 1
			}
			return out
		}},
	{"vvd", `sum(<i, a> in V1) a * V2(i)`, "V1",
		func(d *kernelData) map[string]float64 { // V2 on V1's positions
			out := map[string]float64{}
			for i := range d.V1 {
				out[keyOf([]int{i})] = d.V2[i]
			}
			return out
		}},
	{"vsm", `sum(<i, v> in V) {i -> v * s * s}`, "s",
		func(d *kernelData) map[string]float64 { // 2 s V
			out := map[string]float64{}
			for i, v := range d.V1 {
				out[keyOf([]int{i})] = 2 * d.s * v
			}
			return out
		}},
}

func checkKernel(t *testing.T, k kernel, d *kernelData) {
	t.Helper()
	in := d.inputs()
	types := map[string]sdql.Type{}
	for n, v := range in {
		types[n] = sdql.TypeOfValue(v)
	}
	prog := sdql.MustParse(k.prog)
	g, err := Grad(prog, k.wrt, types)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	v, err := sdql.Eval(g, in)
	if err != nil {
		t.Fatalf("%v\n%s", err, sdql.Print(g))
	}
	t.Logf("%s: gradient evaluated in %v", k.name, time.Since(start))
	if err := compareFlat("gradient vs closed form", flatten(v), k.want(d), 1e-9, 0); err != nil {
		t.Errorf("%v\n%s", err, sdql.Print(g))
	}
}

func TestKernelsRandom(t *testing.T) {
	for seed := range uint64(3) {
		r := rand.New(rand.NewPCG(seed, 42))
		n := 40
		d := &kernelData{
			A: randomCOO(r, n, n, 0.1), B: randomCOO(r, n, 30, 0.1),
			X: vec{}, V1: vec{}, V2: randomVec(r, n, 0.3),
			beta: 0.5 + r.Float64(), s: 0.5 + r.Float64(),
		}
		for i := range n {
			d.X[i] = 0.5 + r.Float64()
		}
		d.V1 = randomVec(r, n, 0.5)
		if seed == 2 {
			d.X = randomVec(r, n, 0.4) // a sparse wrt vector
		}
		for _, k := range kernels {
			t.Run(fmt.Sprintf("%s/seed=%d", k.name, seed), func(t *testing.T) { checkKernel(t, k, d) })
		}
	}
}

// bcspwr10 is the matrix in ../shared (read in place).
var bcspwr10 = filepath.Join("..", "..", "shared", "datasets", "suitesparse", "bcspwr10.mtx.gz")

func TestKernelsBcspwr10(t *testing.T) {
	a, err := readPatternMTX(bcspwr10)
	if os.IsNotExist(err) {
		t.Skipf("%s is absent", bcspwr10)
	}
	if err != nil {
		t.Fatal(err)
	}
	if a.rows != 5300 || len(a.i) != 21842 {
		t.Fatalf("bcspwr10: %d rows, %d entries after mirroring; want 5300 and 21842", a.rows, len(a.i))
	}
	d := &kernelData{A: a, B: a, X: vec{}, V1: vec{}, V2: vec{}, beta: 0.75, s: 1.25}
	for i := range a.rows {
		d.X[i] = 1 + float64(i%7)/10
		d.V1[i] = 1 + float64(i%5)/10
	}
	for p := range a.i {
		if a.i[p] == a.j[p] {
			d.V2[a.i[p]] = float64(1 + a.i[p]%3) // the diagonal, scaled
		}
	}
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) { checkKernel(t, k, d) })
	}
}

// TestBATAxPaperForm checks that the sparsified gradient of BATAx
// evaluates like the paper's fully optimized beta * (sum(<i, r> in A) r * r).
func TestBATAxPaperForm(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 9))
	a := randomCOO(r, 30, 20, 0.15)
	x := vec{}
	for j := range 20 {
		x[j] = r.Float64()
	}
	in := map[string]sdql.Value{"A": a.dict(), "x": x.dict(), "beta": sdql.Real(0.3)}
	types := map[string]sdql.Type{"A": sdql.Tensor(2), "x": sdql.Tensor(1), "beta": sdql.RealType}
	g, err := Grad(sdql.MustParse(kernels[0].prog), "x", types)
	if err != nil {
		t.Fatal(err)
	}
	got, err := sdql.Eval(g, in)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sdql.Eval(sdql.MustParse("beta * (sum(<i, r> in A) r * r)"), in)
	if err != nil {
		t.Fatal(err)
	}
	if !sdql.Equal(got, want) {
		t.Errorf("gradient %s\nwant %s", sdql.FormatValue(got), sdql.FormatValue(want))
	}
}
