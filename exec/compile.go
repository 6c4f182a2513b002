package exec

import (
	"fmt"
	"math"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// The runtime compiles the loop IR to a tree of typed closures over a
// frame: every variable has a slot (ints and bools in i, reals in f),
// every array and tensor an index. Loops the primitive rules mark run as
// one Go loop over the slices (prims.go).

type (
	fexpr func(*frame) float64
	iexpr func(*frame) int
	stmt  func(*frame)
)

// frame is the state of one run (one per worker).
type frame struct {
	i  []int
	f  []float64
	ia [][]int
	fa [][]float64
	t  []*tensor
	// sizes is scratch for Init (the levels' sizes)
	sizes []int
	// regions are the buffers of the columnar nests (columnar.go)
	regions []*regionBufs
	// parallel loops (parallel.go): the worker frames of this run's frame,
	// a worker's own tensors (by ID), whether this is a worker, what it
	// panicked with, and the most goroutines a loop of the run used
	pool     []*frame
	own      []*tensor
	resets   []pendingReset // a worker's copies to empty before its chunk
	worker   bool
	panicked any
	used     int
	// validated: the input arrays checked in this run (checksFor)
	validated []checkedPair
	// transposed: the structure each Transpose last sorted (transpose.go)
	transposed map[*lower.Transpose]*transposed
}

type compiler struct {
	p       *lower.Program
	opts    Options
	regions []*region
	extra   int // frame slots beyond the program's variables (parallel.go)
	// deferred are the Inits whose clear a parallel loop's first worker
	// does (lower/deferclear.go), with Options.Threads > 1.
	deferred lower.DeferredClears
	// inResInit and inResLoop are the Inits and copy loops of the
	// temporaries kept in the result (inresult.go).
	inResInit map[*lower.Init]*lower.TempInResult
	inResLoop map[*lower.For]*lower.TempInResult
}

func (c *compiler) newFrame() *frame {
	n := len(c.p.Vars) + c.extra
	fr := &frame{i: make([]int, n), f: make([]float64, n),
		ia: make([][]int, len(c.p.Arrays)), fa: make([][]float64, len(c.p.Arrays)),
		t: make([]*tensor, len(c.p.Tensors)), own: make([]*tensor, len(c.p.Tensors))}
	for _, t := range c.p.Tensors {
		fr.t[t.ID] = newTensor(t, c.opts.Dict)
		fr.t[t.ID].limit = c.opts.MemoryLimit
	}
	return fr
}

// rtError is a run-time error of a kernel, panicked and recovered by Run.
type rtError struct{ msg string }

func (e *rtError) Error() string { return "exec: " + e.msg }

func rtErrorf(format string, args ...any) *rtError {
	return &rtError{fmt.Sprintf(format, args...)}
}

// ---- statements

func (c *compiler) stmt(s lower.Stmt) stmt {
	switch s := s.(type) {
	case nil:
		return func(*frame) {}
	case *lower.Block:
		fs := make([]stmt, 0, len(s.List))
		for _, x := range s.List {
			fs = append(fs, c.stmt(x))
		}
		switch len(fs) {
		case 0:
			return func(*frame) {}
		case 1:
			return fs[0]
		case 2:
			a, b := fs[0], fs[1]
			return func(fr *frame) { a(fr); b(fr) }
		}
		return func(fr *frame) {
			for _, f := range fs {
				f(fr)
			}
		}
	case *lower.Let:
		return c.assign(s.V, lower.Set, s.X)
	case *lower.Assign:
		return c.assign(s.V, s.Op, s.X)
	case *lower.If:
		cond := c.boolean(s.Cond)
		then := c.stmt(s.Then)
		var els stmt
		if s.Else != nil {
			els = c.stmt(s.Else)
		} else if t := c.deferred.Else[s]; t != nil {
			id := t.ID
			els = func(fr *frame) { clear(fr.t[id].vals) } // the Init's clear, where the loop does not run
		}
		if els == nil {
			return func(fr *frame) {
				if cond(fr) {
					then(fr)
				}
			}
		}
		return func(fr *frame) {
			if cond(fr) {
				then(fr)
			} else {
				els(fr)
			}
		}
	case *lower.For:
		if tr := c.inResLoop[s]; tr != nil {
			return c.inResultCopy(tr, s, c.forLoop(s))
		}
		return c.forLoop(s)
	case *lower.ForLevel:
		if !c.opts.NoFast && c.eligibleNest(s) {
			return c.compileNest(s)
		}
		return c.forLevel(s)
	case *lower.Search:
		a := s.A.ID
		lo, hi, key := c.int(s.Lo), c.int(s.Hi), c.int(s.Key)
		pos := s.Pos.ID
		body := c.stmt(s.Body)
		gallop := s.Gallop
		return func(fr *frame) {
			arr := fr.ia[a]
			h, k := hi(fr), key(fr)
			l := lowerBound(arr, lo(fr), h, k, gallop)
			if l < h && arr[l] == k {
				fr.i[pos] = l
				body(fr)
			}
		}
	case *lower.Transpose:
		return c.transpose(s)
	case *lower.Insert:
		t, lv := s.T.ID, s.Level
		pos := s.Pos.ID
		if s.At != nil {
			at := c.int(s.At)
			return func(fr *frame) { fr.i[pos] = fr.t[t].insertAt(lv, at(fr)) }
		}
		parent, key := c.int(s.Parent), c.int(s.Key)
		return func(fr *frame) { fr.i[pos] = fr.t[t].insert(lv, parent(fr), key(fr)) }
	case *lower.Locate:
		t, lv := s.T.ID, s.Level
		parent, key := c.int(s.Parent), c.int(s.Key)
		pos := s.Pos.ID
		body := c.stmt(s.Body)
		return func(fr *frame) {
			if q, ok := fr.t[t].locate(lv, parent(fr), key(fr)); ok {
				fr.i[pos] = q
				body(fr)
			}
		}
	case *lower.Store:
		return c.store(s)
	case *lower.Init:
		if tr := c.inResInit[s]; tr != nil {
			return c.inResultInit(tr, s)
		}
		return c.init(s)
	case *lower.Fail:
		args := make([]func(*frame) any, len(s.Args))
		for i, a := range s.Args {
			if a.Kind() == lower.Real {
				f := c.real(a)
				args[i] = func(fr *frame) any { return f(fr) }
			} else {
				f := c.int(a)
				args[i] = func(fr *frame) any { return f(fr) }
			}
		}
		pos, msg := s.Pos, s.Msg
		return func(fr *frame) {
			vals := make([]any, len(args))
			for i, a := range args {
				vals[i] = a(fr)
			}
			panic(rtErrorf("%s: %s", pos, fmt.Sprintf(msg, vals...)))
		}
	}
	panic(fmt.Sprintf("internal error: exec: statement %T", s))
}

func (c *compiler) assign(v *lower.Var, op lower.AssignOp, x lower.Expr) stmt {
	id := v.ID
	switch v.Kind {
	case lower.Real:
		f := c.real(x)
		if op == lower.AddTo {
			return func(fr *frame) { fr.f[id] += f(fr) }
		}
		return func(fr *frame) { fr.f[id] = f(fr) }
	case lower.Bool:
		f := c.boolean(x)
		if op == lower.AddTo {
			return func(fr *frame) {
				if f(fr) {
					fr.i[id] = 1
				}
			}
		}
		return func(fr *frame) { fr.i[id] = b2i(f(fr)) }
	}
	f := c.int(x)
	if op == lower.AddTo {
		return func(fr *frame) { fr.i[id] += f(fr) }
	}
	return func(fr *frame) { fr.i[id] = f(fr) }
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (c *compiler) forLevel(s *lower.ForLevel) stmt {
	t, lv := s.T.ID, s.Level
	parent := c.int(s.Parent)
	key := s.Key.ID
	pos := -1
	if s.Pos != nil {
		pos = s.Pos.ID
	}
	body := c.stmt(s.Body)
	return func(fr *frame) {
		rt := fr.t[t]
		l := rt.levels[lv]
		q := parent(fr)
		switch l.kind {
		case lower.Dense:
			base := q * l.size
			for k := 0; k < l.size; k++ {
				if l.present == nil || l.present[base+k] {
					fr.i[key] = k
					if pos >= 0 {
						fr.i[pos] = base + k
					}
					body(fr)
				}
			}
		case lower.Sparse:
			// the body may insert into this workspace: iterate a snapshot
			// of its length
			for n, i := len(l.list), 0; i < n; i++ {
				k := l.list[i]
				fr.i[key] = k
				if pos >= 0 {
					fr.i[pos] = k
				}
				body(fr)
			}
		default:
			rt.children(lv, q, func(k, c int) bool {
				fr.i[key] = k
				if pos >= 0 {
					fr.i[pos] = c
				}
				body(fr)
				return true
			})
		}
	}
}

func (c *compiler) store(s *lower.Store) stmt {
	t := s.T.ID
	pos := c.int(s.Pos)
	if s.T.Leaf == lower.Bool {
		x := c.boolean(s.X)
		if s.Op == lower.Set {
			return func(fr *frame) { fr.t[t].vals[pos(fr)] = float64(b2i(x(fr))) }
		}
		return func(fr *frame) {
			if x(fr) {
				fr.t[t].vals[pos(fr)] = 1
			}
		}
	}
	x := c.real(s.X)
	if s.Op == lower.Set {
		return func(fr *frame) { fr.t[t].vals[pos(fr)] = x(fr) }
	}
	return func(fr *frame) { fr.t[t].vals[pos(fr)] += x(fr) }
}

func (c *compiler) init(s *lower.Init) stmt {
	t := s.T
	id := t.ID
	var covered func(*frame) bool
	if s.Covered != nil {
		covered = c.boolean(s.Covered)
	}
	keep := c.deferred.Init[s]
	sizes := make([]iexpr, len(t.Levels))
	for i, l := range t.Levels {
		if l.Size != nil {
			sizes[i] = c.int(l.Size)
		}
	}
	return func(fr *frame) {
		fr.sizes = fr.sizes[:0]
		for _, s := range sizes {
			n := 0
			if s != nil {
				n = s(fr)
			}
			fr.sizes = append(fr.sizes, n)
		}
		fr.t[id].bindPositions(fr.ia)
		fr.t[id].setFirst = s.SetFirst
		// a deferred clear keeps the values: the next loop empties them
		fr.t[id].resize(fr.sizes, keep || covered != nil && covered(fr))
	}
}

// forLoop compiles a counted loop: on several workers, as a columnar
// nest, or a closure an iteration.
func (c *compiler) forLoop(s *lower.For) stmt {
	if s.Par != nil && c.opts.Threads > 1 {
		return c.parallelFor(s)
	}
	if !c.opts.NoFast && c.eligibleNest(s) {
		return c.compileNest(s)
	}
	lo, hi := c.int(s.Lo), c.int(s.Hi)
	v := s.V.ID
	body := c.stmt(s.Body)
	return func(fr *frame) {
		for i, n := lo(fr), hi(fr); i < n; i++ {
			fr.i[v] = i
			body(fr)
		}
	}
}

// ---- expressions

func (c *compiler) real(e lower.Expr) fexpr {
	if e.Kind() != lower.Real {
		i := c.int(e)
		return func(fr *frame) float64 { return float64(i(fr)) }
	}
	switch x := e.(type) {
	case *lower.Const:
		v := x.F
		return func(*frame) float64 { return v }
	case *lower.Ref: // reads of fr.f and fr.fa are written per type, as in int (typed.go says why)
		id := x.V.ID
		return func(fr *frame) float64 { return fr.f[id] }
	case *lower.Load:
		a := x.A.ID
		if r, ok := x.Index.(*lower.Ref); ok {
			id := r.V.ID
			return func(fr *frame) float64 { return fr.fa[a][fr.i[id]] }
		}
		idx := c.int(x.Index)
		return func(fr *frame) float64 { return fr.fa[a][idx(fr)] }
	case *lower.Unary:
		switch x.Op {
		case lower.Neg:
			return negate(c.real(x.X))
		case lower.ToReal:
			i := c.int(x.X)
			return func(fr *frame) float64 { return float64(i(fr)) }
		}
	case *lower.Binary:
		return c.realBinary(x)
	case *lower.Call:
		return c.call(x)
	case *lower.Select:
		return choose(c.boolean(x.Cond), c.real(x.Then), c.real(x.Else))
	case *lower.ValAt:
		t := x.T.ID
		return valAt[float64](t, c.int(x.Pos))
	}
	panic(fmt.Sprintf("internal error: exec: real %s", lower.ExprString(e)))
}

func (c *compiler) realBinary(x *lower.Binary) fexpr {
	a, b := c.real(x.X), c.real(x.Y)
	// a constant or variable operand read directly
	if k, ok := x.Y.(*lower.Const); ok {
		if f := arithConst(x.Op, a, k.F); f != nil {
			return f
		}
	}
	if k, ok := x.X.(*lower.Const); ok {
		v := k.F
		switch x.Op {
		case lower.Add:
			return func(fr *frame) float64 { return v + b(fr) }
		case lower.Sub:
			return func(fr *frame) float64 { return v - b(fr) }
		case lower.Mul:
			return func(fr *frame) float64 { return v * b(fr) }
		case lower.Div:
			return func(fr *frame) float64 { return v / b(fr) }
		}
	}
	if f := arithOf(x.Op, a, b); f != nil {
		return f
	}
	panic(fmt.Sprintf("internal error: exec: real %s", lower.ExprString(x)))
}

func (c *compiler) call(x *lower.Call) fexpr {
	args := make([]fexpr, len(x.Args))
	for i, a := range x.Args {
		args[i] = c.real(a)
	}
	op, ok := sdql.Ops[x.Fn]
	switch {
	case ok && len(args) == 1 && op.Fn != nil:
		f, a := op.Fn, args[0]
		switch x.Fn { // the common ones inlined
		case "exp":
			return func(fr *frame) float64 { return math.Exp(a(fr)) }
		case "tanh":
			return func(fr *frame) float64 { return math.Tanh(a(fr)) }
		case "log":
			return func(fr *frame) float64 { return math.Log(a(fr)) }
		case "sqrt":
			return func(fr *frame) float64 { return math.Sqrt(a(fr)) }
		case "abs":
			return func(fr *frame) float64 { return math.Abs(a(fr)) }
		}
		return func(fr *frame) float64 { return f(a(fr)) }
	case ok && len(args) == 2 && op.Fn2 != nil:
		f, a, b := op.Fn2, args[0], args[1]
		return func(fr *frame) float64 { return f(a(fr), b(fr)) }
	}
	panic(fmt.Sprintf("internal error: exec: unknown function %s/%d", x.Fn, len(args)))
}

func (c *compiler) boolean(e lower.Expr) func(*frame) bool {
	switch x := e.(type) {
	case *lower.Const:
		v := x.I != 0
		return func(*frame) bool { return v }
	case *lower.Unary:
		if x.Op == lower.Not {
			f := c.boolean(x.X)
			return func(fr *frame) bool { return !f(fr) }
		}
	case *lower.Binary:
		switch x.Op {
		case lower.And:
			a, b := c.boolean(x.X), c.boolean(x.Y)
			return func(fr *frame) bool { return a(fr) && b(fr) }
		case lower.Or:
			a, b := c.boolean(x.X), c.boolean(x.Y)
			return func(fr *frame) bool { return a(fr) || b(fr) }
		case lower.Lt, lower.Le, lower.Eq, lower.Ne:
			if x.X.Kind() == lower.Real || x.Y.Kind() == lower.Real {
				return c.compareReal(x)
			}
			return c.compareInt(x)
		}
	}
	i := c.int(e)
	return func(fr *frame) bool { return i(fr) != 0 }
}

func (c *compiler) compareInt(x *lower.Binary) func(*frame) bool {
	a, b := c.int(x.X), c.int(x.Y)
	// a variable against a constant or variable: read the slots directly
	ra, aok := x.X.(*lower.Ref)
	if k, ok := x.Y.(*lower.Const); ok && aok {
		id, v := ra.V.ID, k.I
		switch x.Op {
		case lower.Lt:
			return func(fr *frame) bool { return fr.i[id] < v }
		case lower.Le:
			return func(fr *frame) bool { return fr.i[id] <= v }
		case lower.Eq:
			return func(fr *frame) bool { return fr.i[id] == v }
		}
	}
	if k, ok := x.X.(*lower.Const); ok {
		if rb, ok := x.Y.(*lower.Ref); ok {
			v, id := k.I, rb.V.ID
			switch x.Op {
			case lower.Lt:
				return func(fr *frame) bool { return v < fr.i[id] }
			case lower.Le:
				return func(fr *frame) bool { return v <= fr.i[id] }
			}
		}
	}
	if rb, ok := x.Y.(*lower.Ref); ok && aok {
		ia, ib := ra.V.ID, rb.V.ID
		switch x.Op {
		case lower.Lt:
			return func(fr *frame) bool { return fr.i[ia] < fr.i[ib] }
		case lower.Le:
			return func(fr *frame) bool { return fr.i[ia] <= fr.i[ib] }
		}
	}
	return compareOf(x.Op, a, b)
}

func (c *compiler) compareReal(x *lower.Binary) func(*frame) bool {
	a, b := c.real(x.X), c.real(x.Y)
	return compareOf(x.Op, a, b)
}

func (c *compiler) int(e lower.Expr) iexpr {
	switch x := e.(type) {
	case *lower.Const:
		v := x.I
		return func(*frame) int { return v }
	case *lower.Ref:
		id := x.V.ID
		return func(fr *frame) int { return fr.i[id] }
	case *lower.Load:
		a := x.A.ID
		if r, ok := x.Index.(*lower.Ref); ok {
			id := r.V.ID
			return func(fr *frame) int { return fr.ia[a][fr.i[id]] }
		}
		if b, ok := x.Index.(*lower.Binary); ok && b.Op == lower.Add {
			if r, ok := b.X.(*lower.Ref); ok {
				if k, ok := b.Y.(*lower.Const); ok {
					id, off := r.V.ID, k.I
					return func(fr *frame) int { return fr.ia[a][fr.i[id]+off] }
				}
			}
		}
		idx := c.int(x.Index)
		return func(fr *frame) int { return fr.ia[a][idx(fr)] }
	case *lower.Len:
		a := x.A.ID
		if x.A.Kind == lower.Real {
			return func(fr *frame) int { return len(fr.fa[a]) }
		}
		return func(fr *frame) int { return len(fr.ia[a]) }
	case *lower.Unary:
		if x.Op == lower.Neg {
			return negate(c.int(x.X))
		}
		if x.Op == lower.Not {
			f := c.boolean(x.X)
			return func(fr *frame) int { return b2i(!f(fr)) }
		}
	case *lower.Binary:
		switch x.Op {
		case lower.Add, lower.Sub, lower.Mul:
			a, b := c.int(x.X), c.int(x.Y)
			if k, ok := x.Y.(*lower.Const); ok {
				return arithConst(x.Op, a, k.I)
			}
			return arithOf(x.Op, a, b)
		case lower.FloorDiv:
			a, b := c.int(x.X), c.int(x.Y)
			return func(fr *frame) int { return floorDiv(a(fr), b(fr)) }
		default:
			f := c.boolean(x)
			return func(fr *frame) int { return b2i(f(fr)) }
		}
	case *lower.Select:
		return choose(c.boolean(x.Cond), c.int(x.Then), c.int(x.Else))
	case *lower.ValAt:
		t := x.T.ID
		return valAt[int](t, c.int(x.Pos))
	}
	panic(fmt.Sprintf("internal error: exec: int %s", lower.ExprString(e)))
}
