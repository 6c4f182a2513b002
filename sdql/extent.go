package sdql

import "fmt"

// Bound is what is known of a set of integers: the keys of one level of a
// dictionary, or the values an int expression takes. The zero Bound knows
// nothing. A Bound is an over-approximation: every key or value is within
// it, not every point of it is taken.
type Bound struct {
	// Empty: there is no key at all (the keys of {} or zero[T]).
	Empty bool
	// Known: every element lies in Lo..Hi (inclusive).
	Known  bool
	Lo, Hi int
	// KeysOf, when not "", says every element is a key of mode Mode of the
	// input KeysOf (that is, of its stored positions at that depth).
	KeysOf string
	Mode   int
}

// Within reports whether every element is known to lie in 0..n-1.
func (b Bound) Within(n int) bool { return b.Empty || b.Known && b.Lo >= 0 && b.Hi < n }

// IsKeysOf reports whether every element is known to be a key of mode m of
// the input name.
func (b Bound) IsKeysOf(name string, m int) bool {
	return b.Empty || b.KeysOf == name && b.Mode == m
}

// String prints the bound: "0..4", "keys of x/0", "0..4, keys of x/0",
// "empty" or "?".
func (b Bound) String() string {
	switch {
	case b.Empty:
		return "empty"
	case b.Known && b.KeysOf != "":
		return fmt.Sprintf("%d..%d, keys of %s/%d", b.Lo, b.Hi, b.KeysOf, b.Mode)
	case b.Known:
		return fmt.Sprintf("%d..%d", b.Lo, b.Hi)
	case b.KeysOf != "":
		return fmt.Sprintf("keys of %s/%d", b.KeysOf, b.Mode)
	}
	return "?"
}

// hull is the least Bound containing a and b.
func hull(a, b Bound) Bound {
	switch {
	case a.Empty:
		return b
	case b.Empty:
		return a
	}
	var h Bound
	if a.Known && b.Known {
		h.Known, h.Lo, h.Hi = true, min(a.Lo, b.Lo), max(a.Hi, b.Hi)
	}
	if a.KeysOf != "" && a.KeysOf == b.KeysOf && a.Mode == b.Mode {
		h.KeysOf, h.Mode = a.KeysOf, a.Mode
	}
	return h
}

func hulls(a, b []Bound) []Bound {
	n := max(len(a), len(b))
	out := make([]Bound, n)
	for i := range out {
		switch {
		case i >= len(a):
			if len(a) > 0 && a[0].Empty {
				out[i] = b[i]
			}
		case i >= len(b):
			if len(b) > 0 && b[0].Empty {
				out[i] = a[i]
			}
		default:
			out[i] = hull(a[i], b[i])
		}
	}
	return out
}

func exact(v int) Bound { return Bound{Known: true, Lo: v, Hi: v} }

// Extents is what AnalyzeExtents learns of a program's keys.
type Extents struct {
	// Result bounds the keys of the program's result, one Bound per level
	// of a dictionary (outermost first), or its value for an int.
	Result []Bound
	// Names bounds every name the program binds (sum keys and values, let
	// names), over all its bindings: an int's values in Names[n][0], a
	// dictionary's keys per level. A name bound in several places (the
	// program need not have unique names) gets the hull of its bindings.
	Names map[string][]Bound
	// Lookups bounds, for every lookup X(Key) of a logical dictionary, the
	// keys of the level X looks into (Dict) and the key (Key): a shape
	// check compares them.
	Lookups []LookupExtent
}

// LookupExtent is what AnalyzeExtents learns of one lookup.
type LookupExtent struct {
	Expr      *LookupExpr
	Dict, Key Bound
}

// AnalyzeExtents bounds the keys of a program's dictionaries and the
// values of its int expressions from the extents of its tensor inputs:
// dims[x][m] is the extent of mode m of input x (keys 0..dims[x][m]-1).
// Inputs of a dictionary type without dims still bound their keys
// symbolically (Bound.KeysOf). inputs gives the types of the program's
// inputs, as for Check; the program must type-check.
//
// It is the analysis behind a result's shape (its key ranges, from the
// inputs' shapes through the program) and behind fuse's inextent rule
// condition: a lookup x(k) with k bounded within x's extent reads a stored
// key of a dense x.
func AnalyzeExtents(e Expr, inputs map[string]Type, dims map[string][]int) (*Extents, error) {
	types := map[string]Type{}
	for n, ds := range dims {
		types[n] = Tensor(len(ds)) // an input with dims is a real tensor of their order
	}
	for n, t := range inputs {
		types[n] = t
	}
	info, err := Check(e, &CheckConfig{Inputs: types})
	if err != nil {
		return nil, err
	}
	a := &extents{info: info, dims: dims, names: map[string][]Bound{}}
	res := a.eval(e, nil)
	return &Extents{Result: res, Names: a.names, Lookups: a.lookups}, nil
}

type extents struct {
	info    *Info
	dims    map[string][]int
	names   map[string][]Bound
	lookups []LookupExtent
}

// xenv binds names to what is known of them while walking.
type xenv struct {
	name string
	b    []Bound
	next *xenv
}

func (a *extents) bind(env *xenv, name string, b []Bound) *xenv {
	if name == "_" || name == "" {
		return env
	}
	if old, ok := a.names[name]; ok {
		a.names[name] = hulls(old, b)
	} else {
		a.names[name] = b
	}
	return &xenv{name, b, env}
}

func (a *extents) isDict(e Expr) bool {
	_, ok := a.info.Types[e].(*DictType)
	return ok
}

func (a *extents) isInt(e Expr) bool {
	t := a.info.Types[e]
	return t == IntType || t == DenseIntType
}

// input bounds the keys of a free variable from its dims, or symbolically.
func (a *extents) input(name string) []Bound {
	order := Order(a.info.Free[name])
	if _, isDict := a.info.Free[name].(*DictType); !isDict {
		return nil
	}
	ds := a.dims[name]
	out := make([]Bound, max(order, 1))
	for m := range out {
		out[m] = Bound{KeysOf: name, Mode: m}
		if m < len(ds) {
			out[m].Known, out[m].Lo, out[m].Hi = true, 0, ds[m]-1
			if ds[m] <= 0 {
				out[m] = Bound{Empty: true}
			}
		}
	}
	return out
}

func (a *extents) eval(e Expr, env *xenv) []Bound {
	switch e := e.(type) {
	case *Ident:
		for s := env; s != nil; s = s.next {
			if s.name == e.Name {
				return s.b
			}
		}
		return a.input(e.Name)
	case *IntLit:
		return []Bound{exact(e.Value)}
	case *SumExpr:
		src := a.eval(e.Src, env)
		var key, val []Bound
		switch s := e.Src.(type) {
		case *RangeExpr:
			key = src
			val = src // a range's values are its keys
		case *SliceExpr:
			key = src
			val = []Bound{{}} // an array's contents are not bounded
			_ = s
		default:
			if len(src) > 0 {
				key = src[:1]
				val = src[1:]
			}
			if len(src) > 0 && src[0].Empty {
				val = []Bound{{Empty: true}}
			}
		}
		env2 := a.bind(env, e.Key.Name, key)
		env2 = a.bind(env2, e.Val.Name, val)
		return a.eval(e.Body, env2)
	case *DictExpr:
		if len(e.Entries) == 0 {
			return []Bound{{Empty: true}}
		}
		var out []Bound
		for i, en := range e.Entries {
			k := a.eval(en.Key, env)
			kb := Bound{}
			if len(k) > 0 {
				kb = k[0]
			}
			lv := append([]Bound{kb}, a.eval(en.Val, env)...)
			if kb.Empty {
				lv = []Bound{kb} // a key that is never computed: no entry
			}
			if i == 0 {
				out = lv
			} else {
				out = hulls(out, lv)
			}
		}
		return out
	case *LookupExpr:
		x := a.eval(e.X, env)
		k := a.eval(e.Key, env)
		if dt, ok := a.info.Types[e.X].(*DictType); ok && dt.Key != DenseIntType && len(x) > 0 && len(k) == 1 {
			a.lookups = append(a.lookups, LookupExtent{Expr: e, Dict: x[0], Key: k[0]})
		}
		if !a.isDict(e) && !a.isInt(e) {
			return nil
		}
		if _, physical := a.info.Types[e.X].(*DictType); physical && a.info.Types[e.X].(*DictType).Key == DenseIntType {
			return []Bound{{}} // an array's contents
		}
		if len(x) > 1 {
			return x[1:]
		}
		if len(x) == 1 && x[0].Empty {
			return []Bound{{Empty: true}}
		}
		return []Bound{{}}
	case *SliceExpr:
		a.eval(e.X, env)
		return []Bound{rangeBound(a.eval(e.Lo, env), a.eval(e.Hi, env))}
	case *RangeExpr:
		return []Bound{rangeBound(a.eval(e.Lo, env), a.eval(e.Hi, env))}
	case *LetExpr:
		for i, n := range e.Names {
			env = a.bind(env, n.Name, a.eval(e.Values[i], env))
		}
		return a.eval(e.Body, env)
	case *IfExpr:
		a.eval(e.Cond, env)
		t := a.eval(e.Then, env)
		if e.Else == nil {
			return t
		}
		return hulls(t, a.eval(e.Else, env))
	case *UnaryExpr:
		x := a.eval(e.X, env)
		if e.Op == SUB && a.isInt(e) && len(x) == 1 && x[0].Known {
			return []Bound{{Known: true, Lo: -x[0].Hi, Hi: -x[0].Lo}}
		}
		if a.isDict(e) {
			return x
		}
		if a.isInt(e) {
			return []Bound{{}}
		}
		return nil
	case *BinaryExpr:
		return a.binary(e, env)
	case *UniqueExpr:
		return a.eval(e.X, env)
	case *ZeroExpr:
		if _, ok := e.T.(*DictType); ok {
			return []Bound{{Empty: true}}
		}
		return nil
	case *OneHotExpr:
		x := a.eval(e.X, env)
		n := Order(e.T)
		if n <= 0 {
			return nil
		}
		lv := make([]Bound, n)
		copy(lv, x)
		return append(lv, lv...)
	case *CallExpr:
		a.eval(e.X, env)
		if e.Y != nil {
			a.eval(e.Y, env)
		}
		return nil
	}
	for _, k := range Children(e) {
		a.eval(k, env)
	}
	if a.isInt(e) {
		return []Bound{{}}
	}
	return nil
}

// rangeBound bounds the keys of (lo:hi).
func rangeBound(lo, hi []Bound) Bound {
	if len(lo) == 1 && len(hi) == 1 && lo[0].Known && hi[0].Known {
		if hi[0].Hi <= lo[0].Lo {
			return Bound{Empty: true}
		}
		return Bound{Known: true, Lo: lo[0].Lo, Hi: hi[0].Hi - 1}
	}
	return Bound{}
}

func (a *extents) binary(e *BinaryExpr, env *xenv) []Bound {
	x, y := a.eval(e.X, env), a.eval(e.Y, env)
	if a.isInt(e) {
		if len(x) != 1 || len(y) != 1 || !x[0].Known || !y[0].Known {
			return []Bound{{}}
		}
		p, q := x[0], y[0]
		switch e.Op {
		case ADD:
			return []Bound{{Known: true, Lo: p.Lo + q.Lo, Hi: p.Hi + q.Hi}}
		case SUB:
			return []Bound{{Known: true, Lo: p.Lo - q.Hi, Hi: p.Hi - q.Lo}}
		case MUL:
			c := []int{p.Lo * q.Lo, p.Lo * q.Hi, p.Hi * q.Lo, p.Hi * q.Hi}
			return []Bound{{Known: true, Lo: min(c[0], c[1], c[2], c[3]), Hi: max(c[0], c[1], c[2], c[3])}}
		}
		return []Bound{{}}
	}
	if !a.isDict(e) {
		return nil
	}
	xd, yd := a.isDict(e.X), a.isDict(e.Y)
	switch {
	case e.Op == ADD || e.Op == SUB:
		return hulls(x, y)
	case e.Op == MUL && xd && yd:
		// the outer product: x's levels, then y's
		n := Order(a.info.Types[e.X])
		lv := make([]Bound, n)
		copy(lv, x)
		if len(x) > 0 && x[0].Empty || len(y) > 0 && y[0].Empty {
			return []Bound{{Empty: true}}
		}
		return append(lv, y...)
	case xd:
		return x
	case yd:
		return y
	}
	return nil
}
