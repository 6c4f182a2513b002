package sdql

import (
	"fmt"
	"sort"
)

// CheckConfig configures Check.
type CheckConfig struct {
	// File names the source in error messages.
	File string
	// Inputs gives the types of free variables bound from outside (a matrix
	// file gives {int -> {int -> real}}, a number gives real).
	Inputs map[string]Type
	// Strict makes every free variable not in Inputs an error; otherwise
	// its type is inferred from how the program uses it.
	Strict bool
}

// Info is what Check learns about a program.
type Info struct {
	// Types gives the type of every sub-expression.
	Types map[Expr]Type
	// Free gives the type of every free variable (the program's inputs),
	// given or inferred.
	Free map[string]Type
	// Result is the type of the whole program.
	Result Type
}

// TypeOf returns the type of e, or nil when e was not part of the checked
// program.
func (in *Info) TypeOf(e Expr) Type { return in.Types[e] }

// FreeNames returns the names of the free variables, sorted.
func (in *Info) FreeNames() []string {
	var names []string
	for n := range in.Free {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Check infers the types of all sub-expressions and free variables of e
// (Fig. 4, with the extensions of doc/spec.md). Errors name positions; up to
// MaxErrors are reported at once as an ErrorList.
func Check(e Expr, cfg *CheckConfig) (*Info, error) {
	if cfg == nil {
		cfg = &CheckConfig{}
	}
	c := &checker{cfg: cfg, types: map[Expr]Type{}, free: map[string]Type{}}
	for name, t := range cfg.Inputs {
		c.free[name] = c.fill(t)
	}
	res := c.expr(e, nil, 0)
	c.solve(false)
	c.solve(true)
	// the checker's own map becomes the Info's, its types resolved in place
	info := &Info{Types: c.types, Free: make(map[string]Type, len(c.free))}
	for x, t := range c.types {
		c.types[x] = c.final(t)
	}
	for n, t := range c.free {
		info.Free[n] = c.final(t)
	}
	info.Result = c.final(res)
	if err := c.errs.Err(); err != nil {
		return info, err
	}
	return info, nil
}

// fill replaces the unknown parts (nil) of an input's type, as
// TypeOfValue gives them for empty dictionaries, by type variables: an
// unknown input is a dictionary of unknown values.
func (c *checker) fill(t Type) Type {
	switch tt := t.(type) {
	case nil:
		k := c.fresh()
		k.key = true
		return &DictType{Key: k, Val: c.fresh()}
	case *DictType:
		if tt.Val == nil {
			return &DictType{Key: tt.Key, Val: c.fresh()}
		}
		if v := c.fill(tt.Val); v != tt.Val {
			return &DictType{Key: tt.Key, Val: v}
		}
	}
	return t
}

type scope struct {
	name string
	t    Type
	next *scope
}

func (s *scope) lookup(name string) (Type, bool) {
	for ; s != nil; s = s.next {
		if s.name == name {
			return s.t, true
		}
	}
	return nil, false
}

// mulConstraint says res = a ⊗ b, solved once a's shape is known.
type mulConstraint struct {
	a, b, res Type
	pos       Pos
	depth     int // dictionary levels of a already peeled off
}

// MaxOrder bounds the order of the tensors a program may build: outer
// products double orders, so an unbounded chain of them would make types
// (and values) exponentially large.
const MaxOrder = 64

type checker struct {
	cfg   *CheckConfig
	types map[Expr]Type
	free  map[string]Type
	muls  []mulConstraint
	next  int
	errs  ErrorList
}

func (c *checker) fresh() *tvar {
	c.next++
	return &tvar{id: c.next}
}

func (c *checker) errorf(pos Pos, format string, args ...any) {
	if len(c.errs) < 4*MaxErrors {
		c.errs.Add(c.cfg.File, pos, format, args...)
	}
}

func (c *checker) unifyAt(pos Pos, a, b Type, context string) bool {
	da, db := describeType(a), describeType(b)
	if err := unify(a, b); err != nil {
		c.errorf(pos, "mismatched types in %s: %s and %s", context, da, db)
		return false
	}
	return true
}

// dictOf requires t to be a dictionary and returns its key and value types.
func (c *checker) dictOf(pos Pos, t Type, what string) (Type, Type, bool) {
	t = prune(t)
	switch tt := t.(type) {
	case *DictType:
		return tt.Key, tt.Val, true
	case *tvar:
		if !tt.numeric && !tt.key {
			k, v := c.fresh(), c.fresh()
			k.key = true
			d := &DictType{Key: k, Val: v}
			tt.ref = d
			return k, v, true
		}
	}
	c.errorf(pos, "%s %s (want a dictionary)", what, describeType(t))
	return c.fresh(), c.fresh(), false
}

func describeType(t Type) string {
	t = zonk(t)
	if v, ok := t.(*tvar); ok {
		if v.numeric || v.key {
			return "a number"
		}
		return "a value of unknown type"
	}
	return t.String()
}

func (c *checker) numericVar(lit bool) *tvar {
	v := c.fresh()
	v.numeric = true
	v.lit = lit
	return v
}

// isNum reports whether t is (or may only be) a number.
func isNum(t Type) bool {
	t = prune(t)
	switch t := t.(type) {
	case BasicType:
		return t == RealType || t == IntType || t == DenseIntType
	case *tvar:
		return t.numeric || t.key
	}
	return false
}

func (c *checker) record(e Expr, t Type) Type {
	c.types[e] = t
	return t
}

func (c *checker) expr(e Expr, env *scope, depth int) Type {
	if depth > 4*MaxDepth {
		c.errorf(e.Pos(), "expression nested too deeply")
		return c.record(e, c.fresh())
	}
	d := depth + 1
	switch e := e.(type) {
	case *Ident:
		if e.Name == "_" {
			c.errorf(e.NamePos, "_ binds nothing and cannot be used as a value")
			return c.record(e, c.fresh())
		}
		if t, ok := env.lookup(e.Name); ok {
			return c.record(e, t)
		}
		if t, ok := c.free[e.Name]; ok {
			return c.record(e, t)
		}
		if c.cfg.Strict {
			c.errorf(e.NamePos, "undefined: %s", e.Name)
		}
		t := c.fresh()
		c.free[e.Name] = t
		return c.record(e, t)
	case *IntLit:
		return c.record(e, c.numericVar(true))
	case *RealLit:
		return c.record(e, RealType)
	case *BoolLit:
		return c.record(e, BoolType)
	case *SumExpr:
		src := c.expr(e.Src, env, d)
		k, v, _ := c.dictOf(e.Src.Pos(), src, "cannot iterate over")
		if _, isRange := e.Src.(*RangeExpr); isRange {
			k = IntType
		}
		inner := env
		if e.Key.Name != "_" {
			inner = &scope{e.Key.Name, k, inner}
		}
		if e.Val.Name != "_" {
			inner = &scope{e.Val.Name, v, inner}
		}
		body := c.expr(e.Body, inner, d)
		if t, ok := prune(body).(BasicType); ok && t == DenseIntType {
			body = IntType
		}
		return c.record(e, body)
	case *DictExpr:
		kt, vt := c.fresh(), c.fresh()
		kt.key = true
		for _, en := range e.Entries {
			c.unifyAt(en.Key.Pos(), c.expr(en.Key, env, d), IntType, "dictionary key (keys are int)")
			c.unifyAt(en.Val.Pos(), c.expr(en.Val, env, d), vt, "dictionary values")
		}
		if len(e.Entries) > 0 {
			c.unifyAt(e.Lbrace, kt, IntType, "dictionary key")
		}
		return c.record(e, &DictType{Key: kt, Val: vt})
	case *LookupExpr:
		x := c.expr(e.X, env, d)
		k, v, _ := c.dictOf(e.X.Pos(), x, "cannot look up a key in")
		kt := c.expr(e.Key, env, d)
		if err := unify(kt, k); err != nil {
			if id, ok := e.X.(*Ident); ok && c.freeUnknown(id, env) {
				c.errorf(id.NamePos, "%s", UnknownFunction(id.Name))
			} else {
				c.errorf(e.Key.Pos(), "lookup key has type %s, want %s", describeType(kt), describeType(k))
			}
		}
		return c.record(e, v)
	case *SliceExpr:
		x := c.expr(e.X, env, d)
		c.dictOf(e.X.Pos(), x, "cannot take a sub-array of")
		c.unifyAt(e.Lo.Pos(), c.expr(e.Lo, env, d), IntType, "sub-array bound (want int)")
		c.unifyAt(e.Hi.Pos(), c.expr(e.Hi, env, d), IntType, "sub-array bound (want int)")
		return c.record(e, x)
	case *RangeExpr:
		c.unifyAt(e.Lo.Pos(), c.expr(e.Lo, env, d), IntType, "range bound (want int)")
		c.unifyAt(e.Hi.Pos(), c.expr(e.Hi, env, d), IntType, "range bound (want int)")
		return c.record(e, &DictType{Key: DenseIntType, Val: IntType})
	case *LetExpr:
		inner := env
		for i, n := range e.Names {
			t := c.expr(e.Values[i], inner, d)
			if n.Name != "_" {
				inner = &scope{n.Name, t, inner}
			}
		}
		return c.record(e, c.expr(e.Body, inner, d))
	case *IfExpr:
		c.unifyAt(e.Cond.Pos(), c.expr(e.Cond, env, d), BoolType, "if condition (want bool)")
		t := c.expr(e.Then, env, d)
		if e.Else != nil {
			c.arith(e.Else.Pos(), t, c.expr(e.Else, env, d), "the branches of if")
			t = c.promoted(t, c.types[e.Else])
		}
		return c.record(e, t)
	case *UnaryExpr:
		x := c.expr(e.X, env, d)
		if e.Op == NOT {
			c.unifyAt(e.X.Pos(), x, BoolType, "not (want bool)")
			return c.record(e, BoolType)
		}
		if t, ok := prune(x).(BasicType); ok && t == BoolType {
			c.errorf(e.OpPos, "cannot negate bool")
		}
		return c.record(e, x)
	case *BinaryExpr:
		return c.record(e, c.binary(e, env, d))
	case *CallExpr:
		for _, a := range []Expr{e.X, e.Y} {
			if a == nil {
				continue
			}
			if x := c.expr(a, env, d); !isNum(x) {
				c.unifyAt(a.Pos(), x, RealType, e.Op+" (want a real)")
			}
		}
		return c.record(e, RealType)
	case *UniqueExpr:
		x := c.expr(e.X, env, d)
		c.unifyAt(e.X.Pos(), x, IntType, "unique (want an int key)")
		return c.record(e, IntType)
	case *ZeroExpr:
		return c.record(e, e.T)
	case *OneHotExpr:
		x := c.expr(e.X, env, d)
		c.unifyAt(e.X.Pos(), x, e.T, "onehot")
		if Order(e.T) < 0 {
			c.errorf(e.OneHot, "onehot needs a real tensor type, not %s", e.T)
		}
		return c.record(e, Outer(e.T, e.T))
	}
	panic(fmt.Sprintf("internal error: check of %T", e))
}

// freeUnknown reports whether id is a free variable whose type is not
// given (in Strict mode, one that is undefined).
func (c *checker) freeUnknown(id *Ident, env *scope) bool {
	if _, bound := env.lookup(id.Name); bound {
		return false
	}
	_, given := c.cfg.Inputs[id.Name]
	return !given
}

// promoted returns the type of an arithmetic result of a and b: real when
// one is real and the other int, else a.
func (c *checker) promoted(a, b Type) Type {
	pa, pb := prune(a), prune(b)
	if pa == RealType || pb == RealType {
		if isNum(pa) && isNum(pb) {
			return RealType
		}
	}
	return a
}

// arith makes a and b the same type for + - and if branches, allowing int
// and real scalars to mix (the int is promoted).
func (c *checker) arith(pos Pos, a, b Type, context string) bool {
	pa, pb := prune(a), prune(b)
	ba, oka := pa.(BasicType)
	bb, okb := pb.(BasicType)
	if oka && okb && isNum(ba) && isNum(bb) {
		return true
	}
	if oka && isNum(ba) && isNum(pb) || okb && isNum(bb) && isNum(pa) {
		if v, ok := pa.(*tvar); ok && v.lit {
			return c.unifyAt(pos, pa, pb, context)
		} else if v, ok := pb.(*tvar); ok && v.lit {
			return c.unifyAt(pos, pa, pb, context)
		}
		return true
	}
	return c.unifyAt(pos, a, b, context)
}

func (c *checker) binary(e *BinaryExpr, env *scope, d int) Type {
	x := c.expr(e.X, env, d)
	y := c.expr(e.Y, env, d)
	switch e.Op {
	case ADD, SUB:
		if !c.arith(e.OpPos, x, y, "'"+e.Op.String()+"'") {
			return c.fresh() // reported; do not cascade
		}
		t := c.promoted(x, y)
		if e.Op == SUB {
			if b, ok := prune(t).(BasicType); ok && b == BoolType {
				c.errorf(e.OpPos, "cannot subtract bool values")
			}
		}
		if b, ok := prune(t).(BasicType); ok && b == DenseIntType {
			t = IntType
		}
		return t
	case MUL:
		res := c.fresh()
		// a product of numbers is a number (it may still be int or real)
		res.numeric = isNum(x) && isNum(y)
		c.muls = append(c.muls, mulConstraint{a: x, b: y, res: res, pos: e.OpPos})
		c.solve(false)
		return res
	case QUO:
		if !isNum(y) {
			c.unifyAt(e.Y.Pos(), y, RealType, "'/' (want a number on the right)")
		}
		if isNum(x) {
			return RealType
		}
		return scaleToReal(x)
	case LAND, LOR:
		c.unifyAt(e.X.Pos(), x, BoolType, "'"+e.Op.String()+"' (want bool)")
		c.unifyAt(e.Y.Pos(), y, BoolType, "'"+e.Op.String()+"' (want bool)")
		return BoolType
	default: // comparisons
		c.arith(e.OpPos, x, y, "comparison")
		if _, ok := prune(x).(*DictType); ok {
			c.errorf(e.OpPos, "cannot compare dictionaries")
		}
		return BoolType
	}
}

// scaleToReal is the type of a tensor divided by a number.
func scaleToReal(t Type) Type { return t }

// solve works on the pending multiplications. With final set it first
// defaults the unknown left operands to real.
func (c *checker) solve(final bool) {
	for {
		progress := false
		pending := c.muls[:0:0]
		for _, m := range c.muls {
			if c.stepMul(m, &pending) {
				progress = true
			}
		}
		c.muls = pending
		if progress {
			continue
		}
		if !final || len(c.muls) == 0 {
			return
		}
		// default one unresolved operand and go on
		m := c.muls[0]
		// the right operand first: in D ⊗ x the unknown is more often the
		// scalar than the tensor (tangents multiply primal scalars)
		if v, ok := prune(m.b).(*tvar); ok {
			c.defaultVar(v)
		} else if v, ok := prune(m.a).(*tvar); ok {
			c.defaultVar(v)
		}
	}
}

func (c *checker) defaultVar(v *tvar) {
	if v.lit {
		v.ref = IntType
	} else {
		v.ref = RealType
	}
}

// stepMul tries to make progress on one multiplication; unsolvable parts are
// appended to pending.
func (c *checker) stepMul(m mulConstraint, pending *[]mulConstraint) bool {
	a, b := prune(m.a), prune(m.b)
	switch at := a.(type) {
	case *DictType:
		if m.depth >= MaxOrder {
			c.errorf(m.pos, "the product has a tensor order above %d", MaxOrder)
			return true
		}
		inner := c.fresh()
		c.unifyAt(m.pos, m.res, &DictType{Key: at.Key, Val: inner}, "'*'")
		*pending = append(*pending, mulConstraint{a: at.Val, b: m.b, res: inner, pos: m.pos, depth: m.depth + 1})
		return true
	case BasicType:
		if at == BoolType {
			c.unifyAt(m.pos, b, BoolType, "'*' of bool")
			c.unifyAt(m.pos, m.res, BoolType, "'*'")
			return true
		}
		switch bt := b.(type) {
		case *DictType:
			if m.depth+typeDepth(bt) > MaxOrder {
				c.errorf(m.pos, "the product has a tensor order above %d", MaxOrder)
				return true
			}
			c.unifyAt(m.pos, m.res, bt, "'*'")
			return true
		case BasicType:
			if bt == BoolType {
				c.errorf(m.pos, "mismatched types in '*': %s and bool", at)
				return true
			}
			r := RealType
			if key(at) == IntType && key(bt) == IntType {
				r = IntType
			}
			c.unifyAt(m.pos, m.res, r, "'*'")
			return true
		case *tvar:
			if bt.lit && at != IntType && at != DenseIntType {
				// the literal takes the other operand's type; the product
				// is then solved on the next step
				c.unifyAt(m.pos, bt, at, "'*'")
				*pending = append(*pending, m)
				return true
			}
			if bt.numeric || bt.key {
				if at == RealType {
					c.unifyAt(m.pos, m.res, RealType, "'*'")
					return true
				}
			} else if at == RealType {
				// real ⊗ D = D
				c.unifyAt(m.pos, m.res, bt, "'*'")
				return true
			}
		}
	case *tvar:
		if bt, ok := b.(BasicType); ok && at.lit && bt != BoolType {
			// as above: the literal is typed, the product still to solve
			// (dropping it left 2 * k unconstrained, defaulted to real
			// under an int sum: j + 2 * k was an int of a real term)
			c.unifyAt(m.pos, at, key(bt), "'*'")
			*pending = append(*pending, m)
			return true
		}
		if b == RealType && !at.numeric && !at.key {
			// D ⊗ real = D for real tensors D
			c.unifyAt(m.pos, m.res, at, "'*'")
			return true
		}
	}
	*pending = append(*pending, m)
	return false
}

// final resolves t for the Info: unsolved variables get their defaults
// (int for integer literals, int for keys, real otherwise).
func (c *checker) final(t Type) Type {
	t = prune(t)
	switch tt := t.(type) {
	case *tvar:
		switch {
		case tt.lit, tt.key:
			tt.ref = IntType
		default:
			tt.ref = RealType
		}
		return tt.ref
	case *DictType:
		// types are immutable: one that holds no variable is shared
		k, v := c.final(tt.Key), c.final(tt.Val)
		if k == tt.Key && v == tt.Val {
			return tt
		}
		return &DictType{Key: k, Val: v}
	}
	return t
}

// TypeOfValue returns the type of a run-time value. Parts the value does
// not show are nil: an empty dictionary gives nil, {2 -> {}} gives
// {int -> nil}. Check treats nil parts of its inputs as unknown.
func TypeOfValue(v Value) Type {
	switch v := v.(type) {
	case Real:
		return RealType
	case Int:
		return IntType
	case Bool:
		return BoolType
	case IntArray, Range:
		return &DictType{Key: DenseIntType, Val: IntType}
	case RealArray:
		return &DictType{Key: DenseIntType, Val: RealType}
	case SubArray:
		return TypeOfValue(v.Arr)
	case *Dict:
		// the most complete type among the values: {2 -> {}} is at least a
		// matrix even though its leaves are unknown
		var vt Type
		v.Range(func(_ int, x Value) bool {
			if xt := TypeOfValue(x); known(xt) > known(vt) {
				vt = xt
			}
			return !complete(vt)
		})
		if v.Len() == 0 {
			return nil
		}
		return &DictType{Key: IntType, Val: vt}
	}
	return nil
}

// known counts the levels of t that are known; complete reports a type
// with no unknown part.
func known(t Type) int {
	switch t := t.(type) {
	case nil:
		return 0
	case *DictType:
		return 1 + known(t.Val)
	}
	return 1
}

func complete(t Type) bool {
	switch t := t.(type) {
	case nil:
		return false
	case *DictType:
		return complete(t.Val)
	}
	return true
}

// typeDepth is the number of dictionary levels of t.
func typeDepth(t Type) int {
	n := 0
	for {
		d, ok := prune(t).(*DictType)
		if !ok {
			return n
		}
		n++
		t = d.Val
	}
}
