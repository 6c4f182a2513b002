package nablasd

import (
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/sdql"
)

// issue33Program is the program of issue 33 whose gradient with respect
// to A never finished compiling: the pretty-printer, exponential in the
// nesting of the derivative's lets, printed it into the native kernel's
// doc comment (and `nablasd plan` hung the same way).
const issue33Program = `sum(<i, r> in ((sum(<i, r> in (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in A) {i -> sum(<j, a> in r) sum(<k, b> in B(j)) {k -> a * b}})) sum(<j, a> in r) {i -> a * A(j)})) sum(<j, a> in r) {i -> {j -> a * exp(a)}})) {i -> sum(<j, a> in r) {j -> a * x(j)}}) / (1 + (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in A) {i -> sum(<j, a> in r) sum(<k, b> in B(j)) {k -> a * b}})) {i -> sum(<j, a> in r) {j -> a * y(j)}})) {i -> sum(<j, a> in r) {j -> log(1 + a * a)}})) sum(<j, a> in r) if i == j then a) * (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in (sum(<i, r> in A) {i -> sum(<j, a> in r) sum(<k, b> in B(j)) {k -> a * b}})) {i -> sum(<j, a> in r) {j -> a * y(j)}})) {i -> sum(<j, a> in r) {j -> log(1 + a * a)}})) sum(<j, a> in r) if i == j then a)))) sum(<j, a> in r) {j -> {i -> a}}`

// issue33Inputs are its inputs: A an empty 3×4 CSR matrix (or one with
// entries), B a 4×3 array bound CSR, x a 4-vector with 3 entries bound
// dense, y a 3-vector bound dense.
func issue33Inputs(t *testing.T, aIdx [][]int, aVal []float64) Inputs {
	t.Helper()
	tensor := func(shape []int, idx [][]int, val []float64, f formats.Format) *formats.Tensor {
		x, err := formats.FromCoords(shape, idx, val, f)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	return Inputs{
		"A": tensor([]int{3, 4}, aIdx, aVal, formats.CSR),
		"B": tensor([]int{4, 3}, [][]int{{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3}, {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2}},
			[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, formats.CSR),
		"x": tensor([]int{4}, [][]int{{0, 1, 3}}, []float64{0.5, -1.5, 2}, formats.Dense),
		"y": tensor([]int{3}, [][]int{{0, 1, 2}}, []float64{0.3, -0.7, 1.1}, formats.Dense),
	}
}

// TestIssue33Program: the program's gradient with respect to A compiles
// (with the native kernel's source, as Compile makes it), runs and agrees
// with the reference interpreter on the logical program, over A empty and
// over A with entries; its plan prints.
func TestIssue33Program(t *testing.T) {
	for _, a := range []struct {
		idx [][]int
		val []float64
	}{{[][]int{nil, nil}, nil}, {[][]int{{0, 0, 1, 2}, {0, 2, 1, 3}}, []float64{0.5, -0.25, 1, 0.75}}} {
		in := issue33Inputs(t, a.idx, a.val)
		q, err := Prepare(issue33Program, in, nil)
		if err != nil {
			t.Fatal(err)
		}
		k, err := q.Compile("A")
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := q.jitSource(k.Plan()); err != nil {
			t.Fatal(err)
		}
		r := k.NewResult()
		if err := k.Run(r, in); err != nil {
			t.Fatal(err)
		}
		oq, err := Prepare(issue33Program, in, &Options{Opt: "none", Exec: "interp"})
		if err != nil {
			t.Fatal(err)
		}
		want, err := oq.Grad("A")
		if err != nil {
			t.Fatal(err)
		}
		if !sdql.Equal(r.Value(), want[0].Value()) {
			t.Errorf("A with %d entries: the gradient %s, the interpreter's %s", len(a.val), r, want[0])
		}
		if s := k.Plan().String(); !strings.Contains(s, "-- stage: loops") {
			t.Errorf("the plan does not print its loops")
		}
	}
}

// TestKernelDocBounded: the native kernel's doc comment, made on every
// Compile, prints each program in at most jitDocLines lines and says where
// it cuts; GenerateGo, asked for the source, prints them whole.
func TestKernelDocBounded(t *testing.T) {
	in := issue33Inputs(t, [][]int{nil, nil}, nil)
	q, err := Prepare(issue33Program, in, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := q.Plan("A")
	if err != nil {
		t.Fatal(err)
	}
	whole := strings.Count(sdql.Print(p.Program), "\n") + 1
	if whole <= jitDocLines {
		t.Fatalf("the program prints in %d lines: too short to be cut", whole)
	}
	jit, _, err := q.jitSource(p)
	if err != nil {
		t.Fatal(err)
	}
	gen, err := q.GenerateGo(GoOptions{Wrt: "A"})
	if err != nil {
		t.Fatal(err)
	}
	// the programs' lines in the doc comment (indented by a tab)
	programLines := func(k *gogen.Kernel) (n int, cut bool) {
		src := string(k.Source)
		for _, l := range strings.Split(src[:strings.Index(src, "\nfunc ")], "\n") {
			if strings.HasPrefix(l, "//\t") {
				n++
				cut = cut || strings.Contains(l, "nablasd plan` prints the whole program")
			}
		}
		return n, cut
	}
	if n, cut := programLines(jit); !cut || n > 2*(jitDocLines+1) {
		t.Errorf("the JIT's doc prints %d lines of programs, cut %v; want at most %d of each", n, cut, jitDocLines)
	}
	if n, cut := programLines(gen); cut || n < whole {
		t.Errorf("GenerateGo's doc prints %d lines of programs, cut %v; want the optimized program's %d whole", n, cut, whole)
	}
}
