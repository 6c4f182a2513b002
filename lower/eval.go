package lower

import (
	"fmt"
	"sort"

	"github.com/nablasd/nablasd/sdql"
)

// Eval runs a program with a plain tree-walking interpreter over maps: the
// reference the back ends are tested against, as sdql.Eval is for the
// whole pipeline. bindings binds every parameter by name (sdql.Int,
// sdql.Real, sdql.Bool, sdql.IntArray, sdql.RealArray, *sdql.Dict).
func Eval(p *Program, bindings map[string]sdql.Value) (v sdql.Value, err error) {
	in := &interp{p: p, ints: make([]int, len(p.Vars)), reals: make([]float64, len(p.Vars)),
		arrays: make([]sdql.Value, len(p.Arrays)), tensors: make([]*rtTensor, len(p.Tensors))}
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(evalError)
			if !ok {
				panic(r)
			}
			v, err = nil, e.err
		}
	}()
	for _, t := range p.Tensors {
		in.tensors[t.ID] = newRT(t)
	}
	for _, pa := range p.Params {
		b, ok := bindings[pa.Name]
		if !ok {
			return nil, fmt.Errorf("lower: parameter %s is not bound", pa.Name)
		}
		switch {
		case pa.Var != nil:
			switch x := b.(type) {
			case sdql.Int:
				in.set(pa.Var, float64(x), int(x))
			case sdql.Real:
				in.set(pa.Var, float64(x), int(x))
			case sdql.Bool:
				i := 0
				if x {
					i = 1
				}
				in.set(pa.Var, float64(i), i)
			default:
				return nil, fmt.Errorf("lower: parameter %s: %T is not a scalar", pa.Name, b)
			}
		case pa.Array != nil:
			in.arrays[pa.Array.ID] = b
		case pa.Tensor != nil:
			d, ok := b.(*sdql.Dict)
			if !ok {
				return nil, fmt.Errorf("lower: parameter %s: %T is not a dictionary", pa.Name, b)
			}
			in.tensors[pa.Tensor.ID].fill(d)
		}
	}
	in.stmt(p.Body)
	if p.ResultVar != nil {
		return in.value(p.ResultVar), nil
	}
	return in.tensors[p.ResultTensor.ID].value(), nil
}

type evalError struct{ err error }

// transpose runs a Transpose, by its definition.
func (in *interp) transpose(s *Transpose) {
	pos, _ := in.arrays[s.Pos.ID].(sdql.IntArray)
	idx, _ := in.arrays[s.Idx.ID].(sdql.IntArray)
	lo, hi := in.int(s.Lo), in.int(s.Hi)
	type occ struct{ q, p int }
	byKey := map[int][]occ{}
	n := 0
	for q := lo; q < hi; q++ {
		if q < 0 || q+1 >= len(pos) {
			panic(evalError{fmt.Errorf("transpose: parent %d out of range 0..%d of %s", q, len(pos)-2, s.Pos.Name)})
		}
		for p := pos[q]; p < pos[q+1]; p++ {
			j := idx[p]
			if j < 0 {
				panic(evalError{fmt.Errorf("transpose: coordinate %s[%d] = %d is negative", s.Idx.Name, p, j)})
			}
			byKey[j] = append(byKey[j], occ{q, p})
			n = max(n, j+1)
		}
	}
	tpos := make(sdql.IntArray, n+1)
	var parent, at sdql.IntArray
	for j := 0; j < n; j++ {
		for _, o := range byKey[j] {
			parent = append(parent, o.q)
			at = append(at, o.p)
		}
		tpos[j+1] = len(parent)
	}
	in.arrays[s.TPos.ID], in.arrays[s.Parent.ID], in.arrays[s.At.ID] = tpos, parent, at
	in.ints[s.N.ID] = n
}

// checkAt checks the position an Insert gives for a Positions level: the
// input level's coordinate there is the key, and one position stands for
// one child (parent and key) throughout the tensor's life. The
// interpreter numbers children its own way; this is what lets it check
// the lowering's claim.
func (in *interp) checkAt(s *Insert, parent, key, at int) {
	of := s.T.Levels[s.Level].Of
	if of == nil {
		panic(evalError{fmt.Errorf("lower: insert at %d into %s level %d, which is not a positions level", at, s.T.Name, s.Level)})
	}
	idx, _ := in.arrays[of.Idx.ID].(sdql.IntArray)
	if at < 0 || at >= len(idx) || idx[at] != key {
		panic(evalError{fmt.Errorf("lower: insert at %d into %s level %d: %s there is not the key %d", at, s.T.Name, s.Level, of.Idx.Name, key)})
	}
	rt := in.tensors[s.T.ID]
	if rt.at == nil {
		rt.at, rt.atOf = map[[2]int][2]int{}, map[[3]int]int{}
	}
	child := [2]int{parent, key}
	if prev, ok := rt.at[[2]int{s.Level, at}]; ok && prev != child {
		panic(evalError{fmt.Errorf("lower: position %d of %s level %d stands for two children", at, s.T.Name, s.Level)})
	}
	rt.at[[2]int{s.Level, at}] = child
	if prev, ok := rt.atOf[[3]int{s.Level, parent, key}]; ok && prev != at {
		panic(evalError{fmt.Errorf("lower: child %d of parent %d in %s level %d at two positions, %d and %d", key, parent, s.T.Name, s.Level, prev, at)})
	}
	rt.atOf[[3]int{s.Level, parent, key}] = at
}

type interp struct {
	p       *Program
	ints    []int
	reals   []float64
	arrays  []sdql.Value
	tensors []*rtTensor
}

func (in *interp) set(v *Var, f float64, i int) {
	if v.Kind == Real {
		in.reals[v.ID] = f
	} else {
		in.ints[v.ID] = i
	}
}

func (in *interp) value(v *Var) sdql.Value {
	switch v.Kind {
	case Real:
		return sdql.Real(in.reals[v.ID])
	case Bool:
		return sdql.Bool(in.ints[v.ID] != 0)
	}
	return sdql.Int(in.ints[v.ID])
}

func (in *interp) stmt(s Stmt) {
	switch s := s.(type) {
	case nil:
	case *Block:
		for _, x := range s.List {
			in.stmt(x)
		}
	case *Let:
		in.assign(s.V, Set, s.X)
	case *Assign:
		in.assign(s.V, s.Op, s.X)
	case *If:
		if in.boolean(s.Cond) {
			in.stmt(s.Then)
		} else {
			in.stmt(s.Else)
		}
	case *For:
		lo, hi := in.int(s.Lo), in.int(s.Hi)
		for i := lo; i < hi; i++ {
			in.ints[s.V.ID] = i
			in.stmt(s.Body)
		}
	case *ForLevel:
		rt := in.tensors[s.T.ID]
		for _, c := range rt.children(s.Level, in.int(s.Parent)) {
			in.ints[s.Key.ID] = rt.levels[s.Level].keys[c]
			if s.Pos != nil {
				in.ints[s.Pos.ID] = c
			}
			in.stmt(s.Body)
		}
	case *Search:
		arr := in.arrays[s.A.ID].(sdql.IntArray)
		lo, hi, key := in.int(s.Lo), in.int(s.Hi), in.int(s.Key)
		i := lo + sort.SearchInts(arr[lo:hi], key)
		if i < hi && arr[i] == key {
			in.ints[s.Pos.ID] = i
			in.stmt(s.Body)
		}
	case *Insert:
		parent, key := in.int(s.Parent), in.int(s.Key)
		if s.At != nil {
			in.checkAt(s, parent, key, in.int(s.At))
		}
		in.ints[s.Pos.ID] = in.tensors[s.T.ID].insert(s.Level, parent, key)
	case *Locate:
		if c, ok := in.tensors[s.T.ID].locate(s.Level, in.int(s.Parent), in.int(s.Key)); ok {
			in.ints[s.Pos.ID] = c
			in.stmt(s.Body)
		}
	case *Store:
		rt := in.tensors[s.T.ID]
		pos := in.int(s.Pos)
		x := in.real(s.X)
		if s.Op == Set {
			rt.vals[pos] = x
		} else if s.T.Leaf == Bool {
			if x != 0 {
				rt.vals[pos] = 1
			}
		} else {
			rt.vals[pos] += x
		}
	case *Init:
		in.tensors[s.T.ID] = newRT(s.T)
		in.tensors[s.T.ID].init(in)
	case *Transpose:
		in.transpose(s)
	case *Fail:
		args := make([]any, len(s.Args))
		for i, a := range s.Args {
			args[i] = in.num(a)
		}
		panic(evalError{fmt.Errorf("%s: %s", s.Pos, fmt.Sprintf(s.Msg, args...))})
	default:
		panic(fmt.Sprintf("internal error: eval %T", s))
	}
}

func (in *interp) assign(v *Var, op AssignOp, x Expr) {
	switch v.Kind {
	case Real:
		f := in.real(x)
		if op == AddTo {
			f += in.reals[v.ID]
		}
		in.reals[v.ID] = f
	case Bool:
		b := in.boolean(x)
		if op == AddTo && in.ints[v.ID] != 0 {
			b = true
		}
		in.ints[v.ID] = b2i(b)
	default:
		i := in.int(x)
		if op == AddTo {
			i += in.ints[v.ID]
		}
		in.ints[v.ID] = i
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (in *interp) num(e Expr) any {
	if e.Kind() == Real {
		return in.real(e)
	}
	return in.int(e)
}

func (in *interp) boolean(e Expr) bool { return in.int(e) != 0 }

// real evaluates a numeric expression as a float64 (ints and bools
// converted).
func (in *interp) real(e Expr) float64 {
	if e.Kind() != Real {
		return float64(in.int(e))
	}
	switch x := e.(type) {
	case *Const:
		return x.F
	case *Ref:
		return in.reals[x.V.ID]
	case *Load:
		return in.arrays[x.A.ID].(sdql.RealArray)[in.int(x.Index)]
	case *Unary:
		switch x.Op {
		case Neg:
			return -in.real(x.X)
		case ToReal:
			return float64(in.int(x.X))
		}
	case *Binary:
		a, b := in.real(x.X), in.real(x.Y)
		switch x.Op {
		case Add:
			return a + b
		case Sub:
			return a - b
		case Mul:
			return a * b
		case Div:
			return a / b
		}
	case *Call:
		return callFn(x.Fn, in.reals3(x.Args))
	case *Select:
		if in.boolean(x.Cond) {
			return in.real(x.Then)
		}
		return in.real(x.Else)
	case *ValAt:
		return in.tensors[x.T.ID].vals[in.int(x.Pos)]
	}
	panic(fmt.Sprintf("internal error: real %s", ExprString(e)))
}

func (in *interp) reals3(args []Expr) []float64 {
	out := make([]float64, len(args))
	for i, a := range args {
		out[i] = in.real(a)
	}
	return out
}

// callFn applies one of the language's real functions.
func callFn(fn string, args []float64) float64 {
	op, ok := sdql.Ops[fn]
	switch {
	case ok && len(args) == 1 && op.Fn != nil:
		return op.Fn(args[0])
	case ok && len(args) == 2 && op.Fn2 != nil:
		return op.Fn2(args[0], args[1])
	}
	panic(fmt.Sprintf("internal error: unknown function %s/%d", fn, len(args)))
}

// int evaluates an int or bool expression (a bool as 0 or 1).
func (in *interp) int(e Expr) int {
	switch x := e.(type) {
	case *Const:
		return x.I
	case *Ref:
		return in.ints[x.V.ID]
	case *Load:
		return in.arrays[x.A.ID].(sdql.IntArray)[in.int(x.Index)]
	case *Len:
		switch a := in.arrays[x.A.ID].(type) {
		case sdql.IntArray:
			return len(a)
		case sdql.RealArray:
			return len(a)
		}
	case *Unary:
		switch x.Op {
		case Neg:
			return -in.int(x.X)
		case Not:
			return b2i(in.int(x.X) == 0)
		}
	case *Binary:
		return in.binaryInt(x)
	case *Select:
		if in.boolean(x.Cond) {
			return in.int(x.Then)
		}
		return in.int(x.Else)
	case *ValAt:
		return int(in.tensors[x.T.ID].vals[in.int(x.Pos)])
	}
	panic(fmt.Sprintf("internal error: int %s", ExprString(e)))
}

func (in *interp) binaryInt(x *Binary) int {
	switch x.Op {
	case And:
		return b2i(in.boolean(x.X) && in.boolean(x.Y))
	case Or:
		return b2i(in.boolean(x.X) || in.boolean(x.Y))
	case Lt, Le, Eq, Ne:
		if x.X.Kind() == Real || x.Y.Kind() == Real {
			a, b := in.real(x.X), in.real(x.Y)
			switch x.Op {
			case Lt:
				return b2i(a < b)
			case Le:
				return b2i(a <= b)
			case Eq:
				return b2i(a == b)
			}
			return b2i(a != b)
		}
		a, b := in.int(x.X), in.int(x.Y)
		switch x.Op {
		case Lt:
			return b2i(a < b)
		case Le:
			return b2i(a <= b)
		case Eq:
			return b2i(a == b)
		}
		return b2i(a != b)
	}
	a, b := in.int(x.X), in.int(x.Y)
	switch x.Op {
	case Add:
		return a + b
	case Sub:
		return a - b
	case Mul:
		return a * b
	case FloorDiv:
		return int(floorDiv(int64(a), int64(b)))
	}
	panic(fmt.Sprintf("internal error: int %s", ExprString(x)))
}

// ---- tensors, as maps

// rtTensor is a tensor of the interpreter: every level a map from (parent,
// key) to child position, whatever its storage; iteration order follows
// the storage's (ascending keys for Dense, insertion order otherwise).
type rtTensor struct {
	t      *Tensor
	levels []*rtLevel
	vals   []float64
	// Positions levels (checkAt): (level, position) -> (parent, key) and
	// back
	at   map[[2]int][2]int
	atOf map[[3]int]int
}

type rtLevel struct {
	index map[[2]int]int // (parent, key) -> child
	keys  []int          // child -> key
	kids  map[int][]int  // parent -> children, in insertion order
	size  int            // Dense: the extent (full levels)
}

func newRT(t *Tensor) *rtTensor {
	rt := &rtTensor{t: t}
	for range t.Levels {
		rt.levels = append(rt.levels, &rtLevel{index: map[[2]int]int{}, kids: map[int][]int{}})
	}
	return rt
}

// init evaluates the levels' sizes, creates every key of full dense
// levels, and gives a dense level's keys their positions (a dense level
// sized n has the child parent·n + key: positions the program may also
// compute itself, as a locate certain to find its key does); the values
// of a vector's dense level are zero until written, present or not.
func (rt *rtTensor) init(in *interp) {
	parents := []int{0}
	full := true
	total := 1
	for lv, l := range rt.t.Levels {
		if l.Storage != Dense || l.Size == nil {
			total = 0
			break
		}
		n := in.int(l.Size)
		rt.levels[lv].size = n
		total *= n
		if !full || !l.Full {
			full = false
			continue
		}
		var next []int
		for _, q := range parents {
			for k := 0; k < n; k++ {
				next = append(next, rt.insert(lv, q, k))
			}
		}
		parents = next
	}
	if total > len(rt.vals) {
		rt.vals = append(rt.vals, make([]float64, total-len(rt.vals))...)
	}
}

func (rt *rtTensor) insert(lv, parent, key int) int {
	l := rt.levels[lv]
	if c, ok := l.index[[2]int{parent, key}]; ok {
		return c
	}
	lt := rt.t.Levels[lv]
	if lt.Storage == Dense && (key < 0 || lt.Full && key >= l.size) {
		panic(evalError{fmt.Errorf("exec: key %d out of range 0..%d of a dense result", key, l.size-1)})
	}
	c := len(l.keys)
	if lt.Storage == Dense && (l.size > 0 || lv == 0) {
		// the dense level's position: level 0 grows, its parent is 0
		c = parent*l.size + key
		if lv == 0 {
			c = key
		}
		for len(l.keys) <= c {
			l.keys = append(l.keys, -1)
		}
		l.keys[c] = key
	} else {
		l.keys = append(l.keys, key)
	}
	l.index[[2]int{parent, key}] = c
	l.kids[parent] = append(l.kids[parent], c)
	if lv == len(rt.levels)-1 && c >= len(rt.vals) {
		rt.vals = append(rt.vals, make([]float64, c+1-len(rt.vals))...)
	}
	return c
}

func (rt *rtTensor) locate(lv, parent, key int) (int, bool) {
	c, ok := rt.levels[lv].index[[2]int{parent, key}]
	return c, ok
}

func (rt *rtTensor) children(lv, parent int) []int {
	l := rt.levels[lv]
	kids := append([]int(nil), l.kids[parent]...)
	if rt.t.Levels[lv].Storage == Dense {
		sort.Slice(kids, func(i, j int) bool { return l.keys[kids[i]] < l.keys[kids[j]] })
	}
	return kids
}

// fill loads a dictionary input, keys ascending.
func (rt *rtTensor) fill(d *sdql.Dict) {
	FillDict(d, len(rt.levels), rt.insert, func(c int, v float64) { rt.vals[c] = v })
}

// FillDict walks a dictionary input of the given number of levels, keys
// ascending, for a back end loading it into a tensor of its own: insert
// adds key under parent at level lv and returns its position (the top
// level's parent is 0), set stores a leaf's value (sdql.Number) at its
// position. The IR interpreter and exec's kernels load dictionary inputs
// with it.
func FillDict(d *sdql.Dict, levels int, insert func(lv, parent, key int) int, set func(pos int, v float64)) {
	var walk func(lv, parent int, v sdql.Value)
	walk = func(lv, parent int, v sdql.Value) {
		dd, ok := v.(*sdql.Dict)
		if !ok {
			return
		}
		keys := dd.Keys()
		sort.Ints(keys)
		for _, k := range keys {
			x, _ := dd.Get(k)
			c := insert(lv, parent, k)
			if lv == levels-1 {
				set(c, sdql.Number(x))
			} else {
				walk(lv+1, c, x)
			}
		}
	}
	walk(0, 0, d)
}

// value exports the tensor as a nested dictionary.
func (rt *rtTensor) value() sdql.Value {
	var walk func(lv, parent int) sdql.Value
	walk = func(lv, parent int) sdql.Value {
		d := sdql.NewDict()
		for _, c := range rt.children(lv, parent) {
			k := rt.levels[lv].keys[c]
			if lv == len(rt.levels)-1 {
				d.Set(k, leafValue(rt.t.Leaf, rt.vals[c]))
			} else {
				d.Set(k, walk(lv+1, c))
			}
		}
		return d
	}
	return walk(0, 0)
}

func leafValue(k Kind, f float64) sdql.Value {
	switch k {
	case Int:
		return sdql.Int(int(f))
	case Bool:
		return sdql.Bool(f != 0)
	}
	return sdql.Real(f)
}
