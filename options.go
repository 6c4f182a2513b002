package nablasd

import (
	"fmt"
	"time"
)

// Options configure Prepare. The zero value, and a nil *Options, mean the
// defaults: the full optimizer, compiled kernels that turn native once
// they have run long enough (Exec "auto"), the mode of automatic
// differentiation chosen per program, shapes checked and the memory
// budget of DefaultMemoryLimit.
type Options struct {
	// File names the program in messages (prog.sdql:3:14: ...);
	// PrepareFile sets it.
	File string
	// Opt selects the optimizations: "full" (the default: sparsity
	// propagation, rewrite strategies, equality saturation, storage
	// fusion, multiplication normalization), "rules" (no equality
	// saturation) or "none" (the logical program, run over the inputs'
	// logical values).
	Opt string
	// Exec selects the executor: "auto" (the default: the compiled
	// kernel, and native code once it pays, see below), "compiled"
	// (exec's kernel compiler: closures over the loop IR, compiled in
	// milliseconds), "jit" (the generated Go of the loop IR, GenerateGo,
	// built into native code with the Go toolchain as a plugin and
	// cached: package internal/jit; about a second per new kernel, and
	// where plugins cannot be built or loaded, the compiled kernel with a
	// warning) or "interp" (the reference interpreter).
	//
	// "auto" compiles the closures, as "compiled" does, and generates the
	// kernel's Go: when the JIT's cache holds it built (a run with "jit",
	// or an earlier process, built it), the kernel runs native from its
	// first run. Otherwise the closures run, and once they have run for
	// JITAfter in all, the native kernel is built in the background (one
	// build at a time in the process; the runs go on meanwhile). Once it
	// is there, the next runs alternate the two, timed, and the one whose
	// fastest of five runs is faster is kept for good: Kernel.Executor
	// and Kernel.Tier say which and why. That verdict is kept beside the
	// plugin in the JIT's cache (per Options.Threads and size of the
	// inputs), so that a later process runs the faster from its first run
	// instead of measuring again. A failed build leaves the closures,
	// with one warning. The environment
	// variable NABLASD_JIT=off, or a machine without the Go toolchain or
	// a C compiler, leaves the closures only.
	Exec string
	// JITAfter is the closures' run time after which an "auto" kernel
	// builds its native code: 0 means DefaultJITAfter (200 ms); a
	// negative value builds nothing (a kernel the JIT's cache holds still
	// runs native).
	JITAfter time.Duration
	// Mode selects automatic differentiation's mode: "auto" (the default:
	// chosen per derivative, see Plan.Mode), "forward" (∇SD's tensorized
	// forward mode) or "reverse" (linearize, unzip, transpose: a gradient
	// costs a small constant times the program at any depth).
	Mode string
	// Dict selects the hash index of the compiled kernel's hashed
	// dictionaries: "intmap" (the default), "map" or "swiss".
	Dict string
	// Threads lets a compiled kernel (and a native one, Exec "jit", in the
	// loops lowering marks parallel) use up to Threads goroutines where a
	// step has enough work to share (0 or 1: one).
	Threads int
	// NoDPS makes compiled kernels build intermediate dictionaries, as
	// before destination passing (the paper's Fig. 16 ablation).
	NoDPS bool
	// NoHoist leaves every term in the loop it is written in, even where
	// it does not depend on the loop (without the invariant code motion
	// of sdql.Hoist); NoShare computes a repeated term at each place it
	// is written (without the sharing of sdql.Share). Both are
	// ablations: by default the pipeline does both, before
	// differentiating and again on the derivative, so that how a program
	// is structured does not decide how fast it runs.
	NoHoist, NoShare bool
	// NoValidate skips the checks of the tensors' format invariants
	// (formats.Tensor.Validate) when they are bound: by Prepare, and by
	// Kernel.Run given inputs (trusted inputs). Compiled kernels rely on
	// them and do not check again on each run, so a tensor whose
	// structure (pos or idx arrays) is changed in place after it is bound
	// must be bound again; changing values is always fine.
	NoValidate bool
	// NoShapeCheck turns off the shape check: a lookup x(j) with j over
	// another input's dimension (A's columns) is then not compared with
	// x's extent, and keys x does not store read as zero, the language's
	// partial-dictionary semantics. The check of the products' shapes
	// (Derivative: a tangent has its input's shape, a cotangent the
	// result's) is off too: keys a product lacks read as zero, and those
	// its input or the result does not store are ignored.
	NoShapeCheck bool
	// MemoryLimit is the memory budget in bytes: a program certain to
	// build a larger result (a dense range of 10^12 entries) is an error
	// before anything runs, and a dense level or a dictionary that would
	// take the heap past it stops the run with an error before the memory
	// is taken. 0 means DefaultMemoryLimit() (80% of AvailableMemory); a
	// negative value means no budget, where the memory available
	// (AvailableMemory: the machine's, the cgroup's, half the
	// address-space limit) still bounds a result the same way, so that one
	// larger than the machine is an error rather than the Go runtime's
	// fatal "out of memory". The Go runtime's soft limit
	// (debug.SetMemoryLimit) is the caller's to set; the command line sets
	// it to the budget.
	MemoryLimit int64
	// DisablePasses names lowering passes (lower.Passes) that do not run,
	// for tests and debugging (`nablasd plan --disable`): the kernel stays
	// right, only slower. A required pass cannot be disabled.
	DisablePasses []string
	// TracePasses makes Plan record the loop IR after each lowering pass
	// (Plan.Passes: `nablasd plan --passes` and `--after`).
	TracePasses bool
}

// The values of Options.Opt, Options.Exec, Options.Dict and Options.Mode.
var (
	optModes  = []string{"full", "rules", "none"}
	execModes = []string{"auto", "compiled", "jit", "interp"}
	dictKinds = []string{"intmap", "map", "swiss"}
	adModes   = []string{"auto", "forward", "reverse"}
)

// withDefaults returns a copy of o with the defaults filled in, or an
// error naming a bad value.
func (o *Options) withDefaults() (Options, error) {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Opt == "" {
		c.Opt = "full"
	}
	if c.Exec == "" {
		c.Exec = "auto"
	}
	if c.JITAfter == 0 {
		c.JITAfter = DefaultJITAfter
	}
	if c.Dict == "" {
		c.Dict = "intmap"
	}
	if c.Mode == "" {
		c.Mode = "auto"
	}
	for _, chk := range []struct {
		what, v string
		want    []string
	}{{"Opt", c.Opt, optModes}, {"Exec", c.Exec, execModes}, {"Dict", c.Dict, dictKinds}, {"Mode", c.Mode, adModes}} {
		if !contains(chk.want, chk.v) {
			return c, fmt.Errorf("nablasd: Options.%s %q: want one of %v", chk.what, chk.v, chk.want)
		}
	}
	if c.Threads < 0 {
		return c, fmt.Errorf("nablasd: Options.Threads %d: want at least 0", c.Threads)
	}
	if c.MemoryLimit == 0 {
		c.MemoryLimit = DefaultMemoryLimit()
	}
	return c, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}
