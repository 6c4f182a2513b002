// Scalar expressions of the kernel compiler: reals, ints and bools compiled
// to typed closures over frame slots, and lets.

package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// ---- reals ----

func (c *compiler) real(e sdql.Expr, env *scope) fexpr {
	switch kindOf(c.typeOf(e)) {
	case kInt:
		ie := c.int(e, env)
		return func(fr *frame) float64 { return float64(ie(fr)) }
	case kBool:
		be := c.bool(e, env)
		return func(fr *frame) float64 {
			if be(fr) {
				return 1
			}
			return 0
		}
	case kDict:
		c.fail(e, "a dictionary where a real is needed")
	}
	switch e := e.(type) {
	case *sdql.RealLit:
		v := e.Value
		return func(*frame) float64 { return v }
	case *sdql.IntLit:
		v := float64(e.Value)
		return func(*frame) float64 { return v }
	case *sdql.Ident:
		r := c.ref(e, env)
		switch r.cls {
		case vReal:
			s := r.slot
			return func(fr *frame) float64 { return fr.f[s] }
		case vInt, vBool:
			s := r.slot
			return func(fr *frame) float64 { return float64(fr.i[s]) }
		}
	case *sdql.LookupExpr:
		return c.lookupReal(e, env)
	case *sdql.BinaryExpr:
		x, y := c.real(e.X, env), c.real(e.Y, env)
		switch e.Op {
		case sdql.ADD:
			return func(fr *frame) float64 { return x(fr) + y(fr) }
		case sdql.SUB:
			return func(fr *frame) float64 { return x(fr) - y(fr) }
		case sdql.MUL:
			return func(fr *frame) float64 { return x(fr) * y(fr) }
		case sdql.QUO:
			return func(fr *frame) float64 { return x(fr) / y(fr) }
		}
	case *sdql.UnaryExpr:
		x := c.real(e.X, env)
		return func(fr *frame) float64 { return -x(fr) }
	case *sdql.CallExpr:
		op := sdql.Ops[e.Op]
		if op == nil {
			c.fail(e, "unknown operation %s", e.Op)
		}
		if op.Arity == 2 {
			fn, x, y := op.Fn2, c.real(e.X, env), c.real(e.Y, env)
			return func(fr *frame) float64 { return fn(x(fr), y(fr)) }
		}
		fn, x := op.Fn, c.real(e.X, env)
		return func(fr *frame) float64 { return fn(x(fr)) }
	case *sdql.SumExpr:
		return c.sumReal(e, env)
	case *sdql.IfExpr:
		cond, then := c.bool(e.Cond, env), c.real(e.Then, env)
		if e.Else == nil {
			return func(fr *frame) float64 {
				if cond(fr) {
					return then(fr)
				}
				return 0
			}
		}
		els := c.real(e.Else, env)
		return func(fr *frame) float64 {
			if cond(fr) {
				return then(fr)
			}
			return els(fr)
		}
	case *sdql.LetExpr:
		bind, inner := c.let(e, env)
		body := c.real(e.Body, inner)
		return func(fr *frame) float64 { bind(fr); return body(fr) }
	case *sdql.ZeroExpr:
		return func(*frame) float64 { return 0 }
	case *sdql.OneHotExpr:
		return func(*frame) float64 { return 1 }
	}
	c.fail(e, "cannot compile %T as a real", e)
	return nil
}

func (c *compiler) lookupReal(e *sdql.LookupExpr, env *scope) fexpr {
	k := c.int(e.Key, env)
	if id, ok := e.X.(*sdql.Ident); ok {
		r := c.ref(id, env)
		switch r.cls {
		case vRealArr:
			s := r.slot
			return func(fr *frame) float64 {
				a, i := fr.ra[s], k(fr)
				if uint(i) < uint(len(a)) {
					return a[i]
				}
				return 0
			}
		case vIntArr:
			s := r.slot
			return func(fr *frame) float64 {
				a, i := fr.ia[s], k(fr)
				if uint(i) < uint(len(a)) {
					return float64(a[i])
				}
				return 0
			}
		}
	}
	x := c.dict(e.X, env)
	return func(fr *frame) float64 { return lookupF(x(fr), k(fr)) }
}

// ---- ints ----

func (c *compiler) int(e sdql.Expr, env *scope) iexpr {
	switch kindOf(c.typeOf(e)) {
	case kReal:
		// a real used as a key (the checker types keys int; this is a
		// literal or an expression the checker left real)
		fe := c.real(e, env)
		return func(fr *frame) int {
			v := fe(fr)
			if v != float64(int(v)) {
				panic(rtErrorf("%s: key %s is not an integer", e.Pos(), sdql.FormatReal(v)))
			}
			return int(v)
		}
	case kBool:
		be := c.bool(e, env)
		return func(fr *frame) int {
			if be(fr) {
				return 1
			}
			return 0
		}
	case kDict:
		c.fail(e, "a dictionary where an int is needed")
	}
	switch e := e.(type) {
	case *sdql.IntLit:
		v := e.Value
		return func(*frame) int { return v }
	case *sdql.Ident:
		r := c.ref(e, env)
		if r.cls == vInt || r.cls == vBool {
			s := r.slot
			return func(fr *frame) int { return fr.i[s] }
		}
	case *sdql.UniqueExpr:
		return c.int(e.X, env)
	case *sdql.LookupExpr:
		k := c.int(e.Key, env)
		if id, ok := e.X.(*sdql.Ident); ok {
			if r := c.ref(id, env); r.cls == vIntArr {
				s := r.slot
				return func(fr *frame) int {
					a, i := fr.ia[s], k(fr)
					if uint(i) < uint(len(a)) {
						return a[i]
					}
					return 0
				}
			}
		}
		x := c.dict(e.X, env)
		return func(fr *frame) int { return int(lookupF(x(fr), k(fr))) }
	case *sdql.BinaryExpr:
		x, y := c.int(e.X, env), c.int(e.Y, env)
		switch e.Op {
		case sdql.ADD:
			return func(fr *frame) int { return x(fr) + y(fr) }
		case sdql.SUB:
			return func(fr *frame) int { return x(fr) - y(fr) }
		case sdql.MUL:
			return func(fr *frame) int { return x(fr) * y(fr) }
		}
	case *sdql.UnaryExpr:
		x := c.int(e.X, env)
		return func(fr *frame) int { return -x(fr) }
	case *sdql.SumExpr:
		return c.sumInt(e, env)
	case *sdql.IfExpr:
		cond, then := c.bool(e.Cond, env), c.int(e.Then, env)
		if e.Else == nil {
			return func(fr *frame) int {
				if cond(fr) {
					return then(fr)
				}
				return 0
			}
		}
		els := c.int(e.Else, env)
		return func(fr *frame) int {
			if cond(fr) {
				return then(fr)
			}
			return els(fr)
		}
	case *sdql.LetExpr:
		bind, inner := c.let(e, env)
		body := c.int(e.Body, inner)
		return func(fr *frame) int { bind(fr); return body(fr) }
	case *sdql.ZeroExpr:
		return func(*frame) int { return 0 }
	}
	c.fail(e, "cannot compile %T as an int", e)
	return nil
}

// ---- bools ----

func (c *compiler) bool(e sdql.Expr, env *scope) bexpr {
	if k := kindOf(c.typeOf(e)); k != kBool {
		if k == kDict {
			c.fail(e, "a dictionary where a bool is needed")
		}
		fe := c.real(e, env)
		return func(fr *frame) bool { return fe(fr) != 0 }
	}
	switch e := e.(type) {
	case *sdql.BoolLit:
		v := e.Value
		return func(*frame) bool { return v }
	case *sdql.Ident:
		r := c.ref(e, env)
		s := r.slot
		return func(fr *frame) bool { return fr.i[s] != 0 }
	case *sdql.UnaryExpr:
		x := c.bool(e.X, env)
		return func(fr *frame) bool { return !x(fr) }
	case *sdql.LookupExpr:
		x, k := c.dict(e.X, env), c.int(e.Key, env)
		return func(fr *frame) bool { return lookupF(x(fr), k(fr)) != 0 }
	case *sdql.BinaryExpr:
		return c.compare(e, env)
	case *sdql.SumExpr:
		return c.sumBool(e, env)
	case *sdql.IfExpr:
		cond, then := c.bool(e.Cond, env), c.bool(e.Then, env)
		if e.Else == nil {
			return func(fr *frame) bool { return cond(fr) && then(fr) }
		}
		els := c.bool(e.Else, env)
		return func(fr *frame) bool {
			if cond(fr) {
				return then(fr)
			}
			return els(fr)
		}
	case *sdql.LetExpr:
		bind, inner := c.let(e, env)
		body := c.bool(e.Body, inner)
		return func(fr *frame) bool { bind(fr); return body(fr) }
	case *sdql.ZeroExpr:
		return func(*frame) bool { return false }
	}
	c.fail(e, "cannot compile %T as a bool", e)
	return nil
}

func (c *compiler) compare(e *sdql.BinaryExpr, env *scope) bexpr {
	switch e.Op {
	case sdql.LAND, sdql.MUL:
		x, y := c.bool(e.X, env), c.bool(e.Y, env)
		return func(fr *frame) bool { return x(fr) && y(fr) }
	case sdql.LOR, sdql.ADD:
		x, y := c.bool(e.X, env), c.bool(e.Y, env)
		return func(fr *frame) bool { return x(fr) || y(fr) }
	}
	if kindOf(c.typeOf(e.X)) == kBool {
		x, y := c.bool(e.X, env), c.bool(e.Y, env)
		switch e.Op {
		case sdql.EQ:
			return func(fr *frame) bool { return x(fr) == y(fr) }
		case sdql.NEQ:
			return func(fr *frame) bool { return x(fr) != y(fr) }
		}
		c.fail(e, "cannot order bool values")
	}
	x, y := c.real(e.X, env), c.real(e.Y, env)
	switch e.Op {
	case sdql.EQ:
		return func(fr *frame) bool { return x(fr) == y(fr) }
	case sdql.NEQ:
		return func(fr *frame) bool { return x(fr) != y(fr) }
	case sdql.LT:
		return func(fr *frame) bool { return x(fr) < y(fr) }
	case sdql.LEQ:
		return func(fr *frame) bool { return x(fr) <= y(fr) }
	case sdql.GT:
		return func(fr *frame) bool { return x(fr) > y(fr) }
	case sdql.GEQ:
		return func(fr *frame) bool { return x(fr) >= y(fr) }
	}
	c.fail(e, "cannot compile operator %s on bools", e.Op)
	return nil
}

// ---- let ----

// let compiles the bindings of a let and returns the function that
// evaluates them into their slots, and the scope of the body.
func (c *compiler) let(e *sdql.LetExpr, env *scope) (func(*frame), *scope) {
	var binds []func(*frame)
	for i, b := range e.Names {
		v := e.Values[i]
		t := c.typeOf(v)
		var ref varRef
		var fn func(*frame)
		switch kindOf(t) {
		case kReal:
			x := c.real(v, env)
			env, ref = c.bind(env, b, t)
			s := ref.slot
			fn = func(fr *frame) { fr.f[s] = x(fr) }
		case kInt:
			x := c.int(v, env)
			env, ref = c.bind(env, b, t)
			s := ref.slot
			fn = func(fr *frame) { fr.i[s] = x(fr) }
		case kBool:
			x := c.bool(v, env)
			env, ref = c.bind(env, b, t)
			s := ref.slot
			fn = func(fr *frame) {
				if x(fr) {
					fr.i[s] = 1
				} else {
					fr.i[s] = 0
				}
			}
		default:
			x := c.dict(v, env)
			env, ref = c.bind(env, b, t)
			s := ref.slot
			fn = func(fr *frame) { fr.d[s] = x(fr) }
		}
		binds = append(binds, fn)
	}
	if len(binds) == 1 {
		return binds[0], env
	}
	return func(fr *frame) {
		for _, b := range binds {
			b(fr)
		}
	}, env
}
