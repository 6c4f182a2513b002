package exec

import (
	"fmt"
	"sort"

	"github.com/nablasd/nablasd/sdql"
)

// Compiled code is a tree of typed closures over a frame of slots: every
// variable is resolved at compile time to a slot of its class (reals,
// ints and bools, generic dictionaries, physical int and real arrays), so
// scalars are never boxed. Dictionary-valued expressions are compiled in
// destination-passing style (into): they add themselves, scaled, into a
// destination they are given. Loops whose body matches a known innermost
// shape run as whole-loop primitives over the slices (fast.go).

type (
	fexpr  func(*frame) float64
	iexpr  func(*frame) int
	bexpr  func(*frame) bool
	dexpr  func(*frame) dv
	intoFn func(fr *frame, dst *hdict, s float64)
)

// frame holds the slots of one execution (one per worker).
type frame struct {
	f       []float64
	i       []int
	d       []dv
	ia      [][]int
	ra      [][]float64
	scratch []*hdict
	hints   []int // per-run facts found by validation (fast.go)
	// split restricts the outermost range loop to a worker's chunk
	split            bool
	splitLo, splitHi int
}

// vclass is the storage class of a variable.
type vclass uint8

const (
	vReal vclass = iota
	vInt
	vBool
	vDict
	vIntArr
	vRealArr
)

type varRef struct {
	cls  vclass
	slot int
}

type scope struct {
	name string
	ref  varRef
	next *scope
}

func (s *scope) lookup(name string) (varRef, bool) {
	for ; s != nil; s = s.next {
		if s.name == name {
			return s.ref, true
		}
	}
	return varRef{}, false
}

// compileError is raised (panicked) inside the compiler and returned by
// Compile.
type compileError struct{ err error }

// rtError is a run-time error of a kernel (a sub-array out of range, a key
// out of a dense result's range); panicked and recovered by Run.
type rtError struct{ msg string }

func (e *rtError) Error() string { return "exec: " + e.msg }

func rtErrorf(format string, args ...any) *rtError {
	return &rtError{fmt.Sprintf(format, args...)}
}

type inputSlot struct {
	name string
	t    sdql.Type
	ref  varRef
}

type compiler struct {
	info    *sdql.Info
	opts    Options
	dps     bool
	nf, ni  int
	nd      int
	nia     int
	nra     int
	scratch []*dictType
	inputs  []inputSlot
	globals *scope
	checks  []check // run-time validation of fast loops (fast.go)
	nhints  int
	types   map[string]*dictType
	fast    int // number of fast loops compiled (for tests)
	// splitRange is the range source the parallel executor splits
	splitRange *sdql.RangeExpr
	// topSum is the program when it is a sum into the result; overwrite is
	// set when its fast loop stores every key of its range (no clearing
	// needed there: Kernel.noClear)
	topSum    sdql.Expr
	overwrite *counted
}

func (c *compiler) fail(e sdql.Expr, format string, args ...any) {
	panic(compileError{fmt.Errorf("exec: %s: %s", e.Pos(), fmt.Sprintf(format, args...))})
}

func (c *compiler) typeOf(e sdql.Expr) sdql.Type {
	if t := c.info.Types[e]; t != nil {
		return t
	}
	return sdql.RealType
}

func kindOf(t sdql.Type) kind {
	switch t {
	case sdql.RealType:
		return kReal
	case sdql.IntType, sdql.DenseIntType:
		return kInt
	case sdql.BoolType:
		return kBool
	}
	return kDict
}

// dictTypeOf returns the (shared) run-time descriptor of a dictionary type.
func (c *compiler) dictTypeOf(t sdql.Type) *dictType {
	dt, ok := t.(*sdql.DictType)
	if !ok {
		panic(fmt.Sprintf("internal error: dictTypeOf(%v)", t))
	}
	key := dt.String()
	if d, ok := c.types[key]; ok {
		return d
	}
	d := &dictType{leaf: kindOf(dt.Val), index: c.opts.Dict, noDense: c.opts.NoDense}
	if d.leaf == kDict {
		d.child = c.dictTypeOf(dt.Val)
	}
	c.types[key] = d
	return d
}

func (c *compiler) newSlot(cls vclass) varRef {
	var s int
	switch cls {
	case vReal:
		s = c.nf
		c.nf++
	case vInt, vBool:
		s = c.ni
		c.ni++
	case vDict:
		s = c.nd
		c.nd++
	case vIntArr:
		s = c.nia
		c.nia++
	case vRealArr:
		s = c.nra
		c.nra++
	}
	return varRef{cls, s}
}

func classOf(t sdql.Type) vclass {
	switch kindOf(t) {
	case kReal:
		return vReal
	case kInt:
		return vInt
	case kBool:
		return vBool
	}
	return vDict
}

// physClass returns the class of a free variable: physical arrays
// ({dense_int -> int}, {dense_int -> real}) get array slots.
func physClass(t sdql.Type) vclass {
	if dt, ok := t.(*sdql.DictType); ok && dt.Key == sdql.DenseIntType {
		switch dt.Val {
		case sdql.IntType, sdql.DenseIntType:
			return vIntArr
		case sdql.RealType:
			return vRealArr
		}
	}
	return classOf(t)
}

func (c *compiler) bind(env *scope, b sdql.Binder, t sdql.Type) (*scope, varRef) {
	ref := c.newSlot(classOf(t))
	if b.Name == "_" {
		return env, ref
	}
	return &scope{b.Name, ref, env}, ref
}

func (c *compiler) ref(e *sdql.Ident, env *scope) varRef {
	if r, ok := env.lookup(e.Name); ok {
		return r
	}
	if r, ok := c.globals.lookup(e.Name); ok {
		return r
	}
	c.fail(e, "undefined: %s", e.Name)
	return varRef{}
}

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
