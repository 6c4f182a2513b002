package exec

import (
	"fmt"
	"os"
	"runtime"
	"slices"
	"sort"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// Options configure Compile.
type Options struct {
	// Opt selects the optimization level of the paper's Fig. 16: "none"
	// and "norm" build every let-bound dictionary before reading it (as
	// before destination passing); "dps" (the default) reads them in
	// place where they are used and writes dictionary results straight
	// into the destination.
	Opt string
	// Dict selects the hash index of hashed levels (exec/index.go):
	// "intmap" (the default, open addressing on int keys), "map" (Go's
	// built-in map, a Swiss table since Go 1.24) or "swiss"
	// (github.com/dolthub/swiss, archived upstream; kept to compare the
	// three by measurement).
	Dict string
	// NoDense hashes every level of every dictionary the kernel builds
	// (the paper's dictionary variant); by default lowering chooses dense
	// arrays and sparse workspaces where the keys allow.
	NoDense bool
	// ResultShape gives the extents of the result's levels when known (0
	// or a missing entry: unknown). A known extent makes that level dense
	// with every key present.
	ResultShape []int
	// Formats gives the storage of each tensor input bound as its
	// format's arrays (lower.Options.Formats): what lowering may assume of
	// them, and what validation checks before a run.
	Formats map[string]lower.Format
	// CompletedOn names the input whose stored positions the caller
	// completes the result to (lower.Options.CompletedOn): the kernel may
	// hold zeros at more of them than the program builds.
	CompletedOn string
	// EqualModes groups modes of the tensor inputs the caller has
	// checked to have equal extents, before every run
	// (lower.Options.EqualModes).
	EqualModes [][]lower.Mode
	// Threads is the most goroutines a run may use; loops lowering marks
	// parallel are split across them where they have enough work.
	// Results equal the serial ones up to floating-point reassociation.
	// 0 or 1 runs serially.
	Threads int
	// NoValidate skips the checks of the inputs' format invariants the
	// kernel relies on (monotone pos arrays, sorted coordinates); array
	// bounds are still checked.
	NoValidate bool
	// NoFast runs every loop as general closures, without the primitive
	// rules' whole-loop implementations (for tests and ablation).
	NoFast bool
	// MemoryLimit bounds, in bytes, the storage of one tensor the kernel
	// builds: a dense level of known extent past it is an error before it
	// is allocated. 0: no limit.
	MemoryLimit int64
	// DisablePasses and TracePasses are lowering's Options.Disable and
	// Options.Trace (tests and debugging), for Compile.
	DisablePasses []string
	TracePasses   func(pass string, p *lower.Program)
}

// Kernel is a compiled program: call Run or RunInto with the bindings of
// its inputs. A Kernel may be run by several goroutines at once.
type Kernel struct {
	prog   sdql.Expr
	info   *sdql.Info
	opts   Options
	ir     *lower.Program
	c      *compiler
	top    stmt
	result sdql.Type
	checks []check
	frames sync.Pool
	// lastThreads is the goroutines the most recent run used
	lastThreads atomic.Int32
}

// Compile lowers prog (its free variables typed by inputs) to the loop IR
// and compiles that to a kernel.
func Compile(prog sdql.Expr, inputs map[string]sdql.Type, opts Options) (k *Kernel, err error) {
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: inputs, Strict: true})
	if err != nil {
		return nil, err
	}
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	p, err := lower.Lower(prog, info, lowerOptions(opts))
	if err != nil {
		return nil, err
	}
	return compileIR(prog, info, p, opts)
}

// lowerOptions are lowering's options for a kernel compiled with opts.
func lowerOptions(opts Options) lower.Options {
	return lower.Options{Formats: opts.Formats, ResultShape: opts.ResultShape,
		CompletedOn: opts.CompletedOn, EqualModes: opts.EqualModes, NoDense: opts.NoDense, NoViews: opts.Opt == "none" || opts.Opt == "norm",
		Disable: opts.DisablePasses, Trace: opts.TracePasses}
}

// CompileLowered compiles a program already lowered (lower.Lower) with the
// options these give (the program is checked again; p must be its
// lowering): how the root package compiles the loops its plan holds.
func CompileLowered(prog sdql.Expr, info *sdql.Info, p *lower.Program, opts Options) (*Kernel, error) {
	if err := checkOptions(opts); err != nil {
		return nil, err
	}
	return compileIR(prog, info, p, opts)
}

func checkOptions(opts Options) error {
	switch opts.Opt {
	case "", "dps", "none", "norm":
	default:
		return fmt.Errorf("exec: unknown optimization level %q (want none, norm or dps)", opts.Opt)
	}
	switch opts.Dict {
	case "", "intmap", "map", "swiss":
	default:
		return fmt.Errorf("exec: unknown dictionary %q (want intmap, map or swiss)", opts.Dict)
	}
	return nil
}

// CompileFor compiles prog for inputs like the given bindings (their
// types from their values).
func CompileFor(prog sdql.Expr, bindings map[string]sdql.Value, opts Options) (*Kernel, error) {
	types := make(map[string]sdql.Type, len(bindings))
	for n, v := range bindings {
		types[n] = sdql.TypeOfValue(v)
	}
	return Compile(prog, types, opts)
}

func compileIR(prog sdql.Expr, info *sdql.Info, p *lower.Program, opts Options) (k *Kernel, err error) {
	defer func() {
		if r := recover(); r != nil {
			ce, ok := r.(compileError)
			if !ok {
				panic(r)
			}
			k, err = nil, ce.err
		}
	}()
	c := &compiler{p: p, opts: opts}
	if opts.Threads > 1 {
		c.deferred = lower.FindDeferredClears(p, func(f *lower.For, t *lower.Tensor) bool {
			return slices.Contains(f.Par.Tensors, t) // every marked loop runs parallelFor
		})
	}
	c.findInResults() // inresult.go
	k = &Kernel{prog: prog, info: info, opts: opts, ir: p, c: c, result: info.Result}
	k.top = c.stmt(p.Body)
	if !opts.NoValidate {
		k.checks = checksFor(p, opts.Formats)
	}
	k.frames.New = func() any { return c.newFrame() }
	return k, nil
}

// compileError is raised (panicked) inside the compiler.
type compileError struct{ err error }

// Program returns the kernel's loop IR (lower.Print prints it).
func (k *Kernel) Program() *lower.Program { return k.ir }

// Type returns the type of the kernel's result.
func (k *Kernel) Type() sdql.Type { return k.result }

// Threads is the number of goroutines the kernel's most recent run used
// (1 before the first run).
func (k *Kernel) Threads() int { return max(int(k.lastThreads.Load()), 1) }

// NewResult returns an empty destination for the kernel's result, to be
// filled (and refilled) by RunInto.
func (k *Kernel) NewResult() *Result { return &Result{t: k.result, k: k} }

// Run runs the kernel over bindings (every input by name) and returns a
// new result.
func (k *Kernel) Run(bindings map[string]sdql.Value) (*Result, error) {
	r := k.NewResult()
	if err := k.RunInto(r, bindings); err != nil {
		return nil, err
	}
	return r, nil
}

// RunInto runs the kernel over bindings, writing into r (a result of this
// kernel, refilled in place: its storage is reused).
func (k *Kernel) RunInto(r *Result, bindings map[string]sdql.Value) (err error) {
	if r.k != k {
		return fmt.Errorf("exec: a result of another kernel")
	}
	fr := r.fr
	if fr == nil {
		fr = k.frames.Get().(*frame)
		r.fr = fr
	}
	if err := k.bind(fr, bindings); err != nil {
		return err
	}
	fr.validated = fr.validated[:0]
	for _, ch := range k.checks {
		if err := ch(fr); err != nil {
			return err
		}
	}
	defer func() {
		if p := recover(); p != nil {
			switch e := p.(type) {
			case *rtError:
				err = e
			case runtime.Error:
				if os.Getenv("EXEC_PANIC") != "" {
					panic(p)
				}
				err = fmt.Errorf("exec: %v (an input breaks its format's invariants; run without --no-validate)", e)
			default:
				panic(p)
			}
		}
	}()
	fr.used = 1
	k.top(fr)
	k.lastThreads.Store(int32(fr.used))
	return nil
}

// bind loads the bindings into the frame's slots.
func (k *Kernel) bind(fr *frame, b map[string]sdql.Value) error {
	for _, pa := range k.ir.Params {
		v, ok := b[pa.Name]
		if !ok {
			return fmt.Errorf("exec: input %s is not bound", pa.Name)
		}
		switch {
		case pa.Var != nil:
			id := pa.Var.ID
			switch x := v.(type) {
			case sdql.Real:
				fr.f[id], fr.i[id] = float64(x), int(x)
			case sdql.Int:
				fr.f[id], fr.i[id] = float64(x), int(x)
			case sdql.Bool:
				fr.i[id] = b2i(bool(x))
			default:
				return fmt.Errorf("exec: input %s: %T is not a scalar", pa.Name, v)
			}
		case pa.Array != nil:
			switch x := v.(type) {
			case sdql.IntArray:
				fr.ia[pa.Array.ID] = x
			case sdql.RealArray:
				fr.fa[pa.Array.ID] = x
			default:
				return fmt.Errorf("exec: input %s: %T is not an array", pa.Name, v)
			}
		case pa.Tensor != nil:
			d, ok := v.(*sdql.Dict)
			if !ok {
				return fmt.Errorf("exec: input %s: %T is not a dictionary", pa.Name, v)
			}
			fillTensor(fr.t[pa.Tensor.ID], d)
		}
	}
	return nil
}

// fillTensor loads a dictionary input into a hashed tensor, keys
// ascending.
func fillTensor(rt *tensor, d *sdql.Dict) {
	rt.reset(make([]int, len(rt.levels)))
	lower.FillDict(d, len(rt.levels), rt.insert, func(c int, v float64) { rt.vals[c] = v })
}

// check is a validation of an input before a run.
type check func(fr *frame) error

// checksFor validates the format invariants lowering relies on for each
// input described by Formats: compressed levels' pos arrays start at 0,
// grow monotonically and end at their idx array's length, and the
// coordinates of the levels the program relies on the order of
// (lower.Program.Ordered) ascend strictly within a parent. An array bound
// under two names (a matrix multiplied by itself) is checked once a run.
func checksFor(p *lower.Program, fs map[string]lower.Format) []check {
	arrays := map[string]*lower.Array{}
	for _, a := range p.Arrays {
		arrays[a.Name] = a
	}
	ordered := map[*lower.Array]bool{}
	for _, a := range p.Ordered {
		ordered[a] = true
	}
	vars := map[string]*lower.Var{}
	for _, pa := range p.Params {
		if pa.Var != nil {
			vars[pa.Name] = pa.Var
		}
	}
	var out []check
	for _, name := range sortedNames(fs) {
		f := fs[name]
		ls, err := formats.Levels(f.Format, name, f.Order)
		if err != nil {
			continue
		}
		// a compressed level under a dense top level has one pos entry a
		// row and one more
		if len(ls) > 1 && ls[0].CoordIter && ls[1].Pos != "" {
			if n, pos := vars[ls[0].Extent], arrays[ls[1].Pos]; n != nil && pos != nil {
				top, lvl := ls[0], ls[1]
				out = append(out, func(fr *frame) error {
					if got, want := len(fr.ia[pos.ID]), fr.i[n.ID]+1; got != want {
						return fmt.Errorf("exec: input %s: %s has %d entries, want %s + 1 = %d", top.Tensor, lvl.Pos, got, top.Extent, want)
					}
					return nil
				})
			}
		}
		for _, l := range ls {
			if l.Pos == "" {
				continue
			}
			pos, idx := arrays[l.Pos], arrays[l.Idx]
			if pos == nil || idx == nil {
				continue
			}
			l, asc := l, ordered[idx]
			out = append(out, func(fr *frame) error {
				ps, is := fr.ia[pos.ID], fr.ia[idx.ID]
				if fr.checked(ps, is, asc) {
					return nil
				}
				if len(ps) == 0 || ps[0] != 0 || ps[len(ps)-1] != len(is) {
					return fmt.Errorf("exec: input %s: %s does not run from 0 to len(%s) = %d", l.Tensor, l.Pos, l.Idx, len(is))
				}
				for q := 1; q < len(ps); q++ {
					if ps[q] < ps[q-1] {
						return fmt.Errorf("exec: input %s: %s[%d] = %d < %s[%d] = %d: not monotone", l.Tensor, l.Pos, q, ps[q], l.Pos, q-1, ps[q-1])
					}
				}
				if asc {
					for q := 0; q+1 < len(ps); q++ {
						seg := is[ps[q]:ps[q+1]]
						for i := 1; i < len(seg); i++ {
							if seg[i] <= seg[i-1] {
								return fmt.Errorf("exec: input %s: %s is not strictly ascending in parent %d", l.Tensor, l.Idx, q)
							}
						}
					}
				}
				fr.noteChecked(ps, is, asc)
				return nil
			})
		}
	}
	return out
}

// checkedPair is a (pos, idx) pair validated in this run.
type checkedPair struct {
	pos, idx *int
	np, ni   int
	asc      bool
}

// checked reports whether this pair of arrays was validated already in
// this run (as strictly as asc asks).
func (fr *frame) checked(ps, is []int, asc bool) bool {
	for _, c := range fr.validated {
		if c.pos == unsafe.SliceData(ps) && c.np == len(ps) && c.idx == unsafe.SliceData(is) && c.ni == len(is) && (c.asc || !asc) {
			return true
		}
	}
	return false
}

func (fr *frame) noteChecked(ps, is []int, asc bool) {
	fr.validated = append(fr.validated, checkedPair{unsafe.SliceData(ps), unsafe.SliceData(is), len(ps), len(is), asc})
}

func sortedNames[T any](m map[string]T) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
