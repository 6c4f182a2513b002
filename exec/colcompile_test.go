package exec

import (
	"fmt"
	"slices"
	"testing"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// TestScatterKeys checks the leaf loop of an insert and store into a
// dense vector: it stops at the first key outside vals (the caller grows
// the level there) and otherwise adds or sets xs[off+k], or u, marking
// presence when there is one.
func TestScatterKeys(t *testing.T) {
	for _, tc := range []struct {
		name    string
		present bool
		xs      []float64
		u       float64
		set     bool
		sub     bool
		keys    []int
		off     int
		done    int
		vals    []float64
		marked  []bool
	}{
		{name: "add", xs: []float64{9, 1, 2, 3}, off: 1, keys: []int{2, 0, 2}, done: 3, vals: []float64{2, 0, 4, 0}},
		{name: "add stops at a key beyond", xs: []float64{1, 2, 3}, keys: []int{1, 4, 1}, done: 1, vals: []float64{0, 1, 0, 0}},
		{name: "add stops at a negative key", xs: []float64{1, 2}, keys: []int{3, -1}, done: 1, vals: []float64{0, 0, 0, 1}},
		{name: "set with presence", present: true, xs: []float64{5, 6}, set: true, keys: []int{3, 3}, done: 2,
			vals: []float64{0, 0, 0, 6}, marked: []bool{false, false, false, true}},
		{name: "uniform add", u: 0.5, keys: []int{0, 0, 1}, done: 3, vals: []float64{1, 0.5, 0, 0}},
		{name: "uniform stops", present: true, u: 2, keys: []int{1, 7}, done: 1,
			vals: []float64{0, 2, 0, 0}, marked: []bool{false, true, false, false}},
		{name: "subtract", sub: true, xs: []float64{9, 1, 2, 3}, off: 1, keys: []int{2, 0, 2}, done: 3, vals: []float64{-2, 0, -4, 0}},
		{name: "subtract stops at a key beyond", sub: true, xs: []float64{1, 2, 3}, keys: []int{1, 4, 1}, done: 1, vals: []float64{0, -1, 0, 0}},
		{name: "subtract with presence", sub: true, present: true, xs: []float64{5, 6}, keys: []int{3, 0}, done: 2,
			vals: []float64{-6, 0, 0, -5}, marked: []bool{true, false, false, true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := make([]float64, 4)
			var present []bool
			if tc.present {
				present = make([]bool, 4)
			}
			done := scatterKeys(vals, present, tc.keys, tc.xs, tc.off, tc.u, tc.set, tc.sub)
			if done != tc.done || !slices.Equal(vals, tc.vals) {
				t.Errorf("done %d vals %v, want %d %v", done, vals, tc.done, tc.vals)
			}
			if tc.present && !slices.Equal(present, tc.marked) {
				t.Errorf("present %v, want %v", present, tc.marked)
			}
		})
	}
}

// TestBroadcastOp checks a binary operation with an ancestor's variable,
// read through the lane map, on either side.
func TestBroadcastOp(t *testing.T) {
	src := []float64{10, 20}
	anc := []int32{0, 0, 1}
	b := []float64{1, 2, 4}
	for _, tc := range []struct {
		op   lower.BinaryOp
		flip bool
		want []float64
	}{
		{lower.Add, false, []float64{11, 12, 24}},
		{lower.Add, true, []float64{11, 12, 24}},
		{lower.Mul, false, []float64{10, 20, 80}},
		{lower.Sub, false, []float64{9, 8, 16}},
		{lower.Sub, true, []float64{-9, -8, -16}},
		{lower.Div, false, []float64{10, 5, 5}},
		{lower.Div, true, []float64{0.1, 0.2, 0.2}},
	} {
		out := make([]float64, 3)
		broadcastOp(out, b, src, anc, tc.op, tc.flip)
		if !slices.Equal(out, tc.want) {
			t.Errorf("op %d flip %v: %v, want %v", tc.op, tc.flip, out, tc.want)
		}
	}
}

// TestBroadcastGatherOp checks the fused lookup and operation against
// the lookups gathered into a column (0 outside the vector: a negative key,
// one past it) and combined by broadcastOp, for every operation on either
// side, over a batch shorter than its columns.
func TestBroadcastGatherOp(t *testing.T) {
	src := []float64{10, 20, 30}
	anc := []int32{0, 0, 1, 2, 2, 1, 0}
	arr := []float64{1.5, -2, 4, 0.25}
	idx := []int{3, 0, -1, 2, 4, 1, 9}
	const n = 6
	gathered := make([]float64, n)
	for k, j := range idx[:n] {
		if j >= 0 && j < len(arr) {
			gathered[k] = arr[j]
		}
	}
	for _, op := range []lower.BinaryOp{lower.Add, lower.Sub, lower.Mul, lower.Div} {
		for _, flip := range []bool{false, true} {
			want := make([]float64, n)
			broadcastOp(want, gathered, src, anc, op, flip)
			got := make([]float64, n)
			broadcastGatherOp(got, idx, arr, src, anc, op, flip)
			if !slices.Equal(got, want) {
				t.Errorf("op %d flip %v: %v, want %v", op, flip, got, want)
			}
		}
	}
}

// TestCmpIU checks the comparisons of a column with a value the same in
// every lane, on either side, against compare lane by lane.
func TestCmpIU(t *testing.T) {
	a := []int{-3, 0, 2, 5, 7, 99}
	for _, op := range []lower.BinaryOp{lower.Lt, lower.Le, lower.Eq, lower.Ne} {
		for _, uLeft := range []bool{false, true} {
			got := make([]bool, 5)
			cmpIU(got, a, 2, op, uLeft)
			for k := range got {
				want := compare(op, a[k], 2)
				if uLeft {
					want = compare(op, 2, a[k])
				}
				if got[k] != want {
					t.Errorf("op %d uLeft %v lane %d (%d): %v, want %v", op, uLeft, k, a[k], got[k], want)
				}
			}
		}
	}
}

// TestInRange checks the fused range test 0 <= a && a < n, for bounds
// below zero, zero and above the keys.
func TestInRange(t *testing.T) {
	a := []int{-1, 0, 3, 4, 9}
	for _, n := range []int{-5, 0, 1, 4, 10} {
		got := make([]bool, 4)
		inRange(got, a, n)
		for k := range got {
			if want := 0 <= a[k] && a[k] < n; got[k] != want {
				t.Errorf("n %d lane %d (%d): %v, want %v", n, k, a[k], got[k], want)
			}
		}
	}
}

// TestProductSum checks the fused product and sum against the product
// computed factor by factor and summed lane by lane: into one sum, and
// into the ancestors' column by runs, for one to four column factors
// with a uniform first factor or none, over a batch shorter than its
// columns.
func TestProductSum(t *testing.T) {
	cols := [][]float64{{1, 2, 3, 4, 99}, {0.5, -1, 2, 3, 99}, {3, 1, 0.25, -2, 99}, {2, 2, -1, 0.5, 99}}
	anc := []int32{0, 0, 2, 2, 7}
	cx := &vctx{n: 4}
	for n := 1; n <= 4; n++ {
		for _, uniform := range []bool{false, true} {
			if n == 1 && !uniform {
				continue // a product has two factors
			}
			var u fexpr
			want := make([]float64, cx.n)
			for k := range want {
				want[k] = 1
				if uniform {
					want[k] = 1.5
				}
			}
			if uniform {
				u = func(*frame) float64 { return 1.5 }
			}
			var fs []fcol
			for _, c := range cols[:n] {
				fs = append(fs, func(*frame, *vctx) []float64 { return c })
				for k := range want {
					want[k] *= c[k]
				}
			}
			sum := productSum(u, fs)
			if got, w := sum(nil, cx, nil, nil, 10), 10+want[0]+want[1]+want[2]+want[3]; got != w {
				t.Errorf("%d columns, uniform %v: sum %v, want %v", n, uniform, got, w)
			}
			col := []float64{1, 1, 1, 1}
			sum(nil, cx, col, anc, 0)
			if w := []float64{1 + want[0] + want[1], 1, 1 + want[2] + want[3], 1}; !slices.Equal(col, w) {
				t.Errorf("%d columns, uniform %v: runs %v, want %v", n, uniform, col, w)
			}
		}
	}
}

// TestUniformSelect checks a select whose condition is the same for every
// lane of a batch (it reads only a parameter), in an int key and in a
// real value: the closures run the branch the condition picks, and only
// that one (the other reads past A_val's end). The lowering hoists such
// a condition out of its loop as an if where it can, and no program of
// the tests kept one, so the test puts it into a lowered program by hand
// (and takes the loop from its primitive, whose body it no longer is).
func TestUniformSelect(t *testing.T) {
	const colSums = "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }"
	in := csrInput([]int{0, 2, 3, 5}, []int{0, 2, 1, 2, 3})
	for _, tc := range []struct {
		name string
		cond bool
		want string // the program the kernel then computes
	}{
		{"true", true, "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> A_val(p) }"},
		{"false", false, "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j + 1 -> 2.0 * A_val(p) }"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			prog, info, p := lowerFor(t, colSums, in)
			var aLen *lower.Var
			var aVal *lower.Array
			for _, pm := range p.Params {
				switch pm.Name {
				case "A_len":
					aLen = pm.Var
				case "A_val":
					aVal = pm.Array
				}
			}
			// cond: 0 < A_len (true here) or A_len < 0 (false)
			var cond lower.Expr = &lower.Binary{Op: lower.Lt, X: &lower.Const{K: lower.Int}, Y: &lower.Ref{V: aLen}}
			if !tc.cond {
				cond = &lower.Binary{Op: lower.Lt, X: &lower.Ref{V: aLen}, Y: &lower.Const{K: lower.Int}}
			}
			past := &lower.Load{A: aVal, Index: &lower.Const{K: lower.Int, I: 1 << 20}}
			keys, vals := 0, 0
			lower.WalkStmts(p.Body, func(s lower.Stmt) {
				switch s := s.(type) {
				case *lower.Insert:
					k := s.Key
					s.Key = &lower.Select{Cond: cond, Then: k, Else: &lower.Binary{Op: lower.Add, X: k, Y: &lower.Const{K: lower.Int, I: 1}}}
					keys++
				case *lower.Store:
					v := s.X
					if tc.cond {
						s.X = &lower.Select{Cond: cond, Then: v, Else: past}
					} else {
						s.X = &lower.Select{Cond: cond, Then: past, Else: &lower.Binary{Op: lower.Mul, X: &lower.Const{K: lower.Real, F: 2}, Y: v}}
					}
					vals++
				}
			})
			lower.WalkStmts(p.Body, func(s lower.Stmt) {
				if f, ok := s.(*lower.For); ok {
					f.Prim = nil // the body is no longer the primitive's
				}
			})
			if keys != 1 || vals != 1 {
				t.Fatalf("%d inserts and %d stores, want one of each:\n%s", keys, vals, lower.Print(p))
			}
			runLowered(t, prog, info, p, in, tc.want)
		})
	}
}

// TestNegatedStore checks a negation added into a row nest's
// destination, `q := insert(out, j); out.val[q] += -x`, as the lowering
// writes reverse mode's adjoint of a subtraction's right side, x a column
// (an entry's value) or uniform: the closures scatter x subtracted
// (insertStore) and give -A's column sums. The lowering hoists a uniform
// negation out of the loop (c1 := -c; ... += c1), so the uniform case
// writes one into the store by hand. The loop runs as lowered, and again
// taken from its primitive (so that the closures' own scatter runs, not
// the primitive's).
func TestNegatedStore(t *testing.T) {
	const colSums = "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> -A_val(p) }"
	in := csrInput([]int{0, 2, 3, 5}, []int{0, 2, 1, 2, 3})
	for _, tc := range []struct{ name, want string }{
		{"column", colSums},
		{"uniform", "sum(<_, i> in (0:A_len)) sum(<p, j> in A_idx(A_pos(i):A_pos(i + 1))) { j -> -2.5 }"},
	} {
		for _, prim := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s/primitive=%v", tc.name, prim), func(t *testing.T) {
				prog, info, p := lowerFor(t, colSums, in)
				negated := 0
				lower.WalkStmts(p.Body, func(s lower.Stmt) {
					switch s := s.(type) {
					case *lower.For:
						if !prim {
							s.Prim = nil
						}
					case *lower.Store:
						if u, ok := s.X.(*lower.Unary); ok && u.Op == lower.Neg && s.Op == lower.AddTo {
							negated++
							if tc.name == "uniform" {
								s.X = &lower.Unary{Op: lower.Neg, X: &lower.Const{K: lower.Real, F: 2.5}}
							}
						}
					}
				})
				if negated != 1 {
					t.Fatalf("%d stores adding a negation, want one:\n%s", negated, lower.Print(p))
				}
				runLowered(t, prog, info, p, in, tc.want)
			})
		}
	}
}

// lowerFor checks and lowers src over the CSR input in (csrFormats) for a
// test that changes the lowered program before runLowered compiles it.
func lowerFor(t *testing.T, src string, in map[string]sdql.Value) (sdql.Expr, *sdql.Info, *lower.Program) {
	t.Helper()
	prog := sdql.MustParse(src)
	types := map[string]sdql.Type{}
	for n, v := range in {
		types[n] = sdql.TypeOfValue(v)
	}
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	p, err := lower.Lower(prog, info, lower.Options{Formats: csrFormats})
	if err != nil {
		t.Fatal(err)
	}
	return prog, info, p
}

// runLowered compiles the lowered program p of prog, runs it over in and
// compares its result, to the bit, with the interpreter's of want.
func runLowered(t *testing.T, prog sdql.Expr, info *sdql.Info, p *lower.Program, in map[string]sdql.Value, want string) {
	t.Helper()
	k, err := CompileLowered(prog, info, p, Options{Formats: csrFormats})
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Run(in)
	if err != nil {
		t.Fatalf("%v\n%s", err, lower.Print(p))
	}
	w, err := sdql.Eval(sdql.MustParse(want), in)
	if err != nil {
		t.Fatal(err)
	}
	if d := sdql.DiffDicts(got.Value(), w, 0); d != "" {
		t.Fatalf("%s\ngot  %s\nwant %s\n%s", d, sdql.FormatValue(got.Value()), sdql.FormatValue(w), lower.Print(p))
	}
}
