package formats

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// TestConvertRoundTrips converts every test tensor between every pair of
// formats of its order, and back.
func TestConvertRoundTrips(t *testing.T) {
	for order := 1; order <= 3; order++ {
		fs := ForOrder(order)
		for _, c := range cases(order) {
			for _, from := range fs {
				x := mustBuild(t, c, from)
				want := ToValue(x)
				for _, to := range fs {
					t.Run(fmt.Sprintf("order=%d/%s/%s->%s", order, c.name, from, to), func(t *testing.T) {
						y, err := Convert(x, to)
						if err != nil {
							t.Fatal(err)
						}
						if err := y.Validate(); err != nil {
							t.Fatal(err)
						}
						if y.Format != to {
							t.Fatalf("format %s, want %s", y.Format, to)
						}
						if !sdql.Equal(ToValue(y), want) {
							t.Fatalf("value changed:\n  %s\n  %s", sdql.FormatValue(want), sdql.FormatValue(ToValue(y)))
						}
						// Sparse to sparse keeps the stored positions exactly.
						if !isDense(from) && !isDense(to) {
							if err := samePositions(ToValue(y), want); err != nil {
								t.Fatal(err)
							}
						}
						back, err := Convert(y, from)
						if err != nil {
							t.Fatal(err)
						}
						if !sdql.Equal(ToValue(back), want) {
							t.Fatalf("round trip changed the value")
						}
					})
				}
			}
		}
	}
}

func isDense(f Format) bool { return f == Dense || f == DenseCol }

// TestFromCoordsAgreesWithAt checks FromCoords, At and Iterate against a
// map of the entries, for every format.
func TestFromCoordsAgreesWithAt(t *testing.T) {
	for order := 1; order <= 3; order++ {
		for _, c := range cases(order) {
			want := map[string]float64{}
			for e, v := range c.val {
				want[key(c.idx, e)] += v
			}
			for _, f := range ForOrder(order) {
				x := mustBuild(t, c, f)
				n := 0
				x.Iterate(func(xs []int, v float64) {
					n++
					if v != 0 || !isDense(f) {
						if _, ok := want[fmt.Sprint(xs)]; !ok {
							t.Errorf("%s/%s: stored %v not an entry", f, c.name, xs)
						}
					}
				})
				if n != x.NNZ() {
					t.Errorf("%s/%s: Iterate visits %d positions, NNZ is %d", f, c.name, n, x.NNZ())
				}
				for k, v := range want {
					coords := parseKey(k)
					if got := x.At(coords...); math.Abs(got-v) > 1e-12 {
						t.Errorf("%s/%s: At%v = %v, want %v", f, c.name, coords, got, v)
					}
				}
			}
		}
	}
}

func key(idx [][]int, e int) string {
	xs := make([]int, len(idx))
	for m := range idx {
		xs[m] = idx[m][e]
	}
	return fmt.Sprint(xs)
}

func parseKey(k string) []int {
	var xs []int
	for _, f := range strings.Fields(strings.Trim(k, "[]")) {
		var x int
		fmt.Sscan(f, &x)
		xs = append(xs, x)
	}
	return xs
}

func TestNNZAndDuplicates(t *testing.T) {
	c := entries("dup", []int{3, 3}, []float64{1, 2, 4}, []int{2, 0, 2}, []int{1, 0, 1})
	for _, tc := range []struct {
		f   Format
		nnz int
	}{{COO, 3}, {CSR, 2}, {CSC, 2}, {DCSR, 2}, {CSF, 2}, {Dense, 9}, {DenseCol, 9}} {
		x := mustBuild(t, c, tc.f)
		if x.NNZ() != tc.nnz {
			t.Errorf("%s: NNZ = %d, want %d", tc.f, x.NNZ(), tc.nnz)
		}
		if got := x.At(2, 1); got != 5 {
			t.Errorf("%s: At(2, 1) = %v, want 5", tc.f, got)
		}
	}
}

func TestPrune(t *testing.T) {
	c := entries("z", []int{2, 3}, []float64{0, 5, 0}, []int{0, 1, 1}, []int{1, 1, 2})
	for _, f := range ForOrder(2) {
		x := mustBuild(t, c, f)
		p, err := Prune(x)
		if err != nil {
			t.Fatal(err)
		}
		want := map[bool]int{false: 1, true: 6}[isDense(f)]
		if p.NNZ() != want || !sdql.Equal(ToValue(p), ToValue(x)) {
			t.Errorf("%s: Prune gives nnz %d (want %d), %s", f, p.NNZ(), want, sdql.FormatValue(ToValue(p)))
		}
	}
}

func TestByName(t *testing.T) {
	for _, f := range All() {
		g, err := ByName(f.Name())
		if err != nil || g != f {
			t.Errorf("ByName(%q) = %v, %v", f.Name(), g, err)
		}
		for order := 1; order <= 3; order++ {
			if lay, err := f.Layout(order); err == nil {
				if err := lay.check(); err != nil {
					t.Errorf("%s/%d: %v", f, order, err)
				}
			}
		}
	}
	if _, err := ByName("CSR"); err == nil || !strings.Contains(err.Error(), `unknown format "CSR"`) {
		t.Errorf("ByName(CSR) = %v", err)
	}
	want := map[int]string{1: "dense dense_col coo csf", 2: "dense dense_col coo csr csc dcsr csf", 3: "dense dense_col coo csf"}
	for order, names := range want {
		var got []string
		for _, f := range ForOrder(order) {
			got = append(got, f.Name())
		}
		if strings.Join(got, " ") != names {
			t.Errorf("ForOrder(%d) = %v, want %s", order, got, names)
		}
	}
}

// TestCustom builds a format from levels: a COO with unique tuples, whose
// definition marks the column unique and which sums duplicates.
func TestCustom(t *testing.T) {
	f, err := Custom("coo_unique", []Level{CompressedLevel{}, SingletonLevel{Unique: true}}, []int{0, 1})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := Definition(f, "A", 2)
	if want := "sum(<_, p> in (0:A_len)) { A_row(p) -> { unique(A_col(p)) -> A_val(p) } }"; def != want {
		t.Errorf("definition\n  %s\nwant\n  %s", def, want)
	}
	for _, c := range cases(2) {
		x := mustBuild(t, c, f)
		got, _, err := evalDefinition(x, "A")
		if err != nil {
			t.Fatal(err)
		}
		if err := sameValue(got, ToValue(x)); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	for _, tc := range []struct {
		levels []Level
		order  []int
		want   string
	}{
		{[]Level{SingletonLevel{}}, []int{0}, "cannot be the outermost"},
		{[]Level{DenseLevel{}, SingletonLevel{}}, []int{0, 1}, "needs a non-unique parent"},
		{[]Level{CompressedLevel{}, DenseLevel{}}, []int{0, 1}, "only singleton levels may follow"},
		{[]Level{DenseLevel{}, DenseLevel{}}, []int{0, 0}, "not a permutation"},
		{[]Level{DenseLevel{}}, []int{0, 1}, "mode order of 2 modes"},
		{nil, nil, "at least one level"},
		{[]Level{nil}, []int{0}, "level 0 is nil"},
	} {
		if _, err := Custom("x", tc.levels, tc.order); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Custom(%v, %v) = %v, want %q", tc.levels, tc.order, err, tc.want)
		}
	}
}

func TestMisusePanics(t *testing.T) {
	x := mustBuild(t, entries("m", []int{2, 2}, []float64{1}, []int{0}, []int{1}), CSR)
	bad := &Tensor{Format: CSR, Shape: []int{2, 2}, Pos: make([][]int, 2), Idx: make([][]int, 2)}
	for _, tc := range []struct {
		f    func()
		want string
	}{
		{func() { x.At(0) }, "formats: At: 1 coordinates for a tensor of order 2"},
		{func() { x.At(0, 2) }, "formats: At: coordinate 2 of mode 1 out of range 0..1"},
		{func() { bad.Iterate(func([]int, float64) {}) }, "formats: Iterate of an invalid tensor: csr: level 1"},
		{func() { ToValue(bad) }, "formats: ToValue of an invalid tensor: csr: level 1"},
	} {
		func() {
			defer func() {
				r := recover()
				if s, _ := r.(string); !strings.HasPrefix(s, tc.want) {
					t.Errorf("panic %v, want %s...", r, tc.want)
				}
			}()
			tc.f()
		}()
	}
}
