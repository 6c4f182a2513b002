package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// loopFn runs a sum's loop: it binds the key and value slots for each entry
// of the source and calls step.
type loopFn func(fr *frame, dst *hdict, s float64, step intoFn)

// loop compiles the source of a sum to a counted loop where it is a range,
// a physical array or a sub-array of one, and to an iteration over the
// dictionary value otherwise. It returns the scope of the body.
func (c *compiler) loop(e *sdql.SumExpr, env *scope) (loopFn, *scope) {
	srcT, _ := c.typeOf(e.Src).(*sdql.DictType)
	if srcT == nil {
		c.fail(e.Src, "cannot iterate over %s", c.typeOf(e.Src))
	}
	keyT, valT := srcT.Key, srcT.Val
	inner, kref := c.bind(env, e.Key, sdql.IntType)
	_ = keyT
	switch src := e.Src.(type) {
	case *sdql.RangeExpr:
		inner, vref := c.bind(inner, e.Val, sdql.IntType)
		lo, hi := c.rangeBounds(src, env)
		ks, vs := kref.slot, vref.slot
		return func(fr *frame, dst *hdict, s float64, step intoFn) {
			for x, n := lo(fr), hi(fr); x < n; x++ {
				fr.i[ks] = x
				fr.i[vs] = x
				step(fr, dst, s)
			}
		}, inner
	case *sdql.SliceExpr:
		if id, ok := src.X.(*sdql.Ident); ok {
			r := c.ref(id, env)
			if r.cls == vIntArr || r.cls == vRealArr {
				inner, vref := c.bind(inner, e.Val, valT)
				lo, hi := c.int(src.Lo, env), c.int(src.Hi, env)
				return c.arrayLoop(r, vref, kref, lo, hi, src.Lo.Pos()), inner
			}
		}
	case *sdql.Ident:
		r := c.ref(src, env)
		if r.cls == vIntArr || r.cls == vRealArr {
			inner, vref := c.bind(inner, e.Val, valT)
			return c.arrayLoop(r, vref, kref, nil, nil, src.Pos()), inner
		}
	}
	inner, vref := c.bind(inner, e.Val, valT)
	x := c.dict(e.Src, env)
	ks, vs, vcls := kref.slot, vref.slot, vref.cls
	return func(fr *frame, dst *hdict, s float64, step intoFn) {
		v := x(fr)
		if h, ok := v.(*hdict); ok {
			n := h.Len()
			leaf := h.t.isLeaf()
			for i := 0; i < n; i++ {
				k, p := h.entry(i)
				fr.i[ks] = k
				switch {
				case !leaf:
					fr.d[vs] = h.d[p]
				case vcls == vReal:
					fr.f[vs] = h.f[p]
				default:
					fr.i[vs] = int(h.f[p])
				}
				step(fr, dst, s)
			}
			return
		}
		n := dvLen(v)
		for i := 0; i < n; i++ {
			k, f, d := dvEntry(v, i)
			fr.i[ks] = k
			switch vcls {
			case vReal:
				fr.f[vs] = f
			case vInt, vBool:
				fr.i[vs] = int(f)
			default:
				fr.d[vs] = d
			}
			step(fr, dst, s)
		}
	}, inner
}

// arrayLoop iterates positions lo..hi-1 (all when lo is nil) of a physical
// array slot.
func (c *compiler) arrayLoop(arr, vref, kref varRef, lo, hi iexpr, pos sdql.Pos) loopFn {
	as, ks, vs := arr.slot, kref.slot, vref.slot
	bounds := func(fr *frame, n int) (int, int) {
		if lo == nil {
			return 0, n
		}
		l, h := lo(fr), hi(fr)
		if l < 0 || h > n || l > h {
			panic(rtErrorf("%s: sub-array %d:%d out of range of an array of length %d", pos, l, h, n))
		}
		return l, h
	}
	if arr.cls == vIntArr {
		return func(fr *frame, dst *hdict, s float64, step intoFn) {
			a := fr.ia[as]
			l, h := bounds(fr, len(a))
			for p := l; p < h; p++ {
				fr.i[ks] = p
				fr.i[vs] = a[p]
				step(fr, dst, s)
			}
		}
	}
	if vref.cls == vReal {
		return func(fr *frame, dst *hdict, s float64, step intoFn) {
			a := fr.ra[as]
			l, h := bounds(fr, len(a))
			for p := l; p < h; p++ {
				fr.i[ks] = p
				fr.f[vs] = a[p]
				step(fr, dst, s)
			}
		}
	}
	return func(fr *frame, dst *hdict, s float64, step intoFn) {
		a := fr.ra[as]
		l, h := bounds(fr, len(a))
		for p := l; p < h; p++ {
			fr.i[ks] = p
			fr.i[vs] = int(a[p])
			step(fr, dst, s)
		}
	}
}

func (c *compiler) sumReal(e *sdql.SumExpr, env *scope) fexpr {
	if f := c.fastSumReal(e, env); f != nil {
		return f
	}
	loop, inner := c.loop(e, env)
	body := c.real(e.Body, inner)
	acc := c.newSlot(vReal).slot
	step := func(fr *frame, _ *hdict, _ float64) { fr.f[acc] += body(fr) }
	return func(fr *frame) float64 {
		saved := fr.f[acc]
		fr.f[acc] = 0
		loop(fr, nil, 0, step)
		r := fr.f[acc]
		fr.f[acc] = saved
		return r
	}
}

func (c *compiler) sumInt(e *sdql.SumExpr, env *scope) iexpr {
	loop, inner := c.loop(e, env)
	body := c.int(e.Body, inner)
	acc := c.newSlot(vInt).slot
	step := func(fr *frame, _ *hdict, _ float64) { fr.i[acc] += body(fr) }
	return func(fr *frame) int {
		saved := fr.i[acc]
		fr.i[acc] = 0
		loop(fr, nil, 0, step)
		r := fr.i[acc]
		fr.i[acc] = saved
		return r
	}
}

func (c *compiler) sumBool(e *sdql.SumExpr, env *scope) bexpr {
	loop, inner := c.loop(e, env)
	body := c.bool(e.Body, inner)
	acc := c.newSlot(vBool).slot
	step := func(fr *frame, _ *hdict, _ float64) {
		if body(fr) {
			fr.i[acc] = 1
		}
	}
	return func(fr *frame) bool {
		saved := fr.i[acc]
		fr.i[acc] = 0
		loop(fr, nil, 0, step)
		r := fr.i[acc] != 0
		fr.i[acc] = saved
		return r
	}
}

// uniqueKeyed reports whether every iteration of a sum with this body
// writes a key of its own: the body is a single-entry dictionary with a
// unique key (possibly under lets and an if without else).
func uniqueKeyed(e sdql.Expr) bool {
	switch e := e.(type) {
	case *sdql.DictExpr:
		if len(e.Entries) == 1 {
			_, ok := e.Entries[0].Key.(*sdql.UniqueExpr)
			return ok
		}
	case *sdql.LetExpr:
		return uniqueKeyed(e.Body)
	case *sdql.IfExpr:
		return e.Else == nil && uniqueKeyed(e.Then)
	}
	return false
}

func (c *compiler) sumInto(e *sdql.SumExpr, env *scope, fresh bool) intoFn {
	if f := c.fastSumInto(e, env, fresh); f != nil {
		return f
	}
	if !c.opts.NoFast {
		if f := c.rangeGather(e, env, fresh); f != nil {
			return f
		}
	}
	return c.sumIntoGeneral(e, env, fresh)
}

// sumIntoGeneral compiles a sum into a destination with the general loop.
func (c *compiler) sumIntoGeneral(e *sdql.SumExpr, env *scope, fresh bool) intoFn {
	loop, inner := c.loop(e, env)
	bodyFresh := fresh && uniqueKeyed(e.Body)
	if !c.dps {
		if _, ok := e.Body.(*sdql.DictExpr); !ok {
			// without DPS: build each iteration's value, then merge it
			body := c.dict(e.Body, inner)
			step := func(fr *frame, dst *hdict, s float64) { addDV(dst, body(fr), s) }
			return func(fr *frame, dst *hdict, s float64) { loop(fr, dst, s, step) }
		}
	}
	body := c.into(e.Body, inner, bodyFresh)
	return func(fr *frame, dst *hdict, s float64) { loop(fr, dst, s, body) }
}
