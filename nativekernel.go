package nablasd

import (
	"bytes"
	"fmt"
	"plugin"
	"strings"
	"sync/atomic"

	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/internal/jit"
	"github.com/nablasd/nablasd/sdql"
)

// jitKernel is a kernel compiled to native code (Options.Exec "jit"): the
// generated Go of the loop IR (GenerateGo) built as a plugin (package
// internal/jit) and called through three functions the wrapper below adds
// to the generated file.
type jitKernel struct {
	gen *gogen.Kernel
	// run calls the kernel on its parameters, in order, into dst with
	// the workspace ws, its parallel loops on up to threads goroutines; it
	// returns a scalar result and the most goroutines a loop ran on
	run func(args []any, dst, ws any, threads int) (float64, int, error)
	// threads is Options.Threads; used the goroutines the most recent run
	// used (Kernel.Threads)
	threads int
	used    atomic.Int32
	// alloc makes an empty destination and workspace
	alloc func() (dst, ws any)
	// entries reads a tensor destination, empty its inner dictionaries
	// present without entries
	entries func(dst any, f func([]int, float64) bool)
	empty   func(dst any, f func([]int) bool)
	// dense returns the values of a destination whose levels are all
	// dense and full, row-major (nil for any other)
	dense func(dst any) []float64
}

// jitResult is a destination of a jitKernel.
type jitResult struct {
	k       *jitKernel
	dst, ws any
	scalar  float64
	args    []any
}

// wrapperSource is the code added to a generated kernel's file to call it
// without knowing its parameters' types: NablasdRun, NablasdAlloc,
// NablasdEntries, NablasdEmpty and NablasdDense (a result whose levels
// are all dense and full, denseResult, is its Vals, row-major).
// NablasdRun passes threads to a kernel that takes it
// (gogen.Kernel.Parallel) and returns what its workspace says it used
// (Workers).
func wrapperSource(k *gogen.Kernel, denseResult bool) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString("\n// The entry points of nablasd's JIT (Options.Exec \"jit\").\n\n")
	var args []string
	for i, p := range k.Params {
		switch p.GoType {
		case "float64", "int", "bool", "[]int", "[]float64":
		default:
			return nil, fmt.Errorf("parameter %s is a %s, not a scalar or an array", p.Name, p.GoType)
		}
		args = append(args, fmt.Sprintf("args[%d].(%s)", i, p.GoType))
	}
	b.WriteString("func NablasdRun(args []any, dst, ws any, threads int) (float64, int, error) {\n")
	if k.ResultType != "" {
		args = append(args, fmt.Sprintf("dst.(*%s)", k.ResultType))
	}
	if k.WorkType != "" {
		args = append(args, fmt.Sprintf("ws.(*%s)", k.WorkType))
	}
	used := "1"
	if k.Parallel {
		if k.WorkType == "" {
			return nil, fmt.Errorf("the parallel kernel has no workspace")
		}
		args = append(args, "threads")
		used = fmt.Sprintf("ws.(*%s).Workers", k.WorkType)
	} else {
		b.WriteString("\t_ = threads\n")
	}
	call := fmt.Sprintf("%s(%s)", k.Func, strings.Join(args, ", "))
	switch k.Scalar {
	case "":
		fmt.Fprintf(&b, "\terr := %s\n\treturn 0, %s, err\n", call, used)
	case "bool":
		fmt.Fprintf(&b, "\tv, err := %s\n\tif v {\n\t\treturn 1, %s, err\n\t}\n\treturn 0, %s, err\n", call, used, used)
	default:
		fmt.Fprintf(&b, "\tv, err := %s\n\treturn float64(v), %s, err\n", call, used)
	}
	b.WriteString("}\n\n")
	b.WriteString("func NablasdAlloc() (dst, ws any) {\n")
	if k.ResultType != "" {
		fmt.Fprintf(&b, "\tdst = &%s{}\n", k.ResultType)
	}
	if k.WorkType != "" {
		fmt.Fprintf(&b, "\tws = &%s{}\n", k.WorkType)
	}
	b.WriteString("\treturn dst, ws\n}\n\n")
	b.WriteString("func NablasdEntries(dst any, f func([]int, float64) bool) {\n")
	if k.ResultType != "" {
		fmt.Fprintf(&b, "\tdst.(*%s).Entries(f)\n", k.ResultType)
	}
	b.WriteString("}\n\n")
	b.WriteString("func NablasdEmpty(dst any, f func([]int) bool) {\n")
	if k.ResultType != "" {
		fmt.Fprintf(&b, "\tdst.(*%s).Empty(f)\n", k.ResultType)
	}
	b.WriteString("}\n\n")
	b.WriteString("func NablasdDense(dst any) []float64 {\n")
	if k.ResultType != "" && denseResult && k.Leaf == "float64" {
		fmt.Fprintf(&b, "\treturn dst.(*%s).Vals\n", k.ResultType)
	} else {
		b.WriteString("\treturn nil\n")
	}
	b.WriteString("}\n")
	return b.Bytes(), nil
}

// jitSymbols are the plugin's entry points, as wrapperSource writes them.
var jitSymbols = []string{"NablasdRun", "NablasdAlloc", "NablasdEntries", "NablasdEmpty", "NablasdDense"}

// compileJIT generates the Go of the kernel of plan p and builds it into
// native code.
func (q *Query) compileJIT(p *Plan) (*jitKernel, error) {
	k, src, err := q.jitSource(p)
	if err != nil {
		return nil, err
	}
	syms, err := jit.Load(src, jitSymbols...)
	if err != nil {
		return nil, err
	}
	return newJITKernel(k, syms, q.opts.Threads)
}

// jitDocLines bounds each program the JIT's kernels print in their doc
// comment: the source is made on every Compile (its hash is the key of the
// JIT's cache), and the doc is for a reader of the cache, who has `nablasd
// plan` for the rest.
const jitDocLines = 24

// jitSource generates the Go of the kernel of plan p with the JIT's entry
// points (wrapperSource): the source of its plugin.
func (q *Query) jitSource(p *Plan) (*gogen.Kernel, []byte, error) {
	// parallel loops only where they may run: a kernel of one goroutine
	// keeps its serial loops alone in its function (the parallel branch
	// and its closures would cost the serial path registers)
	k, ir, err := q.generateIR(p, gogen.Options{Func: "Kernel", Package: "main", Workspace: true, Parallel: q.opts.Threads > 1}, jitDocLines)
	if err != nil {
		return nil, nil, err
	}
	w, err := wrapperSource(k, (&Plan{Loops: ir}).fullResult())
	if err != nil {
		return nil, nil, err
	}
	return k, append(append([]byte(nil), k.Source...), w...), nil
}

// newJITKernel binds the entry points of k's loaded plugin, its parallel
// loops to run on up to threads goroutines (Options.Threads).
func newJITKernel(k *gogen.Kernel, syms map[string]plugin.Symbol, threads int) (*jitKernel, error) {
	run, ok1 := syms["NablasdRun"].(func([]any, any, any, int) (float64, int, error))
	alloc, ok2 := syms["NablasdAlloc"].(func() (any, any))
	entries, ok3 := syms["NablasdEntries"].(func(any, func([]int, float64) bool))
	empty, ok4 := syms["NablasdEmpty"].(func(any, func([]int) bool))
	dense, ok5 := syms["NablasdDense"].(func(any) []float64)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 {
		return nil, fmt.Errorf("jit: the plugin's entry points have unexpected types")
	}
	return &jitKernel{gen: k, run: run, alloc: alloc, entries: entries, empty: empty, dense: dense, threads: threads}, nil
}

// runInto runs the kernel over the bindings (the plan's program's inputs
// by name) into r.
func (j *jitKernel) runInto(r *jitResult, bindings map[string]sdql.Value) error {
	if r.args == nil {
		r.args = make([]any, len(j.gen.Params))
	}
	for i, p := range j.gen.Params {
		v, ok := bindings[p.Name]
		if !ok {
			return fmt.Errorf("nablasd: input %s is not bound", p.Name)
		}
		a, err := jitArg(p, v)
		if err != nil {
			return err
		}
		r.args[i] = a
	}
	s, used, err := j.run(r.args, r.dst, r.ws, j.threads)
	r.scalar = s
	j.used.Store(int32(used))
	return err
}

// usedThreads is the most goroutines a loop of the most recent run used.
func (j *jitKernel) usedThreads() int { return max(int(j.used.Load()), 1) }

// jitArg converts a binding to the Go type of a generated parameter.
func jitArg(p gogen.Param, v sdql.Value) (any, error) {
	switch p.GoType {
	case "float64":
		switch x := v.(type) {
		case sdql.Real:
			return float64(x), nil
		case sdql.Int:
			return float64(x), nil
		}
	case "int":
		switch x := v.(type) {
		case sdql.Int:
			return int(x), nil
		case sdql.Real:
			return int(x), nil
		}
	case "bool":
		if x, ok := v.(sdql.Bool); ok {
			return bool(x), nil
		}
	case "[]int":
		if x, ok := v.(sdql.IntArray); ok {
			return []int(x), nil
		}
	case "[]float64":
		if x, ok := v.(sdql.RealArray); ok {
			return []float64(x), nil
		}
	}
	return nil, fmt.Errorf("nablasd: input %s: %T is not a %s", p.Name, v, p.GoType)
}

// newResult makes an empty destination.
func (j *jitKernel) newResult() *jitResult {
	dst, ws := j.alloc()
	return &jitResult{k: j, dst: dst, ws: ws}
}

// value builds the result as an sdql value.
func (r *jitResult) value(t sdql.Type) sdql.Value {
	if r.k.gen.ResultType == "" {
		return leafOf(t, r.scalar)
	}
	root := sdql.Zero(t)
	r.k.entries(r.dst, func(keys []int, v float64) bool {
		root = addAt(root, t, keys, v)
		return true
	})
	// the rows present without entries ({2 -> {}}), which the entries
	// do not reach: the structure is the interpreter's
	r.k.empty(r.dst, func(keys []int) bool {
		root = emptyAt(root, t, keys)
		return true
	})
	return root
}

// emptyAt makes the inner dictionary at keys of d (of type t) present,
// empty when it was not.
func emptyAt(d sdql.Value, t sdql.Type, keys []int) sdql.Value {
	dt, ok := t.(*sdql.DictType)
	if !ok || len(keys) == 0 {
		return d
	}
	dict, ok := d.(*sdql.Dict)
	if !ok {
		dict = sdql.Zero(t).(*sdql.Dict)
	}
	old, found := dict.Get(keys[0])
	if !found {
		old = sdql.Zero(dt.Val)
	}
	dict.Set(keys[0], emptyAt(old, dt.Val, keys[1:]))
	return dict
}

// addAt adds v at keys into a dictionary of type t.
func addAt(d sdql.Value, t sdql.Type, keys []int, v float64) sdql.Value {
	dt, ok := t.(*sdql.DictType)
	if !ok || len(keys) == 0 {
		return leafOf(t, v)
	}
	dict, ok := d.(*sdql.Dict)
	if !ok {
		dict = sdql.Zero(t).(*sdql.Dict)
	}
	old, found := dict.Get(keys[0])
	if !found {
		old = sdql.Zero(dt.Val)
	}
	dict.Set(keys[0], addAt(old, dt.Val, keys[1:], v))
	return dict
}

func leafOf(t sdql.Type, v float64) sdql.Value {
	switch t {
	case sdql.IntType:
		return sdql.Int(int(v))
	case sdql.BoolType:
		return sdql.Bool(v != 0)
	}
	return sdql.Real(v)
}
