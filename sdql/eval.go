package sdql

import (
	"errors"
	"fmt"
	"math"
	"runtime/metrics"
	"sort"
	"sync"
)

// Eval type-checks e against its inputs (every free variable must be
// bound) and evaluates it with the reference interpreter.
func Eval(e Expr, inputs map[string]Value) (Value, error) {
	in := &Interp{}
	return in.Eval(e, inputs)
}

// Interp is the reference interpreter: the oracle for every other stage.
// It favours clarity over speed, but evaluates the paper's kernels on a
// 10,000 × 10,000 matrix with 100,000 entries in seconds.
type Interp struct {
	// File names the source in error messages.
	File string
	// Ops counts the scalar operations (+, *, -, /, ops, comparisons, each
	// scalar of an element-wise operation on dictionaries) and dictionary
	// entries written: Work.Arith + Work.Writes. It lets tests check that an
	// optimized program does asymptotically less work.
	Ops int64
	// Work counts the operations by kind, lookups and iterations included.
	Work Work
	// MemoryLimit, when positive, bounds in bytes the Go heap a run may
	// take: a dictionary a sum builds growing past it (at InterpEntryBytes
	// a key) is a run-time error at the sum, not an exhausted machine.
	MemoryLimit int64
	// NonFinite, when set, is called with every operation whose result
	// is less finite than its operands: a NaN from operands without one
	// (inf / inf, 0 * inf, log(-1)), or an infinity from finite operands
	// (exp(800), an overflow); the operation is an arithmetic operator, an
	// op such as exp (a *BinaryExpr or a *CallExpr, also on dictionaries)
	// or a sum's addition of reals (the *SumExpr). args are the operands
	// when they are scalars (nil for dictionaries), result the result's
	// first new NaN or infinity.
	// Returning false stops the run: Run returns ErrStopped. It costs
	// the run a check of every operation: it is for finding where a
	// value stops being finite, not for every run.
	NonFinite func(at Expr, args []float64, result float64) bool
	// MaxOps, when positive, stops a run whose Ops pass it: Run returns
	// ErrMaxOps (checked once a sum's iteration).
	MaxOps int64
}

// ErrStopped is Run's error when Interp.NonFinite stopped the run.
var ErrStopped = errors.New("the run was stopped")

// ErrMaxOps is Run's error when a run passed Interp.MaxOps operations.
var ErrMaxOps = errors.New("the run passed its operation budget")

// stopPanic unwinds a run that NonFinite or MaxOps stopped.
type stopPanic struct{ err error }

// InterpEntryBytes is the least memory the interpreter's dictionaries take
// per key (the key, the boxed value, the index's entry).
const InterpEntryBytes = 64

// Eval checks e strictly against the inputs and evaluates it.
func (in *Interp) Eval(e Expr, inputs map[string]Value) (Value, error) {
	types := map[string]Type{}
	for n, v := range inputs {
		types[n] = TypeOfValue(v)
	}
	info, err := Check(e, &CheckConfig{File: in.File, Inputs: types, Strict: true})
	if err != nil {
		return nil, err
	}
	return in.Run(e, info, inputs)
}

// RuntimeError is an error raised while evaluating, at a position.
type RuntimeError = Error

type runtimePanic struct{ err *Error }

// Run evaluates a checked program.
func (in *Interp) Run(e Expr, info *Info, inputs map[string]Value) (v Value, err error) {
	r := &run{in: in, info: info}
	var env *venv
	names := make([]string, 0, len(inputs))
	for n := range inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		env = &venv{n, inputs[n], env}
	}
	defer func() {
		if p := recover(); p != nil {
			if sp, ok := p.(stopPanic); ok {
				v, err = nil, sp.err
				return
			}
			rp, ok := p.(runtimePanic)
			if !ok {
				panic(p)
			}
			err = rp.err
		}
	}()
	return r.eval(e, env), nil
}

type venv struct {
	name string
	v    Value
	next *venv
}

type run struct {
	in   *Interp
	info *Info
	at   Pos // the innermost sum being accumulated, for MemoryLimit's error
}

func (r *run) fail(pos Pos, format string, args ...any) {
	panic(runtimePanic{&Error{File: r.in.File, Pos: pos, Msg: fmt.Sprintf(format, args...)}})
}

func (r *run) typeOf(e Expr) Type {
	if t := r.info.Types[e]; t != nil {
		return t
	}
	return RealType
}

// Zero returns the zero of a type: 0, 0.0, false or the empty dictionary.
func Zero(t Type) Value {
	switch t {
	case RealType:
		return Real(0)
	case IntType, DenseIntType:
		return Int(0)
	case BoolType:
		return Bool(false)
	}
	return NewDict()
}

func (r *run) eval(e Expr, env *venv) Value {
	switch e := e.(type) {
	case *Ident:
		for s := env; s != nil; s = s.next {
			if s.name == e.Name {
				return s.v
			}
		}
		r.fail(e.NamePos, "undefined: %s", e.Name)
	case *IntLit:
		if r.typeOf(e) == RealType {
			return Real(e.Value)
		}
		return Int(e.Value)
	case *RealLit:
		return Real(e.Value)
	case *BoolLit:
		return Bool(e.Value)
	case *SumExpr:
		return r.sum(e, env)
	case *DictExpr:
		d := NewDict()
		for _, en := range e.Entries {
			k := r.key(en.Key, env)
			v := r.eval(en.Val, env)
			if old, ok := d.Get(k); ok {
				v = Add(old, v)
				r.in.count(v)
			}
			d.Set(k, v)
			r.in.Ops++
			r.in.Work.Writes++
		}
		return d
	case *LookupExpr:
		x := r.eval(e.X, env)
		k := r.key(e.Key, env)
		r.in.Work.Lookups++
		if v, ok := Lookup(x, k); ok {
			return r.coerce(v, r.typeOf(e))
		}
		return Zero(r.typeOf(e))
	case *SliceExpr:
		x := r.eval(e.X, env)
		lo, hi := r.key(e.Lo, env), r.key(e.Hi, env)
		n := 0
		switch a := x.(type) {
		case IntArray:
			n = len(a)
		case RealArray:
			n = len(a)
		case SubArray:
			x, n = a.Arr, a.Hi
		default:
			r.fail(e.X.Pos(), "a sub-array needs a physical array, not %T", x)
		}
		if lo < 0 || hi > n || lo > hi {
			r.fail(e.Lo.Pos(), "sub-array %d:%d out of range of an array of length %d", lo, hi, n)
		}
		return SubArray{Arr: x, Lo: lo, Hi: hi}
	case *RangeExpr:
		return Range{Lo: r.key(e.Lo, env), Hi: r.key(e.Hi, env)}
	case *LetExpr:
		for i, n := range e.Names {
			v := r.eval(e.Values[i], env)
			env = &venv{n.Name, v, env}
		}
		return r.eval(e.Body, env)
	case *IfExpr:
		if r.eval(e.Cond, env).(Bool) {
			return r.coerce(r.eval(e.Then, env), r.typeOf(e))
		}
		if e.Else != nil {
			return r.coerce(r.eval(e.Else, env), r.typeOf(e))
		}
		return Zero(r.typeOf(e))
	case *UnaryExpr:
		x := r.eval(e.X, env)
		if e.Op == NOT {
			return !x.(Bool)
		}
		out := Neg(x)
		r.in.count(out)
		return out
	case *BinaryExpr:
		return r.binary(e, env)
	case *CallExpr:
		x, _ := scalarOf(r.eval(e.X, env))
		var y float64
		if e.Y != nil {
			y, _ = scalarOf(r.eval(e.Y, env))
		}
		r.in.Ops++
		r.in.Work.Arith++
		v := Ops[e.Op].Apply(x, y)
		if r.in.NonFinite != nil && !isFinite(v) {
			args := []float64{x}
			if e.Y != nil {
				args = append(args, y)
			}
			r.scalarsNonFinite(e, args, v)
		}
		return Real(v)
	case *UniqueExpr:
		return r.eval(e.X, env)
	case *ZeroExpr:
		return Zero(e.T)
	case *OneHotExpr:
		return OneHot(r.eval(e.X, env), Order(e.T))
	}
	panic(fmt.Sprintf("internal error: eval of %T", e))
}

// coerce turns an Int into a Real where the checker typed the value real.
func (r *run) coerce(v Value, t Type) Value {
	if i, ok := v.(Int); ok && t == RealType {
		return Real(i)
	}
	return v
}

func (r *run) key(e Expr, env *venv) int {
	switch k := r.eval(e, env).(type) {
	case Int:
		return int(k)
	case Real:
		if float64(k) == math.Trunc(float64(k)) {
			return int(k)
		}
		r.fail(e.Pos(), "key %s is not an integer", FormatReal(float64(k)))
	}
	r.fail(e.Pos(), "key is not an integer")
	return 0
}

// sum folds the body over the source's entries with semi-ring addition,
// accumulating in place into a value it owns.
func (r *run) sum(e *SumExpr, env *venv) Value {
	src := r.eval(e.Src, env)
	bodyType := r.typeOf(e)
	bind := func(k int, v Value) *venv {
		inner := env
		if e.Key.Name != "_" {
			inner = &venv{e.Key.Name, Int(k), inner}
		}
		if e.Val.Name != "_" {
			inner = &venv{e.Val.Name, v, inner}
		}
		return inner
	}
	if bodyType == RealType {
		acc := 0.0
		Entries(src, func(k int, v Value) bool {
			x, _ := scalarOf(r.eval(e.Body, bind(k, v)))
			if r.in.NonFinite != nil && !isFinite(acc+x) {
				r.scalarsNonFinite(e, []float64{acc, x}, acc+x)
			}
			acc += x
			r.in.Ops++
			r.in.Work.Iters++
			r.in.Work.Arith++
			r.budget()
			return true
		})
		return Real(acc)
	}
	var acc Value
	Entries(src, func(k int, v Value) bool {
		x := r.eval(e.Body, bind(k, v))
		r.in.Work.Iters++
		r.budget()
		if acc == nil {
			acc = own(x)
			_, entries := size(acc)
			r.in.Work.Writes += entries
		} else {
			saved := r.at
			r.at = e.Sum
			acc = r.addInto(acc, x)
			r.at = saved
		}
		return true
	})
	if acc == nil {
		return Zero(bodyType)
	}
	return r.coerce(acc, bodyType)
}

// own returns a copy of v that an accumulator may mutate: dictionaries are
// copied deeply, scalars are immutable anyway.
func own(v Value) Value {
	switch v.(type) {
	case Real, Int, Bool, nil:
		return v
	}
	d := NewDict()
	Entries(v, func(k int, x Value) bool {
		d.Set(k, own(x))
		return true
	})
	return d
}

// addInto adds x into the owned accumulator acc and returns the result.
func (r *run) addInto(acc, x Value) Value {
	d, ok := acc.(*Dict)
	if !ok {
		r.in.Ops++
		r.in.Work.Arith++
		return Add(acc, x)
	}
	Entries(x, func(k int, v Value) bool {
		r.in.Ops++
		r.in.Work.Writes++
		if old, found := d.Get(k); found {
			d.Set(k, r.addInto(old, v))
		} else {
			c := own(v)
			_, entries := size(c)
			r.in.Work.Writes += entries
			d.Set(k, c)
			if n := d.Len(); r.in.MemoryLimit > 0 && n >= 1024 && n&(n-1) == 0 {
				// growing to 2n keys takes new arrays beside the old ones
				more := float64(2 * n * InterpEntryBytes)
				if heap := HeapBytes(); more > float64(r.in.MemoryLimit) || heap+more > float64(r.in.MemoryLimit) {
					r.fail(r.at, "the dictionary this sum builds has %d keys and grows: the run needs more than %s, over the memory limit of %s",
						n, FormatBytes(heap+more), FormatBytes(float64(r.in.MemoryLimit)))
				}
			}
		}
		return true
	})
	return d
}

func (r *run) binary(e *BinaryExpr, env *venv) Value {
	switch e.Op {
	case LAND:
		if !r.eval(e.X, env).(Bool) {
			return Bool(false)
		}
		return r.eval(e.Y, env).(Bool)
	case LOR:
		if r.eval(e.X, env).(Bool) {
			return Bool(true)
		}
		return r.eval(e.Y, env).(Bool)
	}
	x, y := r.eval(e.X, env), r.eval(e.Y, env)
	t := r.typeOf(e)
	var out Value
	switch e.Op {
	case ADD:
		out = r.coerce(Add(x, y), t)
	case SUB:
		out = r.coerce(Add(x, Neg(y)), t)
	case MUL:
		out = r.coerce(Mul(x, y), t)
	case QUO:
		d, _ := scalarOf(y)
		out = Scale(x, 1/d, func(a float64) float64 { return a / d })
	}
	if out != nil {
		r.in.count(out)
		if r.in.NonFinite != nil {
			r.checkFinite(e, out, x, y)
		}
		return out
	}
	r.in.Ops++
	r.in.Work.Arith++
	// comparisons
	if bx, ok := x.(Bool); ok {
		by := y.(Bool)
		switch e.Op {
		case EQ:
			return Bool(bx == by)
		case NEQ:
			return Bool(bx != by)
		}
		r.fail(e.OpPos, "cannot order bool values")
	}
	a, _ := scalarOf(x)
	b, _ := scalarOf(y)
	switch e.Op {
	case EQ:
		return Bool(a == b)
	case NEQ:
		return Bool(a != b)
	case LT:
		return Bool(a < b)
	case LEQ:
		return Bool(a <= b)
	case GT:
		return Bool(a > b)
	case GEQ:
		return Bool(a >= b)
	}
	panic("internal error: unknown operator " + e.Op.String())
}

var heapSample = struct {
	sync.Mutex
	s []metrics.Sample
}{s: []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}}

// HeapBytes is the bytes of the Go heap's objects: what Interp.MemoryLimit
// bounds, and what exec's kernels check their growth against.
func HeapBytes() float64 {
	heapSample.Lock()
	defer heapSample.Unlock()
	metrics.Read(heapSample.s)
	if heapSample.s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return float64(heapSample.s[0].Value.Uint64())
}
