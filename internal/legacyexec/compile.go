package legacyexec

import (
	"fmt"

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
	// worker marks a frame running a part of a fork (it does not fork
	// again); used is the most goroutines a fork of this run used
	worker bool
	used   int
	team   *team
	jobs   []job // the parallel steps' arguments (team.go)
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
	dt   *dictType // a dictionary input's descriptor
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
	njobs   int // job slots of a frame (team.go)
	// topFast is set when the program's outermost loop runs as a whole-loop
	// primitive that splits itself across workers (Options.Threads)
	topFast bool
	// split asks for the outermost range loop to be split across workers
	// (parallel.go); splitRange is that loop's range source
	split      bool
	splitRange *sdql.RangeExpr
	// topSum is the program when it is a sum into the result; overwrite is
	// set when its fast loop stores every key of its range (no clearing
	// needed there: Kernel.noClear)
	topSum sdql.Expr
	// topStore is topSum under its scalar lets (let c = s + s in sum ...):
	// a loop there that stores every key of its range still overwrites
	// the whole result
	topStore  sdql.Expr
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
	d := &dictType{leaf: kindOf(dt.Val), index: c.opts.Dict, noDense: c.opts.NoDense, limit: c.opts.MemoryLimit}
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
