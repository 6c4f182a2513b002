package ad

import (
	"github.com/nablasd/nablasd/sdql"
)

// maxSparsifyRounds bounds the rounds of Sparsify (each round is one
// simplification and one let clean-up over the whole program).
const maxSparsifyRounds = 50

// Sparsify is the sparsity propagation pass of section 5.2: the first group
// of rewrite rules of Fig. 9 applied to a fixed point, with their obvious
// closures, followed by a let clean-up. inputs gives the types of the free
// variables (missing ones are inferred). The rules, where 0 is zero[D] (or a
// real literal 0):
//
//	0 * e, e * 0, 0 / e, -0, 0(e)            ⇝ 0
//	e * 1, 1 * e, e / 1                      ⇝ e       (when e has the type of the product)
//	e + 0, 0 + e, e - 0                      ⇝ e       (when e has the type of the sum)
//	0 - e                                    ⇝ -e
//	let x = 0 in e                           ⇝ e[x ↦ 0]  (also one name of a tupled let)
//	sum(<k, v> in 0) e, sum(<k, v> in e) 0   ⇝ 0
//	if c then 0 [else 0]                     ⇝ 0;  if c then e else 0 ⇝ if c then e
//	{k -> 0}                                 ⇝ 0;  {k1 -> 0, k2 -> e} ⇝ {k2 -> e}; {} ⇝ 0
//
// Dropping {k -> 0} is a decision: in the logical semantics {k -> 0} keeps
// the key k, but a tangent is only ever compared as a function (a missing
// key equals zero), so a structural zero need not be stored.
//
// Where keys matter the rules are exact: a sum iterates its source's keys,
// zeros included, so sum(<k, v> in M * 0) { k -> 1.0 } is not zero. In a
// sum's source, and in the value of every let whose variable flows into
// one (keyCarrying), only zeros that are empty dictionaries or scalars
// propagate: {k -> 0} keeps its entry, and a product is zero only when it
// is a scalar or iterates an empty dictionary (zero[D] * e, s * zero[D]).
//
// The clean-up removes what the propagation leaves behind: dead lets (such
// as the primal half of a tupled let whose tangent no longer needs it, and
// the ∅ tangents of keys), lets of atoms (substituted), and lets whose
// variable is used once outside any loop body relative to the let
// (inlined; a value is never moved into a sum body, where it would be
// recomputed). Then every onehot is expanded by ExpandOneHot (Fig. 7) and
// the rules run once more (onehot[real] x is 1).
func Sparsify(e sdql.Expr, inputs map[string]sdql.Type) (sdql.Expr, error) {
	e, err := simplify(e, inputs)
	if err != nil {
		return nil, err
	}
	return simplify(ExpandOneHot(e), inputs)
}

// simplify applies the rules and the clean-up to a fixed point.
func simplify(e sdql.Expr, inputs map[string]sdql.Type) (sdql.Expr, error) {
	return simplifyWith(e, inputs, cleanLets)
}

// simplifyWith applies the rules and a given let clean-up to a fixed point.
func simplifyWith(e sdql.Expr, inputs map[string]sdql.Type, clean func(sdql.Expr) sdql.Expr) (sdql.Expr, error) {
	prev := sdql.PrintFlat(e)
	for range maxSparsifyRounds {
		info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: inputs})
		if err != nil {
			return nil, err
		}
		s := &simplifier{types: info.Types, keyed: keyCarrying(e)}
		e = clean(s.expr(e, nil))
		cur := sdql.PrintFlat(e)
		if cur == prev {
			break
		}
		prev = cur
	}
	return e, nil
}

// zenv maps let-bound variables to the zeros they are bound to; an entry
// with a nil zero is a binder that shadows an outer one.
type zenv struct {
	name string
	zero *sdql.ZeroExpr
	next *zenv
}

func (z *zenv) find(name string) (*sdql.ZeroExpr, bool) {
	for ; z != nil; z = z.next {
		if z.name == name {
			return z.zero, z.zero != nil
		}
	}
	return nil, false
}

func (z *zenv) shadow(b sdql.Binder) *zenv {
	if b.Name == "_" {
		return z
	}
	if _, ok := z.find(b.Name); !ok {
		return z
	}
	return &zenv{name: b.Name, next: z}
}

// simplifier applies the zero rules bottom-up over a checked program.
type simplifier struct {
	types map[sdql.Expr]sdql.Type
	// keyed names the variables whose keys matter (keyCarrying); exact is
	// set while simplifying an expression whose keys matter.
	keyed map[string]bool
	exact bool
}

// keyCarrying returns the variables whose values flow into a sum's source
// (or a onehot's argument), where their keys matter, directly or through
// the value of another such variable. Names are compared, not bindings: a
// name bound twice counts for both, which only makes the rules more exact.
func keyCarrying(e sdql.Expr) map[string]bool {
	keyed := map[string]bool{}
	sdql.Inspect(e, func(x sdql.Expr) bool {
		switch x := x.(type) {
		case *sdql.SumExpr:
			for _, v := range sdql.FreeVars(x.Src) {
				keyed[v] = true
			}
		case *sdql.OneHotExpr:
			for _, v := range sdql.FreeVars(x.X) {
				keyed[v] = true
			}
		}
		return true
	})
	for changed := true; changed; {
		changed = false
		sdql.Inspect(e, func(x sdql.Expr) bool {
			if l, ok := x.(*sdql.LetExpr); ok {
				for i, n := range l.Names {
					if !keyed[n.Name] {
						continue
					}
					for _, v := range sdql.FreeVars(l.Values[i]) {
						if !keyed[v] {
							keyed[v], changed = true, true
						}
					}
				}
			}
			return true
		})
	}
	return keyed
}

// exactly simplifies e with the exact rules.
func (s *simplifier) exactly(e sdql.Expr, env *zenv) sdql.Expr {
	saved := s.exact
	s.exact = true
	out := s.expr(e, env)
	s.exact = saved
	return out
}

func (s *simplifier) typeOf(e sdql.Expr) sdql.Type { return s.types[e] }

// zero returns zero[t], or nil when t is unknown or not a real tensor.
func (s *simplifier) zero(t sdql.Type) sdql.Expr {
	if t == nil || sdql.Order(t) < 0 {
		return nil
	}
	z := &sdql.ZeroExpr{T: t}
	s.types[z] = t
	return z
}

// isZero reports whether e is a zero of a real tensor type: zero[D], or a
// real-typed literal 0.
func (s *simplifier) isZero(e sdql.Expr) bool {
	switch x := e.(type) {
	case *sdql.ZeroExpr:
		return sdql.Order(x.T) >= 0
	case *sdql.RealLit:
		return x.Value == 0
	case *sdql.IntLit:
		return x.Value == 0 && s.typeOf(e) == sdql.RealType
	}
	return false
}

// rebuilt returns n with the type of orig.
func (s *simplifier) rebuilt(orig, n sdql.Expr) sdql.Expr {
	s.types[n] = s.types[orig]
	return n
}

// or returns z when it is not nil, else e.
func or(z, e sdql.Expr) sdql.Expr {
	if z != nil {
		return z
	}
	return e
}

func (s *simplifier) expr(e sdql.Expr, env *zenv) sdql.Expr {
	t := s.typeOf(e)
	switch x := e.(type) {
	case *sdql.Ident:
		if z, ok := env.find(x.Name); ok {
			return s.zero(z.T)
		}
		return e
	case *sdql.DictExpr:
		out := &sdql.DictExpr{Lbrace: x.Lbrace}
		for _, en := range x.Entries {
			k, v := s.expr(en.Key, env), s.expr(en.Val, env)
			if s.isZero(v) && s.zero(t) != nil && !s.exact {
				continue
			}
			out.Entries = append(out.Entries, sdql.Entry{Key: k, Val: v})
		}
		if len(out.Entries) == 0 {
			return or(s.zero(t), s.rebuilt(e, out))
		}
		return s.rebuilt(e, out)
	case *sdql.SumExpr:
		src := s.exactly(x.Src, env)
		if s.isZero(src) {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		body := s.expr(x.Body, env.shadow(x.Key).shadow(x.Val))
		if s.isZero(body) {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		return s.rebuilt(e, &sdql.SumExpr{Sum: x.Sum, Key: x.Key, Val: x.Val, Src: src, Body: body})
	case *sdql.LetExpr:
		out := &sdql.LetExpr{Let: x.Let}
		for i, n := range x.Names {
			var v sdql.Expr
			if s.keyed[n.Name] {
				v = s.exactly(x.Values[i], env)
			} else {
				v = s.expr(x.Values[i], env)
			}
			if z, ok := v.(*sdql.ZeroExpr); ok && n.Name != "_" && sdql.Order(z.T) >= 0 {
				env = &zenv{name: n.Name, zero: z, next: env}
				continue
			}
			env = env.shadow(n)
			out.Names = append(out.Names, n)
			out.Values = append(out.Values, v)
		}
		body := s.expr(x.Body, env)
		if len(out.Names) == 0 {
			return body
		}
		out.Body = body
		return s.rebuilt(e, out)
	case *sdql.LookupExpr:
		xx := s.expr(x.X, env)
		if s.isZero(xx) {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		return s.rebuilt(e, &sdql.LookupExpr{X: xx, Key: s.expr(x.Key, env)})
	case *sdql.IfExpr:
		out := &sdql.IfExpr{If: x.If, Cond: s.expr(x.Cond, env), Then: s.expr(x.Then, env)}
		if x.Else != nil {
			out.Else = s.expr(x.Else, env)
			if s.isZero(out.Else) && s.zero(t) != nil && sdql.TypesEqual(s.typeOf(out.Then), t) {
				out.Else = nil
			}
		}
		if s.isZero(out.Then) && out.Else == nil {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		return s.rebuilt(e, out)
	case *sdql.UnaryExpr:
		xx := s.expr(x.X, env)
		if x.Op == sdql.SUB && s.isZero(xx) {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		return s.rebuilt(e, &sdql.UnaryExpr{OpPos: x.OpPos, Op: x.Op, X: xx})
	case *sdql.BinaryExpr:
		return s.binary(x, s.expr(x.X, env), s.expr(x.Y, env))
	}
	kids := sdql.Children(e)
	if len(kids) == 0 {
		return e
	}
	nk := make([]sdql.Expr, len(kids))
	for i, k := range kids {
		nk[i] = s.expr(k, env)
	}
	return s.rebuilt(e, sdql.WithChildren(e, nk))
}

func (s *simplifier) binary(x *sdql.BinaryExpr, l, r sdql.Expr) sdql.Expr {
	t := s.typeOf(x)
	same := func(e sdql.Expr) bool { return sdql.TypesEqual(s.typeOf(e), t) }
	zl, zr := s.isZero(l), s.isZero(r)
	switch x.Op {
	case sdql.MUL:
		if s.exact && sdql.Order(t) > 0 {
			// dict * e iterates the dict; s * dict the dict on the right
			lo, ro := sdql.Order(s.typeOf(l)), sdql.Order(s.typeOf(r))
			zl = zl && lo > 0
			zr = zr && ro > 0 && lo == 0
		}
		if zl || zr {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		switch {
		case isOne(r) && same(l):
			return s.real(l)
		case isOne(l) && same(r):
			return s.real(r)
		}
	case sdql.QUO:
		if zl {
			if z := s.zero(t); z != nil {
				return z
			}
		}
		if isOne(r) && same(l) {
			return s.real(l)
		}
	case sdql.ADD:
		switch {
		case zl && zr:
			if z := s.zero(t); z != nil {
				return z
			}
		case zl && same(r):
			return r
		case zr && same(l):
			return l
		}
	case sdql.SUB:
		switch {
		case zl && zr:
			if z := s.zero(t); z != nil {
				return z
			}
		case zr && same(l):
			return l
		case zl && same(r):
			return s.rebuilt(x, &sdql.UnaryExpr{Op: sdql.SUB, X: r})
		}
	}
	return s.rebuilt(x, &sdql.BinaryExpr{X: l, OpPos: x.OpPos, Op: x.Op, Y: r})
}

// real returns e, or the real literal of an int literal that the context
// types real (2 in 1.0 * 2), so that it stays real wherever it ends up (a
// program that is only a literal is typed by the literal).
func (s *simplifier) real(e sdql.Expr) sdql.Expr {
	if n, ok := e.(*sdql.IntLit); ok && s.typeOf(e) == sdql.RealType {
		return s.rebuilt(e, &sdql.RealLit{ValuePos: n.ValuePos, Value: float64(n.Value)})
	}
	return e
}

// isOne reports whether e is the literal 1 or 1.0.
func isOne(e sdql.Expr) bool {
	switch x := e.(type) {
	case *sdql.IntLit:
		return x.Value == 1
	case *sdql.RealLit:
		return x.Value == 1
	}
	return false
}
