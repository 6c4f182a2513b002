// Dictionaries of the kernel compiler: dictionaries as values, and
// destination-passing style (singletons written into the destination).

package legacyexec

import (
	"sort"

	"github.com/nablasd/nablasd/sdql"
)

// ---- dictionaries as values ----

// newScratch reserves a per-frame dictionary for a site that materializes
// a dictionary; it is reset and refilled at each evaluation, so building
// it does not allocate once it has grown.
func (c *compiler) newScratch(t sdql.Type) int {
	c.scratch = append(c.scratch, c.dictTypeOf(t))
	return len(c.scratch) - 1
}

// dict compiles a dictionary-valued expression to a function returning its
// value.
func (c *compiler) dict(e sdql.Expr, env *scope) dexpr {
	switch e := e.(type) {
	case *sdql.Ident:
		r := c.ref(e, env)
		s := r.slot
		switch r.cls {
		case vDict:
			return func(fr *frame) dv { return fr.d[s] }
		case vIntArr:
			return func(fr *frame) dv { return intArr(fr.ia[s]) }
		case vRealArr:
			return func(fr *frame) dv { return realArr(fr.ra[s]) }
		}
		c.fail(e, "%s is not a dictionary", e.Name)
	case *sdql.LookupExpr:
		x, k := c.dict(e.X, env), c.int(e.Key, env)
		return func(fr *frame) dv { return lookupD(x(fr), k(fr)) }
	case *sdql.SliceExpr:
		x, lo, hi := c.dict(e.X, env), c.int(e.Lo, env), c.int(e.Hi, env)
		pos := e.Lo.Pos()
		return func(fr *frame) dv { return subArray(x(fr), lo(fr), hi(fr), pos) }
	case *sdql.RangeExpr:
		lo, hi := c.int(e.Lo, env), c.int(e.Hi, env)
		return func(fr *frame) dv { return rangeV{lo(fr), hi(fr)} }
	case *sdql.UniqueExpr:
		return c.dict(e.X, env)
	case *sdql.IfExpr:
		if e.Else != nil {
			cond, then, els := c.bool(e.Cond, env), c.dict(e.Then, env), c.dict(e.Else, env)
			if sdql.TypesEqual(c.typeOf(e.Then), c.typeOf(e.Else)) {
				return func(fr *frame) dv {
					if cond(fr) {
						return then(fr)
					}
					return els(fr)
				}
			}
		}
	case *sdql.LetExpr:
		bind, inner := c.let(e, env)
		body := c.dict(e.Body, inner)
		return func(fr *frame) dv { bind(fr); return body(fr) }
	}
	if !c.opts.NoFast {
		if v := c.arrayView(e, env); v != nil {
			return v
		}
	}
	return c.generalDict(e, env)
}

// generalDict compiles e to a function materializing its value into a
// per-frame scratch dictionary.
func (c *compiler) generalDict(e sdql.Expr, env *scope) dexpr {
	site := c.newScratch(c.typeOf(e))
	into := c.into(e, env, true)
	return func(fr *frame) dv {
		d := fr.scratch[site]
		d.reset()
		into(fr, d, 1)
		return d
	}
}

// ---- destination-passing style ----

// into compiles e to add s * e into a destination. fresh says that the
// destination holds nothing that e writes, so keys marked unique can be
// stored (=) instead of accumulated (+=).
func (c *compiler) into(e sdql.Expr, env *scope, fresh bool) intoFn {
	switch e := e.(type) {
	case *sdql.DictExpr:
		return c.intoDict(e, env, fresh)
	case *sdql.SumExpr:
		return c.sumInto(e, env, fresh)
	case *sdql.BinaryExpr:
		return c.intoBinary(e, env, fresh)
	case *sdql.UnaryExpr:
		x := c.into(e.X, env, fresh)
		return func(fr *frame, dst *hdict, s float64) { x(fr, dst, -s) }
	case *sdql.LetExpr:
		bind, inner := c.let(e, env)
		body := c.into(e.Body, inner, fresh)
		return func(fr *frame, dst *hdict, s float64) { bind(fr); body(fr, dst, s) }
	case *sdql.IfExpr:
		cond, then := c.bool(e.Cond, env), c.into(e.Then, env, fresh)
		if e.Else == nil {
			return func(fr *frame, dst *hdict, s float64) {
				if cond(fr) {
					then(fr, dst, s)
				}
			}
		}
		els := c.into(e.Else, env, fresh)
		return func(fr *frame, dst *hdict, s float64) {
			if cond(fr) {
				then(fr, dst, s)
			} else {
				els(fr, dst, s)
			}
		}
	case *sdql.ZeroExpr:
		return func(*frame, *hdict, float64) {}
	case *sdql.OneHotExpr:
		x := c.dict(e.X, env)
		n := sdql.Order(e.T)
		return func(fr *frame, dst *hdict, s float64) { oneHotInto(dst, x(fr), n, s) }
	}
	x := c.dict(e, env)
	if id := c.parJob(); id >= 0 {
		return func(fr *frame, dst *hdict, s float64) {
			v := x(fr)
			if a, ok := v.(realArr); ok && c.parAddArr(fr, id, dst, a, s) {
				return
			}
			addDV(dst, v, s)
		}
	}
	return func(fr *frame, dst *hdict, s float64) { addDV(dst, x(fr), s) }
}

func (c *compiler) intoDict(e *sdql.DictExpr, env *scope, fresh bool) intoFn {
	var fns []intoFn
	for _, en := range e.Entries {
		_, isUnique := en.Key.(*sdql.UniqueExpr)
		unique := fresh && isUnique && len(e.Entries) == 1
		k := c.int(en.Key, env)
		vt := c.typeOf(en.Val)
		if kindOf(vt) != kDict {
			v := c.real(en.Val, env)
			if unique {
				fns = append(fns, func(fr *frame, dst *hdict, s float64) { dst.setF(k(fr), s*v(fr)) })
			} else {
				fns = append(fns, func(fr *frame, dst *hdict, s float64) { dst.addF(k(fr), s*v(fr)) })
			}
			continue
		}
		if !c.dps {
			// without DPS: build the value, then merge it (the paper's tmp dictionaries)
			v := c.dict(en.Val, env)
			fns = append(fns, func(fr *frame, dst *hdict, s float64) {
				key := k(fr)
				addDV(dst.child(key), v(fr), s)
			})
			continue
		}
		v := c.into(en.Val, env, unique)
		fns = append(fns, func(fr *frame, dst *hdict, s float64) { v(fr, dst.child(k(fr)), s) })
	}
	switch len(fns) {
	case 0:
		return func(*frame, *hdict, float64) {}
	case 1:
		return fns[0]
	}
	return func(fr *frame, dst *hdict, s float64) {
		for _, f := range fns {
			f(fr, dst, s)
		}
	}
}

func isScalarType(t sdql.Type) bool { return kindOf(t) != kDict }

func (c *compiler) intoBinary(e *sdql.BinaryExpr, env *scope, fresh bool) intoFn {
	switch e.Op {
	case sdql.ADD, sdql.SUB:
		x, y := c.into(e.X, env, fresh), c.into(e.Y, env, false)
		if e.Op == sdql.SUB {
			return func(fr *frame, dst *hdict, s float64) { x(fr, dst, s); y(fr, dst, -s) }
		}
		return func(fr *frame, dst *hdict, s float64) { x(fr, dst, s); y(fr, dst, s) }
	case sdql.MUL:
		tx, ty := c.typeOf(e.X), c.typeOf(e.Y)
		switch {
		case isScalarType(tx):
			a, y := c.real(e.X, env), c.into(e.Y, env, fresh)
			return func(fr *frame, dst *hdict, s float64) { y(fr, dst, s*a(fr)) }
		case isScalarType(ty):
			x, b := c.into(e.X, env, fresh), c.real(e.Y, env)
			return func(fr *frame, dst *hdict, s float64) { x(fr, dst, s*b(fr)) }
		}
		if f := c.fastOuter(e, env); f != nil {
			return f
		}
		x, y := c.dict(e.X, env), c.dict(e.Y, env)
		return func(fr *frame, dst *hdict, s float64) { outerInto(dst, x(fr), y(fr), s) }
	case sdql.QUO:
		x, b := c.into(e.X, env, fresh), c.real(e.Y, env)
		return func(fr *frame, dst *hdict, s float64) { x(fr, dst, s/b(fr)) }
	}
	c.fail(e, "cannot compile operator %s on dictionaries", e.Op)
	return nil
}

// sortedNames returns the keys of m, sorted.
func sortedNames[V any](m map[string]V) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
