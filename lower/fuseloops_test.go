package lower

import (
	"strings"
	"testing"
)

// TestFuseLoops checks which pairs of loops over 0..n FuseLoops merges:
// independent bodies (with lets between them, which move before the
// first), and not a second loop reading or adding into what the first
// changes, reading a tensor it writes, over another range, that can fail,
// or after a let reading what the first loop changes. Merged bodies
// compute a coordinate once and share what both compute.
func TestFuseLoops(t *testing.T) {
	type prog struct {
		p          *Program
		n, m       *Var
		a, b, c    *Var
		i, k       *Var
		arr        *Array
		tensor     *Tensor
		pos1, pos2 *Var
	}
	mk := func() prog {
		p := &Program{}
		g := prog{p: p, n: p.NewVar("n", Int), m: p.NewVar("m", Int), a: p.NewVar("a", Real), b: p.NewVar("b", Real),
			c: p.NewVar("c", Real), i: p.NewVar("i", Int), k: p.NewVar("k", Int),
			pos1: p.NewVar("q", Int), pos2: p.NewVar("q", Int)}
		g.arr = &Array{Name: "X", Kind: Real}
		p.Arrays = append(p.Arrays, g.arr)
		g.tensor = &Tensor{Name: "T", Leaf: Real, Levels: []*Level{{Storage: Dense}}}
		p.Tensors = append(p.Tensors, g.tensor)
		return g
	}
	ref := func(x *Var) Expr { return &Ref{V: x} }
	load := func(g prog, v *Var) Expr { return &Load{A: g.arr, Index: ref(v)} }
	loop := func(v *Var, hi *Var, body ...Stmt) *For {
		return &For{V: v, Lo: intConst(0), Hi: ref(hi), Body: &Block{List: body}}
	}
	// x := X[v]; acc += exp(x) * x, in loop v's body (no primitive's
	// shape: those loops are not fused)
	sq := func(g prog, v, acc *Var) []Stmt {
		x := g.p.NewVar("x", Real)
		return []Stmt{&Let{V: x, X: load(g, v)},
			&Assign{V: acc, Op: AddTo, X: &Binary{Op: Mul, X: &Call{Fn: "exp", Args: []Expr{ref(x)}}, Y: ref(x)}}}
	}
	for _, tc := range []struct {
		name  string
		body  func(g prog) []Stmt
		fused bool
	}{
		{"independent", func(g prog) []Stmt {
			return []Stmt{loop(g.i, g.n, sq(g, g.i, g.a)...), &Let{V: g.c, X: realConst(0)}, loop(g.k, g.n, sq(g, g.k, g.b)...)}
		}, true},
		{"the second reads what the first adds into", func(g prog) []Stmt {
			x := g.p.NewVar("x", Real)
			return []Stmt{loop(g.i, g.n, sq(g, g.i, g.a)...), loop(g.k, g.n, &Let{V: x, X: load(g, g.k)},
				&Assign{V: g.b, Op: AddTo, X: &Binary{Op: Mul, X: &Call{Fn: "exp", Args: []Expr{ref(x)}}, Y: ref(g.a)}})}
		}, false},
		{"both add into one variable", func(g prog) []Stmt {
			return []Stmt{loop(g.i, g.n, sq(g, g.i, g.a)...), loop(g.k, g.n, sq(g, g.k, g.a)...)}
		}, false},
		{"the second reads a tensor the first writes", func(g prog) []Stmt {
			return []Stmt{
				loop(g.i, g.n, &Insert{Pos: g.pos1, T: g.tensor, Parent: intConst(0), Key: ref(g.i)},
					&Store{T: g.tensor, Pos: ref(g.pos1), Op: AddTo, X: &Call{Fn: "exp", Args: []Expr{load(g, g.i)}}}),
				loop(g.k, g.n, &Assign{V: g.b, Op: AddTo, X: &Call{Fn: "exp", Args: []Expr{&ValAt{T: g.tensor, Pos: ref(g.k)}}}})}
		}, false},
		{"another range", func(g prog) []Stmt {
			return []Stmt{loop(g.i, g.n, sq(g, g.i, g.a)...), loop(g.k, g.m, sq(g, g.k, g.b)...)}
		}, false},
		{"the second can fail", func(g prog) []Stmt {
			return []Stmt{loop(g.i, g.n, sq(g, g.i, g.a)...), loop(g.k, g.n, append(sq(g, g.k, g.b), &Fail{Msg: "no"})...)}
		}, false},
		{"a let between reads what the first changes", func(g prog) []Stmt {
			return []Stmt{loop(g.i, g.n, sq(g, g.i, g.a)...), &Let{V: g.c, X: ref(g.a)}, loop(g.k, g.n, sq(g, g.k, g.b)...)}
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mk()
			out := g.p.NewVar("out", Real)
			g.p.Body = &Block{List: append(append([]Stmt{&Let{V: g.a, X: realConst(0)}, &Let{V: g.b, X: realConst(0)}}, tc.body(g)...),
				&Let{V: out, X: &Binary{Op: Add, X: ref(g.a), Y: ref(g.b)}})}
			g.p.ResultVar = out
			FuseLoops(g.p)
			printed := Print(g.p)
			if fused := strings.Count(printed, "for ") == 1; fused != tc.fused {
				t.Errorf("fused %v, want %v:\n%s", fused, tc.fused, printed)
			}
			if tc.fused && (strings.Count(printed, "X[i]") != 1 || strings.Count(printed, "exp(") != 1 || strings.Contains(printed, "X[k]")) {
				t.Errorf("the merged body loads X[i] once and computes exp(x) * x once:\n%s", printed)
			}
		})
	}
}
