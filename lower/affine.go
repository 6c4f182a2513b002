package lower

import (
	"encoding/binary"
	"slices"
)

// Affine index analysis (paper 002, "Automatic Differentiation for Tensor
// Algebras", section 4): an integer expression of the loop IR is read as
// an affine form Σ kᵢ·aᵢ + c over atoms aᵢ, the unknowns of the analysis:
// variables (loop indices, parameters, let-bound positions), array
// lengths, loads (a coordinate, a segment's bounds) and products of two
// unknowns (a dense matrix's row offset U_cols * i). The conditions a
// program tests and the ranges of its loops are then linear constraints
// over the atoms, which Fourier–Motzkin elimination (fm.go) decides.

// lin is an affine form Σ k·atom + c with integer coefficients: its terms
// are sorted by atom and have no zero coefficient.
type lin struct {
	c  int64
	ts []lterm
}

// lterm is one term k·atom of a form.
type lterm struct {
	a int // the atom's number (atomTable)
	k int64
}

// constLin is the form of the constant c.
func constLin(c int64) lin { return lin{c: c} }

// atomLin is the form of one atom.
func atomLin(a int) lin { return lin{ts: []lterm{{a, 1}}} }

// isConst reports whether f has no terms.
func (f lin) isConst() bool { return len(f.ts) == 0 }

// coef is f's coefficient of atom a.
func (f lin) coef(a int) int64 {
	for _, t := range f.ts {
		if t.a == a {
			return t.k
		}
	}
	return 0
}

// plus is f + k·g.
func (f lin) plus(g lin, k int64) lin {
	out := lin{c: f.c + k*g.c, ts: make([]lterm, 0, len(f.ts)+len(g.ts))}
	i, j := 0, 0
	for i < len(f.ts) || j < len(g.ts) {
		switch {
		case j == len(g.ts) || i < len(f.ts) && f.ts[i].a < g.ts[j].a:
			out.ts = append(out.ts, f.ts[i])
			i++
		case i == len(f.ts) || g.ts[j].a < f.ts[i].a:
			if k != 0 {
				out.ts = append(out.ts, lterm{g.ts[j].a, k * g.ts[j].k})
			}
			j++
		default:
			if s := f.ts[i].k + k*g.ts[j].k; s != 0 {
				out.ts = append(out.ts, lterm{f.ts[i].a, s})
			}
			i++
			j++
		}
	}
	return out
}

// scaled is k·f.
func (f lin) scaled(k int64) lin { return lin{}.plus(f, k) }

// without is f with atom a's term dropped.
func (f lin) without(a int) lin {
	out := lin{c: f.c}
	for _, t := range f.ts {
		if t.a != a {
			out.ts = append(out.ts, t)
		}
	}
	return out
}

// key identifies f's terms (not its constant): constraints with equal
// keys differ only in their constants.
func (f lin) key() string {
	b := make([]byte, 0, 4*binary.MaxVarintLen64*len(f.ts))
	for _, t := range f.ts {
		b = binary.AppendVarint(b, int64(t.a))
		b = binary.AppendVarint(b, t.k)
	}
	return string(b)
}

// atomTable numbers the atoms of one analysis by their canonical form.
type atomTable struct {
	ids   map[string]int
	exprs []Expr
}

func newAtomTable() *atomTable { return &atomTable{ids: map[string]int{}} }

// id is the number of the atom e (in canonical form), new ones appended.
func (t *atomTable) id(e Expr) (int, bool) {
	k := ExprString(e)
	if a, ok := t.ids[k]; ok {
		return a, false
	}
	a := len(t.exprs)
	t.ids[k] = a
	t.exprs = append(t.exprs, e)
	return a, true
}

// linOf reads an int expression (in canonical form) as an affine form:
// constants, sums, differences, negations and multiples by constants are
// arithmetic, anything else an atom. An int promoted to real (real(i)) and
// a real constant with an integral value read as the int they are, so
// that 2.0 * real(i) + real(k) < real(n) is an integer test. ok is false
// for an expression of another kind (a real, a bool).
func (an *affineAnalysis) linOf(e Expr) (lin, bool) {
	switch x := e.(type) {
	case *Const:
		switch x.K {
		case Int:
			return constLin(int64(x.I)), true
		case Real:
			if x.F == float64(int64(x.F)) && x.F > -1<<52 && x.F < 1<<52 {
				return constLin(int64(x.F)), true
			}
		}
		return lin{}, false
	case *Unary:
		switch x.Op {
		case Neg:
			f, ok := an.linOf(x.X)
			return f.scaled(-1), ok
		case ToReal:
			if x.X.Kind() == Int {
				return an.linOf(x.X)
			}
		}
		return lin{}, false
	case *Binary:
		if x.Kind() != Int && x.Kind() != Real {
			return lin{}, false
		}
		switch x.Op {
		case Add, Sub:
			f, ok1 := an.linOf(x.X)
			g, ok2 := an.linOf(x.Y)
			if !ok1 || !ok2 {
				return lin{}, false
			}
			if x.Op == Sub {
				return f.plus(g, -1), true
			}
			return f.plus(g, 1), true
		case Mul:
			f, ok1 := an.linOf(x.X)
			g, ok2 := an.linOf(x.Y)
			if !ok1 || !ok2 {
				return lin{}, false
			}
			switch {
			case f.isConst():
				return g.scaled(f.c), true
			case g.isConst():
				return f.scaled(g.c), true
			}
			if x.Kind() != Int {
				return lin{}, false
			}
			// n * (a·i + c) with n a lone atom is a·(n * i) + c·n: the
			// row offsets U_cols * (i + 1), U_cols * i and U_cols * (i -
			// 1) share the atom U_cols * i
			for _, pair := range [2][2]lin{{f, g}, {g, f}} {
				n, h := pair[0], pair[1]
				if len(n.ts) != 1 || n.ts[0].k != 1 || n.c != 0 {
					continue
				}
				out := constLin(0).plus(n, h.c)
				for _, t := range h.ts {
					p := Canon(&Binary{Op: Mul, X: an.atoms.exprs[n.ts[0].a], Y: an.atoms.exprs[t.a]})
					out = out.plus(atomLin(an.atom(p)), t.k)
				}
				return out, true
			}
			return atomLin(an.atom(x)), true
		case FloorDiv:
			return atomLin(an.atom(x)), true
		}
		return lin{}, false
	}
	if e.Kind() != Int {
		return lin{}, false
	}
	return atomLin(an.atom(e)), true
}

// cmpLin reads a comparison as the constraints f ≥ 0 it states (two for
// an equality), over the integers: x < y is y − x − 1 ≥ 0, x <= y is
// y − x ≥ 0, and their negations. ok is false for anything else.
func (an *affineAnalysis) cmpLin(e Expr, negated bool) ([]lin, bool) {
	switch x := e.(type) {
	case *Unary:
		if x.Op == Not {
			return an.cmpLin(x.X, !negated)
		}
	case *Ref:
		if d, ok := an.boolDef[x.V]; ok {
			return an.cmpLin(d, negated)
		}
	case *Binary:
		switch x.Op {
		case Lt, Le, Eq:
		default:
			return nil, false
		}
		if x.X.Kind() == Bool || x.Y.Kind() == Bool {
			return nil, false
		}
		a, ok1 := an.linOf(x.X)
		b, ok2 := an.linOf(x.Y)
		if !ok1 || !ok2 {
			return nil, false
		}
		d := b.plus(a, -1) // y - x
		switch {
		case x.Op == Lt && !negated:
			return []lin{d.plus(constLin(1), -1)}, true // y - x - 1 >= 0
		case x.Op == Lt && negated:
			return []lin{d.scaled(-1)}, true // x - y >= 0
		case x.Op == Le && !negated:
			return []lin{d}, true
		case x.Op == Le && negated:
			return []lin{d.scaled(-1).plus(constLin(1), -1)}, true // x - y - 1 >= 0
		case x.Op == Eq && !negated:
			return []lin{d, d.scaled(-1)}, true
		}
	}
	return nil, false
}

// linExpr prints an affine form back as an int expression (canonical).
func (an *affineAnalysis) linExpr(f lin) Expr {
	var out Expr = intConst(int(f.c))
	for _, t := range f.ts {
		out = &Binary{Op: Add, X: out, Y: &Binary{Op: Mul, X: intConst(int(t.k)), Y: an.atoms.exprs[t.a]}}
	}
	return Canon(out)
}

// floorDiv and ceilDiv divide integers rounding down and up.
func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func ceilDiv(a, b int64) int64 { return -floorDiv(-a, b) }

// gcd64 is the greatest common divisor of |a| and |b|.
func gcd64(a, b int64) int64 {
	if a < 0 {
		a = -a
	}
	if b < 0 {
		b = -b
	}
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// sortedAtoms appends to dst the atoms a set of forms mention, ascending,
// each once.
func sortedAtoms(dst []int, fs []lin) []int {
	for _, f := range fs {
		for _, t := range f.ts {
			dst = append(dst, t.a)
		}
	}
	slices.Sort(dst)
	return slices.Compact(dst)
}
