package nablasd

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/internal/jit"
	"github.com/nablasd/nablasd/sdql"
)

// printPrograms are results of every kind of level a result tensor gets
// (dense, sparse, hashed, with inner dictionaries left empty, of order 1
// to 3, with real, integer and boolean values).
var printPrograms = []string{
	"sum(<i, v> in x) { i -> v * 2 }",
	"sum(<i, r> in A) { i -> sum(<j, a> in r) { j -> a } }",
	"sum(<i, r> in A) { i -> sum(<j, a> in r) if (a > 0.5) then { j -> a } }",
	"sum(<i, r> in A) sum(<j, a> in r) { j * 7 + i -> a }",
	"sum(<i, a> in x) sum(<j, b> in y) { i -> { j -> a * b } }",
	"sum(<i, r> in A) sum(<j, a> in r) { i -> { j -> { i + j -> a } } }",
	"sum(<i, r> in A) { i -> sum(<j, a> in r) 1 }",
	"sum(<i, v> in x) { i -> v > 0.5 }",
	"sum(<i, r> in A) { i -> sum(<j, a> in r) if (a > 2) then { j -> a } }",
	"sum(<i, v> in x) if (v > 9) then { i -> v }",
}

// printInputs are the programs' inputs: a 12×9 sparse matrix, dense
// vectors of 12 and 9.
func printInputs(t *testing.T) Inputs {
	var rows, cols []int
	var vals []float64
	for i := 0; i < 12; i++ {
		for j := 0; j < 9; j++ {
			if (i*5+j*3)%4 == 0 {
				rows, cols, vals = append(rows, i), append(cols, j), append(vals, float64(i*9+j)/40)
			}
		}
	}
	A, err := formats.FromCoords([]int{12, 9}, [][]int{rows, cols}, vals, formats.CSR)
	if err != nil {
		t.Fatal(err)
	}
	x, y := make([]float64, 12), make([]float64, 9)
	for i := range x {
		x[i] = float64(i) / 11
	}
	for j := range y {
		y[j] = 1 + float64(j)/3
	}
	return Inputs{"A": A, "x": DenseVector(x), "y": DenseVector(y)}
}

// TestWriteTo: a result streamed by WriteTo prints as String builds it
// (the oracle: the whole value, then its literal), for every kind of
// result level and each executor; and WriteSummary prints each
// dictionary's first and last keys as a summary built from the whole
// value says.
func TestWriteTo(t *testing.T) {
	execs := []string{"compiled", "interp"}
	if !testing.Short() && jit.Available() == nil {
		execs = append(execs, "jit")
	}
	in := printInputs(t)
	for _, ex := range execs {
		for _, prog := range printPrograms {
			q, err := Prepare(prog, in, &Options{Exec: ex})
			if err != nil {
				t.Fatalf("%s: %v", prog, err)
			}
			r, err := q.Value()
			if err != nil {
				t.Fatalf("%s: %v", prog, err)
			}
			if ex == "jit" && r.jr == nil {
				t.Fatalf("%s: the JIT did not run (%q)", prog, q.Warnings())
			}
			want := r.String()
			var b bytes.Buffer
			n, err := r.WriteTo(&b)
			if err != nil || b.String() != want || n != int64(len(want)) {
				t.Errorf("%s, %s: WriteTo wrote %d bytes %q (%v)\n want %q", ex, prog, n, b.String(), err, want)
			}
			for _, edge := range []int{1, 2, 3} {
				b.Reset()
				if err := r.WriteSummary(&b, edge); err != nil {
					t.Fatal(err)
				}
				if want := oracleSummary(t, r, edge); b.String() != want {
					t.Errorf("%s, %s: WriteSummary(%d):\n%s\n want\n%s", ex, prog, edge, b.String(), want)
				}
			}
		}
	}
}

// oracleSummary is WriteSummary's text built from the result's whole
// value: each dictionary's first and last edge keys.
func oracleSummary(t *testing.T, r *Result, edge int) string {
	v := r.Value()
	entries := 0
	var walk func(v sdql.Value, indent int) string
	walk = func(v sdql.Value, indent int) string {
		d, ok := v.(*sdql.Dict)
		if !ok {
			entries++
			return sdql.FormatValue(v)
		}
		keys := d.Keys()
		var parts []string
		inner := false
		for i, k := range keys {
			x, _ := d.Get(k)
			_, isDict := x.(*sdql.Dict)
			inner = inner || isDict
			s := walk(x, indent+len(strconv.Itoa(k))+5)
			if i >= edge && i < len(keys)-edge {
				continue
			}
			parts = append(parts, fmt.Sprintf("%d -> %s", k, s))
			if i == edge-1 && len(keys) > 2*edge {
				parts = append(parts, "...")
			}
		}
		sep := ", "
		if inner {
			sep = ",\n" + strings.Repeat(" ", indent+1)
		}
		return "{" + strings.Join(parts, sep) + "}"
	}
	text := walk(v, 0)
	if dictDepth(r.t) == 0 {
		return text + "\n"
	}
	// the shape: the result's where the program gives it, else one past
	// the largest keys
	var shape []int
	var keys func(v sdql.Value, m int)
	keys = func(v sdql.Value, m int) {
		d, ok := v.(*sdql.Dict)
		if !ok {
			return
		}
		if m == len(shape) {
			shape = append(shape, 0)
		}
		for _, k := range d.Keys() {
			shape[m] = max(shape[m], k+1)
			x, _ := d.Get(k)
			keys(x, m+1)
		}
	}
	keys(v, 0)
	for len(shape) < dictDepth(r.t) {
		shape = append(shape, 0)
	}
	for m, n := range r.Shape() {
		if n > 0 {
			shape[m] = n
		}
	}
	dims := make([]string, len(shape))
	for i, n := range shape {
		dims[i] = strconv.Itoa(n)
	}
	return fmt.Sprintf("%s\n// shape %s, %d entries\n", text, strings.Join(dims, "×"), entries)
}

// TestWriteSummaryText pins the summary's layout on an outer product.
func TestWriteSummaryText(t *testing.T) {
	x, y := make([]float64, 10), make([]float64, 8)
	for i := range x {
		x[i] = float64(i)
	}
	for j := range y {
		y[j] = float64(j)
	}
	q, err := Prepare("sum(<i, a> in x) sum(<j, b> in y) { i -> { j -> a * 10 + b } }", Inputs{"x": DenseVector(x), "y": DenseVector(y)}, &Options{Exec: "compiled"})
	if err != nil {
		t.Fatal(err)
	}
	r, err := q.Value()
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := r.WriteSummary(&b, 2); err != nil {
		t.Fatal(err)
	}
	const want = `{0 -> {0 -> 0, 1 -> 1, ..., 6 -> 6, 7 -> 7},
 1 -> {0 -> 10, 1 -> 11, ..., 6 -> 16, 7 -> 17},
 ...,
 8 -> {0 -> 80, 1 -> 81, ..., 6 -> 86, 7 -> 87},
 9 -> {0 -> 90, 1 -> 91, ..., 6 -> 96, 7 -> 97}}
// shape 10×8, 80 entries
`
	if b.String() != want {
		t.Errorf("summary:\n%s\nwant\n%s", b.String(), want)
	}
}
