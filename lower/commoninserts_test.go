package lower

import (
	"strings"
	"testing"
)

// TestCommonInserts checks which later inserts reuse an earlier one's
// position: the same key under the same parent into a dense level in the
// same block (also under a parent that is itself a reused position);
// and which stay: another key, a hashed level, an Init of the tensor
// between the two, a key reading an assigned variable, an insert in
// another block.
func TestCommonInserts(t *testing.T) {
	type prog struct {
		p    *Program
		t    *Tensor
		i, o *Var
		q    [4]*Var
	}
	mk := func(storage Storage) prog {
		p := &Program{}
		g := prog{p: p, i: p.NewVar("i", Int), o: p.NewVar("o", Real)}
		g.t = &Tensor{Name: "T", Leaf: Real, Levels: []*Level{{Storage: storage, Size: intConst(8)}, {Storage: storage, Size: intConst(8)}}}
		p.Tensors = []*Tensor{g.t}
		for k := range g.q {
			g.q[k] = p.NewVar("q", Int)
		}
		return g
	}
	ref := func(x *Var) Expr { return &Ref{V: x} }
	ins := func(g prog, q *Var, level int, parent, key Expr) Stmt {
		return &Insert{Pos: q, T: g.t, Level: level, Parent: parent, Key: key}
	}
	store := func(g prog, q *Var) Stmt { return &Store{T: g.t, Pos: ref(q), Op: AddTo, X: realConst(1)} }
	for _, tc := range []struct {
		name    string
		storage Storage
		body    func(g prog) []Stmt
		reused  int // inserts dropped
	}{
		{"the same key", Dense, func(g prog) []Stmt {
			return []Stmt{ins(g, g.q[0], 0, intConst(0), ref(g.i)), ins(g, g.q[1], 0, intConst(0), ref(g.i)),
				ins(g, g.q[2], 1, ref(g.q[0]), intConst(1)), store(g, g.q[2]),
				ins(g, g.q[3], 1, ref(g.q[1]), intConst(1)), store(g, g.q[3])}
		}, 2},
		{"the same key spelled otherwise", Dense, func(g prog) []Stmt {
			return []Stmt{ins(g, g.q[0], 0, intConst(0), &Binary{Op: Add, X: ref(g.i), Y: intConst(1)}),
				ins(g, g.q[1], 0, intConst(0), &Binary{Op: Add, X: intConst(1), Y: ref(g.i)}),
				ins(g, g.q[2], 1, ref(g.q[1]), intConst(0)), store(g, g.q[2])}
		}, 1},
		{"another key", Dense, func(g prog) []Stmt {
			return []Stmt{ins(g, g.q[0], 0, intConst(0), ref(g.i)), ins(g, g.q[1], 0, intConst(0), intConst(2)),
				ins(g, g.q[2], 1, ref(g.q[1]), intConst(0)), store(g, g.q[2])}
		}, 0},
		{"a hashed level", Hash, func(g prog) []Stmt {
			return []Stmt{ins(g, g.q[0], 0, intConst(0), ref(g.i)), ins(g, g.q[1], 0, intConst(0), ref(g.i)),
				ins(g, g.q[2], 1, ref(g.q[1]), intConst(0)), store(g, g.q[2])}
		}, 0},
		{"an init between", Dense, func(g prog) []Stmt {
			return []Stmt{ins(g, g.q[0], 0, intConst(0), ref(g.i)), &Init{T: g.t}, ins(g, g.q[1], 0, intConst(0), ref(g.i)),
				ins(g, g.q[2], 1, ref(g.q[1]), intConst(0)), store(g, g.q[2])}
		}, 0},
		{"a key assigned", Dense, func(g prog) []Stmt {
			k := g.p.NewVar("k", Int)
			return []Stmt{&Let{V: k, X: intConst(0)}, ins(g, g.q[0], 0, intConst(0), ref(k)),
				&Assign{V: k, Op: AddTo, X: intConst(1)}, ins(g, g.q[1], 0, intConst(0), ref(k)),
				ins(g, g.q[2], 1, ref(g.q[1]), intConst(0)), store(g, g.q[2])}
		}, 0},
		{"another block", Dense, func(g prog) []Stmt {
			return []Stmt{ins(g, g.q[0], 0, intConst(0), ref(g.i)),
				&If{Cond: boolConst(true), Then: &Block{List: []Stmt{ins(g, g.q[1], 0, intConst(0), ref(g.i)),
					ins(g, g.q[2], 1, ref(g.q[1]), intConst(0)), store(g, g.q[2])}}}}
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mk(tc.storage)
			body := append([]Stmt{&Init{T: g.t}}, tc.body(g)...)
			g.p.Body = &Block{List: []Stmt{&For{V: g.i, Lo: intConst(0), Hi: intConst(4), Body: &Block{List: body}}}}
			before := strings.Count(Print(g.p), "insert(")
			CommonInserts(g.p)
			out := Print(g.p)
			if got := before - strings.Count(out, "insert("); got != tc.reused {
				t.Errorf("%d inserts reused, want %d:\n%s", got, tc.reused, out)
			}
			if tc.reused > 0 && strings.Contains(out, "[q1]") {
				t.Errorf("a read of the dropped position is left:\n%s", out)
			}
		})
	}
}
