package legacyexec

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/nablasd/nablasd/sdql"
)

// Options configure Compile.
type Options struct {
	// Opt selects the optimization level of the paper's Fig. 16: "none"
	// and "norm" (the program given is unnormalized or normalized; the
	// kernel builds intermediate dictionaries and merges them, as before
	// DPS) and "dps" (the default: singleton constructions are pushed into
	// the innermost loops and write into the destination).
	Opt string
	// Dict selects the hash index of hashed dictionaries: "intmap" (the
	// default, open addressing on int keys), "map" (Go's built-in map) or
	// "swiss" (github.com/dolthub/swiss).
	Dict string
	// NoDense makes every built dictionary hashed (the paper's dictionary
	// variant); by default dictionaries with small non-negative keys are
	// arrays (sparse accumulators), and a result of known extent is dense.
	NoDense bool
	// ResultShape gives the extents of the result's levels when known (the
	// length of the vector a gradient is taken with respect to, ...); 0 or
	// a missing entry means unknown. A known extent makes that level a
	// dense array.
	ResultShape []int
	// Threads is the most goroutines a run may use. The whole-loop
	// primitives split their loops across them (dense stores by range,
	// scatter-adds into per-worker accumulators merged after, flat matrix
	// results by blocks of rows balanced by entries); a program whose
	// outermost loop they do not run has that loop, a sum over a range,
	// split across workers with per-worker destinations merged by
	// semi-ring + (parallel.go). Results equal the serial ones up to
	// floating-point reassociation. Steps with little work run serially
	// (team.go): Kernel.Threads tells what a run used. 0 or 1 runs
	// serially.
	Threads int
	// NoValidate skips the up-front checks of the format invariants the
	// fast loops rely on (monotone pos arrays); bounds are still checked.
	NoValidate bool
	// NoFast disables the pattern-matched whole-loop primitives, leaving
	// the general closure compiler (for tests and ablation).
	NoFast bool
	// MemoryLimit bounds, in bytes, what one dictionary the kernel builds
	// (the result or a workspace) may take: a dense level of known extent
	// past it is an error before it is allocated, a dense level that would
	// grow past it is hashed instead, and a hashed one growing past it
	// stops the run with an error. 0: no limit.
	MemoryLimit int64
}

// Kernel is a compiled program: call Run or RunInto with the bindings of
// its inputs. A Kernel may be run by several goroutines at once.
type Kernel struct {
	prog   sdql.Expr
	info   *sdql.Info
	opts   Options
	c      *compiler
	result sdql.Type
	// resultType describes a dictionary result (made at compile time:
	// NewResult may be called by several goroutines at once)
	resultType *dictType
	top        func(fr *frame, r *Result)
	par        *parallel
	pool       sync.Pool
	// lastThreads is the goroutines the most recent run used
	lastThreads atomic.Int32
	inputs      []inputSlot
	checks      []check
	nframes     int
	segOnly     bool // the result is always a flat matrix (seg.go)
	// noClear: the result is dense of extent ResultShape[0] and the
	// program stores every key of its range, so prepare keeps the old
	// values and top clears only the keys outside the range
	noClear bool
}

// Compile compiles a physical SDQL program whose free variables have the
// given types (physical arrays are {dense_int -> int} and {dense_int ->
// real}, as sdql.TypeOfValue gives for the values of formats.Bind).
func Compile(prog sdql.Expr, inputs map[string]sdql.Type, opts Options) (k *Kernel, err error) {
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: inputs, Strict: true})
	if err != nil {
		return nil, err
	}
	if !opts.NoFast {
		if marked := markRangeKeys(prog); marked != prog {
			if info, err = sdql.Check(marked, &sdql.CheckConfig{Inputs: inputs, Strict: true}); err != nil {
				return nil, err
			}
			k, err = compileChecked(marked, info, opts)
			if k != nil {
				k.prog = prog
			}
			return k, err
		}
	}
	return compileChecked(prog, info, opts)
}

// CompileFor compiles prog for inputs like the given bindings.
func CompileFor(prog sdql.Expr, bindings map[string]sdql.Value, opts Options) (*Kernel, error) {
	types := make(map[string]sdql.Type, len(bindings))
	for n, v := range bindings {
		types[n] = sdql.TypeOfValue(v)
	}
	return Compile(prog, types, opts)
}

func compileChecked(prog sdql.Expr, info *sdql.Info, opts Options) (*Kernel, error) {
	if opts.Threads <= 1 {
		return compileWith(prog, info, opts, false)
	}
	// The whole-loop primitives split themselves across the workers, and
	// beat the general loops split across workers by far: keep them when
	// they run the outermost loop; else split that loop.
	if !opts.NoFast {
		k, err := compileWith(prog, info, opts, false)
		if err != nil || k.segOnly || k.c.topFast {
			return k, err
		}
	}
	return compileWith(prog, info, opts, true)
}

// Threads is the number of goroutines the kernel's most recent run used
// (1 before the first run). It depends on the input: a run uses up to
// Options.Threads goroutines where a step has enough work to share
// (team.go), else 1.
func (k *Kernel) Threads() int {
	return max(int(k.lastThreads.Load()), 1)
}

func compileWith(prog sdql.Expr, info *sdql.Info, opts Options, split bool) (k *Kernel, err error) {
	switch opts.Opt {
	case "", "dps", "none", "norm":
	default:
		return nil, fmt.Errorf("exec: unknown optimization level %q (want none, norm or dps)", opts.Opt)
	}
	switch opts.Dict {
	case "", "intmap", "map", "swiss":
	default:
		return nil, fmt.Errorf("exec: unknown dictionary %q (want intmap, map or swiss)", opts.Dict)
	}
	c := &compiler{info: info, opts: opts, split: split, dps: opts.Opt == "" || opts.Opt == "dps", types: map[string]*dictType{}}
	defer func() {
		if p := recover(); p != nil {
			ce, ok := p.(compileError)
			if !ok {
				panic(p)
			}
			k, err = nil, ce.err
		}
	}()
	for _, name := range sortedNames(info.Free) {
		t := info.Free[name]
		ref := c.newSlot(physClass(t))
		in := inputSlot{name: name, t: t, ref: ref}
		if dt, ok := t.(*sdql.DictType); ok && ref.cls == vDict {
			in.dt = c.dictTypeOf(dt) // now: runs must not write c.types
		}
		c.inputs = append(c.inputs, in)
		c.globals = &scope{name, ref, c.globals}
	}
	k = &Kernel{prog: prog, info: info, opts: opts, c: c, result: info.Result}
	if kindOf(info.Result) == kDict {
		k.resultType = c.dictTypeOf(info.Result)
	}
	k.top = c.compileTop(prog, k)
	k.inputs = c.inputs
	k.checks = c.checks
	return k, nil
}

// compileTop compiles the whole program, writing into a Result.
func (c *compiler) compileTop(e sdql.Expr, k *Kernel) func(*frame, *Result) {
	switch kindOf(c.typeOf(e)) {
	case kReal, kInt, kBool:
		if c.split {
			k.par = c.splitTop(e)
		}
		c.topSum = e
		f := c.real(e, nil)
		return func(fr *frame, r *Result) { r.scalar = f(fr) }
	}
	if f := c.segTop(e); f != nil {
		k.segOnly = true
		return f
	}
	if c.split {
		k.par = c.splitTop(e)
	}
	c.topSum, c.topStore = e, underScalarLets(c, e)
	into := c.into(e, nil, true)
	if cs := c.overwrite; cs != nil && k.par == nil && len(c.opts.ResultShape) > 0 && c.opts.ResultShape[0] > 0 &&
		sdql.Order(c.typeOf(e)) == 1 && !c.opts.NoDense {
		k.noClear = true
		return func(fr *frame, r *Result) {
			if d := r.dict; d.mode == modeFull {
				lo, hi := cs.bounds(fr)
				n := len(d.f)
				lo = min(max(lo, 0), n)
				hi = min(max(hi, lo), n)
				clear(d.f[:lo])
				clear(d.f[hi:])
			}
			into(fr, r.dict, 1)
		}
	}
	return func(fr *frame, r *Result) { into(fr, r.dict, 1) }
}

func (k *Kernel) newFrame() *frame { return k.c.newFrame() }

func (c *compiler) newFrame() *frame {
	fr := &frame{
		f:  make([]float64, c.nf),
		i:  make([]int, c.ni),
		d:  make([]dv, c.nd),
		ia: make([][]int, c.nia),
		ra: make([][]float64, c.nra),
	}
	fr.scratch = make([]*hdict, len(c.scratch))
	for i, t := range c.scratch {
		d := newHDict(t)
		d.initDense(0, false, true)
		fr.scratch[i] = d
	}
	fr.hints = make([]int, c.nhints)
	fr.jobs = make([]job, c.njobs)
	return fr
}

// Type returns the type of the kernel's result.
func (k *Kernel) Type() sdql.Type { return k.result }

// NewResult returns an empty destination for the kernel's result, to be
// filled (and refilled) by RunInto.
func (k *Kernel) NewResult() *Result {
	r := &Result{t: k.result, k: kindOf(k.result)}
	if r.k == kDict {
		r.dict = newHDict(k.resultType)
	}
	return r
}

// Run runs the kernel over the bindings (inputs by name: formats.Bind's
// arrays and ints, scalars, logical dictionaries) into a new Result.
func (k *Kernel) Run(bindings map[string]sdql.Value) (*Result, error) {
	r := k.NewResult()
	if err := k.RunInto(r, bindings); err != nil {
		return nil, err
	}
	return r, nil
}

// RunInto runs the kernel into a destination made by NewResult, resetting
// it first and reusing its storage: repeated runs do not allocate. Inputs
// that violate their format (an index out of range, a pos array that is
// not monotone) give an error, never a panic.
func (k *Kernel) RunInto(r *Result, bindings map[string]sdql.Value) (err error) {
	fr, _ := k.pool.Get().(*frame)
	if fr == nil {
		fr = k.newFrame()
	}
	defer k.pool.Put(fr)
	if err := k.bind(fr, bindings); err != nil {
		return err
	}
	if !k.opts.NoValidate {
		if err := k.validate(fr); err != nil {
			return err
		}
	} else {
		k.trust(fr)
	}
	defer func() {
		if p := recover(); p != nil {
			err = panicError(p)
		}
	}()
	fr.used = 1
	defer func() { k.lastThreads.Store(int32(fr.used)) }()
	k.prepare(r, fr)
	if k.par != nil {
		k.par.run(k, fr, r)
		return nil
	}
	k.top(fr, r)
	return nil
}

// panicError turns a panic inside a kernel into an error.
func panicError(p any) error {
	switch p := p.(type) {
	case *rtError:
		return p
	case runtime.Error:
		return fmt.Errorf("exec: input violates its format: %v", p)
	case error:
		return fmt.Errorf("exec: %w", p)
	}
	return fmt.Errorf("exec: %v", p)
}

// prepare resets the destination and sizes its levels.
func (k *Kernel) prepare(r *Result, fr *frame) {
	r.scalar = 0
	r.seg = nil
	if r.dict == nil || k.segOnly {
		return
	}
	d := r.dict
	n := 0
	if len(k.opts.ResultShape) > 0 {
		n = k.opts.ResultShape[0]
	}
	if n > 0 && k.noClear && d.mode == modeFull && len(d.f) == n {
		// top stores or clears every key
	} else if n > 0 {
		d.initDense(n, true, false)
	} else if !k.opts.NoDense {
		if d.mode == modeDense && d.grow {
			d.reset()
		} else {
			d.reset()
			d.initDense(0, false, true)
		}
	} else {
		d.reset()
	}
}

// bind loads the inputs into the frame's slots.
func (k *Kernel) bind(fr *frame, bindings map[string]sdql.Value) error {
	for _, in := range k.inputs {
		v, ok := bindings[in.name]
		if !ok {
			return fmt.Errorf("exec: missing input %s", in.name)
		}
		s := in.ref.slot
		switch in.ref.cls {
		case vReal, vInt, vBool:
			var x float64
			switch v := v.(type) {
			case sdql.Real:
				x = float64(v)
			case sdql.Int:
				x = float64(v)
			case sdql.Bool:
				if v {
					x = 1
				}
			default:
				return fmt.Errorf("exec: input %s: want a scalar, got %T", in.name, v)
			}
			if in.ref.cls == vReal {
				fr.f[s] = x
			} else {
				fr.i[s] = int(x)
			}
		case vIntArr:
			switch v := v.(type) {
			case sdql.IntArray:
				fr.ia[s] = v
			case sdql.Range:
				a := make([]int, max(v.Hi-v.Lo, 0))
				for i := range a {
					a[i] = v.Lo + i
				}
				fr.ia[s] = a
			default:
				return fmt.Errorf("exec: input %s: want an int array, got %T", in.name, v)
			}
		case vRealArr:
			a, ok := v.(sdql.RealArray)
			if !ok {
				return fmt.Errorf("exec: input %s: want a real array, got %T", in.name, v)
			}
			fr.ra[s] = a
		case vDict:
			fr.d[s] = toDV(v, in.dt)
		}
	}
	return nil
}

// Result is a kernel's destination: a scalar or a dictionary (dense
// arrays where the keys are a known dense range, hashed otherwise).
type Result struct {
	t      sdql.Type
	k      kind
	scalar float64
	dict   *hdict
	seg    *segResult // a flat matrix result (seg.go), used instead of dict
	segb   *segResult
	// par are the destinations of workers 1..n-1 of the general parallel
	// path (parallel.go), kept for the next run
	par []*Result
}

func (r *Result) segBuf() *segResult {
	if r.segb == nil {
		r.segb = &segResult{}
	}
	r.seg = r.segb
	return r.seg
}

// Type returns the result's type.
func (r *Result) Type() sdql.Type { return r.t }

// Scalar returns a scalar result.
func (r *Result) Scalar() float64 { return r.scalar }

// Value returns the result as an sdql value (for printing and comparing
// with sdql.Equal).
func (r *Result) Value() sdql.Value {
	switch r.k {
	case kReal:
		return sdql.Real(r.scalar)
	case kInt:
		return sdql.Int(int(r.scalar))
	case kBool:
		return sdql.Bool(r.scalar != 0)
	}
	if r.seg != nil {
		return r.seg.value()
	}
	return toValue(r.dict)
}

var errNotTensor = errors.New("exec: the result is not a real tensor")

// underScalarLets returns the body of e under the lets that bind only
// scalars.
func underScalarLets(c *compiler, e sdql.Expr) sdql.Expr {
	for {
		let, ok := e.(*sdql.LetExpr)
		if !ok {
			return e
		}
		for _, v := range let.Values {
			if kindOf(c.typeOf(v)) == kDict {
				return e
			}
		}
		e = let.Body
	}
}
