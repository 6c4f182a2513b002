package fuse

import (
	"math"
	"strings"

	"github.com/nablasd/nablasd/sdql"
)

// treeMatch is a match of a rule's left-hand side against a tree.
type treeMatch struct {
	c     *Ctx
	exprs map[string]sdql.Expr // $x -> sub-expression
	names map[string]string    // binder $k -> name
}

func (m *treeMatch) bindName(v, name string) bool {
	if m.names == nil {
		m.names = map[string]string{}
	}
	if old, ok := m.names[v]; ok {
		return old == name
	}
	if e, ok := m.exprs[v]; ok {
		id, isID := e.(*sdql.Ident)
		return isID && id.Name == name
	}
	m.names[v] = name
	return true
}

// matchTree matches pattern p against e, extending m: the root by
// rootMayMatch, then the pattern variables, binders and children.
func matchTree(p, e sdql.Expr, m *treeMatch) bool {
	if id, ok := p.(*sdql.Ident); ok && id.Name != "__zt_" && isPatVar(id.Name) {
		v := id.Name[1:]
		if n, ok := m.names[v]; ok {
			id, isID := e.(*sdql.Ident)
			return isID && id.Name == n
		}
		if old, ok := m.exprs[v]; ok {
			return sdql.AlphaEqual(old, e)
		}
		if m.exprs == nil {
			m.exprs = map[string]sdql.Expr{}
		}
		m.exprs[v] = e
		return true
	}
	if !rootMayMatch(p, e) {
		return false
	}
	switch p := p.(type) {
	case *sdql.Ident, *sdql.IntLit, *sdql.RealLit, *sdql.BoolLit, *sdql.ZeroExpr:
		return true // leaves: the root is the whole match
	case *sdql.SumExpr:
		s := e.(*sdql.SumExpr)
		if !matchBinder(p.Key, s.Key, m) || !matchBinder(p.Val, s.Val, m) {
			return false
		}
		return matchTree(p.Src, s.Src, m) && matchTree(p.Body, s.Body, m)
	case *sdql.LetExpr:
		l := e.(*sdql.LetExpr)
		for i := range p.Names {
			if !matchBinder(p.Names[i], l.Names[i], m) || !matchTree(p.Values[i], l.Values[i], m) {
				return false
			}
		}
		return matchTree(p.Body, l.Body, m)
	case *sdql.DictExpr:
		if _, isZ := e.(*sdql.ZeroExpr); isZ {
			return true // {} matches zero[{K -> V}]
		}
	}
	var pbuf, ebuf [4]sdql.Expr
	pk, ek := sdql.AppendChildren(pbuf[:0], p), sdql.AppendChildren(ebuf[:0], e)
	if len(pk) != len(ek) {
		return false
	}
	for i := range pk {
		if !matchTree(pk[i], ek[i], m) {
			return false
		}
	}
	return true
}

// rootMayMatch reports whether e's root can match the root of pattern p
// (a pattern variable's root matches anything). matchTree starts with it,
// before it binds anything or looks at a child, and Apply and
// anyRewrites test it before they allocate a match: most rules'
// left-hand sides fail at the root of most nodes they are tried on.
func rootMayMatch(p, e sdql.Expr) bool {
	switch p := p.(type) {
	case *sdql.Ident:
		if p.Name == "__zt_" {
			return isZeroExpr(e)
		}
		if isPatVar(p.Name) {
			return true
		}
		id, ok := e.(*sdql.Ident)
		return ok && id.Name == p.Name
	case *sdql.IntLit:
		v, ok := numLit(e)
		return ok && v == float64(p.Value)
	case *sdql.RealLit:
		v, ok := numLit(e)
		return ok && v == p.Value
	case *sdql.BoolLit:
		b, ok := e.(*sdql.BoolLit)
		return ok && b.Value == p.Value
	case *sdql.SumExpr:
		_, ok := e.(*sdql.SumExpr)
		return ok
	case *sdql.LetExpr:
		l, ok := e.(*sdql.LetExpr)
		return ok && len(l.Names) == len(p.Names)
	case *sdql.DictExpr:
		if d, ok := e.(*sdql.DictExpr); ok && len(d.Entries) == len(p.Entries) {
			return true
		}
		if len(p.Entries) == 0 {
			z, isZ := e.(*sdql.ZeroExpr)
			return isZ && isDictType(z.T)
		}
		return false
	case *sdql.ZeroExpr:
		z, ok := e.(*sdql.ZeroExpr)
		return ok && sdql.TypesEqual(z.T, p.T)
	case *sdql.OneHotExpr:
		o, ok := e.(*sdql.OneHotExpr)
		return ok && sdql.TypesEqual(o.T, p.T)
	case *sdql.UnaryExpr:
		u, ok := e.(*sdql.UnaryExpr)
		return ok && u.Op == p.Op
	case *sdql.BinaryExpr:
		b, ok := e.(*sdql.BinaryExpr)
		return ok && b.Op == p.Op
	case *sdql.CallExpr:
		c, ok := e.(*sdql.CallExpr)
		return ok && c.Op == p.Op
	case *sdql.IfExpr:
		f, ok := e.(*sdql.IfExpr)
		return ok && (f.Else == nil) == (p.Else == nil)
	case *sdql.LookupExpr:
		_, ok := e.(*sdql.LookupExpr)
		return ok
	case *sdql.SliceExpr:
		_, ok := e.(*sdql.SliceExpr)
		return ok
	case *sdql.RangeExpr:
		_, ok := e.(*sdql.RangeExpr)
		return ok
	case *sdql.UniqueExpr:
		_, ok := e.(*sdql.UniqueExpr)
		return ok
	}
	return true
}

func matchBinder(p, b sdql.Binder, m *treeMatch) bool {
	if p.Name == "_" {
		return true
	}
	if isPatVar(p.Name) {
		return m.bindName(p.Name[1:], b.Name)
	}
	return p.Name == b.Name
}

func numLit(e sdql.Expr) (float64, bool) {
	switch e := e.(type) {
	case *sdql.IntLit:
		return float64(e.Value), true
	case *sdql.RealLit:
		return e.Value, true
	}
	return 0, false
}

func isDictType(t sdql.Type) bool { _, ok := t.(*sdql.DictType); return ok }

// isZeroExpr reports whether e is a zero of the semiring: zero[T], {} or 0.
func isZeroExpr(e sdql.Expr) bool {
	switch e := e.(type) {
	case *sdql.ZeroExpr:
		return true
	case *sdql.DictExpr:
		return len(e.Entries) == 0
	case *sdql.IntLit:
		return e.Value == 0
	case *sdql.RealLit:
		return e.Value == 0 && !math.Signbit(e.Value)
	}
	return false
}

// matchEnv for trees.

func (m *treeMatch) name(v string) (string, bool) {
	if n, ok := m.names[v]; ok {
		return n, true
	}
	if id, ok := m.exprs[v].(*sdql.Ident); ok {
		return id.Name, true
	}
	return "", false
}

func (m *treeMatch) mayBeFree(name, v string) bool {
	e, ok := m.exprs[v]
	if !ok {
		if n, isName := m.names[v]; isName {
			return n == name
		}
		return true
	}
	return m.c.freeIn(name, e)
}

func (m *treeMatch) typeOf(v string) sdql.Type {
	e, ok := m.exprs[v]
	if !ok {
		return nil
	}
	return m.c.typeOf(e)
}

func (m *treeMatch) constant(v string) (float64, bool) { return numLit(m.exprs[v]) }

func (m *treeMatch) isIdent(v string) bool { _, ok := m.exprs[v].(*sdql.Ident); return ok }

func (m *treeMatch) dense(v string) bool {
	id, ok := m.exprs[v].(*sdql.Ident)
	return ok && m.c.Dense[id.Name]
}

func (m *treeMatch) trivial(v string) bool { return isTrivial(m.exprs[v]) }

func (m *treeMatch) scaled(v string) bool { return isScaled(m.exprs[v]) }

// isScaled reports whether e is a variable times a numeric literal, in
// either order.
func isScaled(e sdql.Expr) bool {
	b, ok := e.(*sdql.BinaryExpr)
	if !ok || b.Op != sdql.MUL {
		return false
	}
	isVar := func(x sdql.Expr) bool { _, ok := x.(*sdql.Ident); return ok }
	isLit := func(x sdql.Expr) bool { _, ok := numLit(x); return ok }
	return isVar(b.X) && isLit(b.Y) || isLit(b.X) && isVar(b.Y)
}

func (m *treeMatch) mayHaveUnique(v string) bool {
	e, ok := m.exprs[v]
	return !ok || hasUnique(e)
}

func hasUnique(e sdql.Expr) bool {
	return sdql.Any(e, func(x sdql.Expr) bool { _, ok := x.(*sdql.UniqueExpr); return ok })
}

func isTrivial(e sdql.Expr) bool {
	switch e := e.(type) {
	case *sdql.Ident, *sdql.IntLit, *sdql.RealLit, *sdql.BoolLit, *sdql.ZeroExpr:
		return true
	case *sdql.DictExpr:
		return len(e.Entries) == 0
	}
	return false
}

// instantiate builds the right-hand side of r for match m; lhsType is the
// type of the matched expression (for zero[typeof]). It fails when a type
// it needs is unknown or a fold does not evaluate.
func instantiate(r *Rule, m *treeMatch, lhsType sdql.Type) (sdql.Expr, bool) {
	fresh := map[string]string{}
	ok := true
	var inst func(e sdql.Expr) sdql.Expr
	binder := func(b sdql.Binder) sdql.Binder {
		if !isPatVar(b.Name) {
			return b
		}
		v := b.Name[1:]
		if n, has := m.names[v]; has {
			return sdql.Binder{Name: n}
		}
		if id, has := m.exprs[v].(*sdql.Ident); has {
			return sdql.Binder{Name: id.Name}
		}
		if n, has := fresh[v]; has {
			return sdql.Binder{Name: n}
		}
		n := m.c.fresh(strings.TrimRight(v, "0123456789"))
		fresh[v] = n
		return sdql.Binder{Name: n}
	}
	inst = func(e sdql.Expr) sdql.Expr {
		switch x := e.(type) {
		case *sdql.Ident:
			if bv, xv, ev, isSub := substMarker(x.Name); isSub {
				body, okB := m.exprs[bv]
				n, okN := m.name(xv)
				repl, okE := m.exprs[ev]
				if !okB || !okN || !okE {
					ok = false
					return x
				}
				if n == "_" {
					return body
				}
				return sdql.Subst(body, map[string]sdql.Expr{n: repl})
			}
			if strings.HasPrefix(x.Name, "__zt_") {
				t := lhsType
				if v := strings.TrimPrefix(x.Name, "__zt_"); v != "" {
					t = m.typeOf(v)
				}
				if t == nil {
					ok = false
					return x
				}
				return zeroOf(t)
			}
			if isPatVar(x.Name) {
				v := x.Name[1:]
				if n, has := m.names[v]; has {
					return &sdql.Ident{Name: n}
				}
				if n, has := fresh[v]; has {
					return &sdql.Ident{Name: n}
				}
				if s, has := m.exprs[v]; has {
					return s
				}
				ok = false
			}
			return x
		case *sdql.LookupExpr:
			if id, isID := x.X.(*sdql.Ident); isID && id.Name == "fold" {
				v, good := foldConst(inst(x.Key), lhsType)
				if !good {
					ok = false
					return x
				}
				return v
			}
		case *sdql.SumExpr:
			k, v := binder(x.Key), binder(x.Val)
			return &sdql.SumExpr{Key: k, Val: v, Src: inst(x.Src), Body: inst(x.Body)}
		case *sdql.LetExpr:
			out := &sdql.LetExpr{}
			for i, b := range x.Names {
				out.Values = append(out.Values, inst(x.Values[i]))
				out.Names = append(out.Names, binder(b))
			}
			out.Body = inst(x.Body)
			return out
		}
		kids := sdql.Children(e)
		if len(kids) == 0 {
			return e
		}
		nk := make([]sdql.Expr, len(kids))
		for i, k := range kids {
			nk[i] = inst(k)
		}
		return sdql.WithChildren(e, nk)
	}
	out := inst(r.RHS)
	return out, ok
}

// zeroOf returns the zero of t as an expression: 0, 0.0, false or zero[T].
func zeroOf(t sdql.Type) sdql.Expr {
	switch t {
	case sdql.RealType:
		return &sdql.RealLit{Value: 0}
	case sdql.IntType, sdql.DenseIntType:
		return &sdql.IntLit{Value: 0}
	case sdql.BoolType:
		return &sdql.BoolLit{Value: false}
	}
	return &sdql.ZeroExpr{T: t}
}

// foldConst evaluates a closed arithmetic expression over literals; want
// is the type of the expression folded where it is known (nil
// otherwise). Evaluated alone, a closed expression of integer literals
// defaults to real, so where an int is wanted (2 * k - 1 with k let to
// 4, a key) an integral result is an integer literal, 7 and not 7.0.
func foldConst(e sdql.Expr, want sdql.Type) (sdql.Expr, bool) {
	closed := true
	sdql.Inspect(e, func(x sdql.Expr) bool {
		switch x.(type) {
		case *sdql.Ident, *sdql.SumExpr, *sdql.LetExpr, *sdql.DictExpr, *sdql.LookupExpr, *sdql.ZeroExpr, *sdql.OneHotExpr:
			closed = false
		}
		return closed
	})
	if !closed {
		return nil, false
	}
	v, err := sdql.Eval(e, nil)
	if err != nil {
		return nil, false
	}
	switch v := v.(type) {
	case sdql.Int:
		return &sdql.IntLit{Value: int(v)}, true
	case sdql.Real:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		if (want == sdql.IntType || want == sdql.DenseIntType) && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
			return &sdql.IntLit{Value: int(f)}, true
		}
		return &sdql.RealLit{Value: f}, true
	case sdql.Bool:
		return &sdql.BoolLit{Value: bool(v)}, true
	}
	return nil, false
}
