package lower

import (
	"strings"
	"testing"
)

// TestPropagateCopies checks which copies v := w go: w never assigned, or
// assigned only between its let and the copy in the copy's block; and
// which stay: w assigned after the copy, or declared outside the copy's
// block while assigned.
func TestPropagateCopies(t *testing.T) {
	type prog struct {
		p       *Program
		w, v, o *Var
	}
	mk := func() prog {
		p := &Program{}
		return prog{p, p.NewVar("w", Real), p.NewVar("v", Real), p.NewVar("o", Real)}
	}
	ref := func(x *Var) Expr { return &Ref{V: x} }
	one := realConst(1)
	for _, tc := range []struct {
		name string
		body func(g prog) []Stmt
		kept bool
	}{
		{"never assigned", func(g prog) []Stmt {
			return []Stmt{&Let{V: g.w, X: one}, &Let{V: g.v, X: ref(g.w)}, &Assign{V: g.o, Op: AddTo, X: ref(g.v)}}
		}, false},
		{"assigned before the copy", func(g prog) []Stmt {
			return []Stmt{&Let{V: g.w, X: realConst(0)},
				&If{Cond: boolConst(true), Then: &Block{List: []Stmt{&Assign{V: g.w, Op: Set, X: one}}}},
				&Let{V: g.v, X: ref(g.w)}, &Assign{V: g.o, Op: AddTo, X: ref(g.v)}}
		}, false},
		{"assigned after the copy", func(g prog) []Stmt {
			return []Stmt{&Let{V: g.w, X: realConst(0)}, &Let{V: g.v, X: ref(g.w)},
				&Assign{V: g.w, Op: AddTo, X: one}, &Assign{V: g.o, Op: AddTo, X: ref(g.v)}}
		}, true},
		{"assigned before and after", func(g prog) []Stmt {
			return []Stmt{&Let{V: g.w, X: realConst(0)}, &Assign{V: g.w, Op: AddTo, X: one},
				&Let{V: g.v, X: ref(g.w)}, &Assign{V: g.w, Op: AddTo, X: one}, &Assign{V: g.o, Op: AddTo, X: ref(g.v)}}
		}, true},
		{"declared outside the copy's block", func(g prog) []Stmt {
			i := g.p.NewVar("i", Int)
			return []Stmt{&Let{V: g.w, X: realConst(0)}, &For{V: i, Lo: intConst(0), Hi: intConst(3), Body: &Block{List: []Stmt{
				&Let{V: g.v, X: ref(g.w)}, &Assign{V: g.w, Op: AddTo, X: one}, &Assign{V: g.o, Op: AddTo, X: ref(g.v)}}}}}
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := mk()
			g.p.Body = &Block{List: append([]Stmt{&Let{V: g.o, X: realConst(0)}}, tc.body(g)...)}
			g.p.ResultVar = g.o
			PropagateCopies(g.p)
			out := Print(g.p)
			if kept := strings.Contains(out, "v := w"); kept != tc.kept {
				t.Errorf("copy kept %v, want %v:\n%s", kept, tc.kept, out)
			}
			if !tc.kept && !strings.Contains(out, "o += w") {
				t.Errorf("the copy's read was not replaced:\n%s", out)
			}
		})
	}
}

// TestDropOverwritten checks which constant lets the assignment that
// follows replaces (v := 0; v = e is v := e): the one assignment of v, a
// Set, in the let's block, nothing reading v before it; and which stay:
// v read before, v assigned twice, an add, an assignment inside a branch.
func TestDropOverwritten(t *testing.T) {
	p := &Program{}
	v, o := p.NewVar("v", Real), p.NewVar("o", Real)
	ref := func(x *Var) Expr { return &Ref{V: x} }
	set := &Assign{V: v, Op: Set, X: realConst(2)}
	use := &Assign{V: o, Op: AddTo, X: ref(v)}
	for _, tc := range []struct {
		name string
		body []Stmt
		kept bool
	}{
		{"overwritten", []Stmt{&Let{V: v, X: realConst(0)}, &Assign{V: o, Op: AddTo, X: realConst(1)}, set, use}, false},
		{"read before", []Stmt{&Let{V: v, X: realConst(0)}, use, set, use}, true},
		{"assigned twice", []Stmt{&Let{V: v, X: realConst(0)}, set, set, use}, true},
		{"added to", []Stmt{&Let{V: v, X: realConst(0)}, &Assign{V: v, Op: AddTo, X: realConst(2)}, use}, true},
		{"in a branch", []Stmt{&Let{V: v, X: realConst(0)}, &If{Cond: ref(p.NewVar("c", Bool)), Then: set}, use}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p.Body = &Block{List: append([]Stmt{&Let{V: o, X: realConst(0)}}, tc.body...)}
			p.ResultVar = o
			PropagateCopies(p)
			out := Print(p)
			if kept := strings.Contains(out, "v := 0"); kept != tc.kept {
				t.Errorf("default kept %v, want %v:\n%s", kept, tc.kept, out)
			}
			if !tc.kept && !strings.Contains(out, "v := 2") {
				t.Errorf("the assignment did not become the let:\n%s", out)
			}
		})
	}
}
