package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/nablasd/nablasd/sdql"
)

// flagSet is a flag.FlagSet that remembers its flags in order, to print
// them with their defaults and to suggest the nearest for a misspelt one.
type flagSet struct {
	*flag.FlagSet
	order []string
}

func newFlagSet(name string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flagSet{FlagSet: fs}
}

func (fs *flagSet) add(name string) { fs.order = append(fs.order, name) }

func (fs *flagSet) String(p *string, name, def, usage string) {
	fs.StringVar(p, name, def, usage)
	fs.add(name)
}

func (fs *flagSet) Int(p *int, name string, def int, usage string) {
	fs.IntVar(p, name, def, usage)
	fs.add(name)
}

func (fs *flagSet) Float(p *float64, name string, def float64, usage string) {
	fs.Float64Var(p, name, def, usage)
	fs.add(name)
}

func (fs *flagSet) Duration(p *time.Duration, name string, def time.Duration, usage string) {
	fs.DurationVar(p, name, def, usage)
	fs.add(name)
}

func (fs *flagSet) Bool(p *bool, name string, def bool, usage string) {
	fs.BoolVar(p, name, def, usage)
	fs.add(name)
}

func (fs *flagSet) Value(v flag.Value, name, usage string) {
	fs.Var(v, name, usage)
	fs.add(name)
}

// help lists every flag, one a line, with its argument and default:
//
//	--threads N    run the kernel on up to N goroutines ... (default 1)
func (fs *flagSet) help() string {
	var b strings.Builder
	for _, name := range fs.order {
		f := fs.Lookup(name)
		arg, usage := flag.UnquoteUsage(f)
		dash := "--"
		if len(name) == 1 {
			dash = "-"
		}
		head := dash + name
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); !isBool || arg != "" {
			if arg == "" {
				arg = "value"
			}
			head += " " + arg
		}
		def := f.DefValue
		switch {
		case def == "" || def == "[]":
			def = ""
		case def == "false":
			def = ""
		default:
			def = fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintf(&b, "  %-22s %s%s\n", head, usage, def)
	}
	return b.String()
}

// parse parses the command's flags; a misspelt flag gets the nearest one
// suggested, -h gives helpShown.
func (fs *flagSet) parse(args []string) error {
	err := fs.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return helpShown
	case err != nil:
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			name = strings.TrimPrefix(name, "-")
			msg = fmt.Sprintf("unknown flag --%s", name)
			if s := sdql.Suggest(name, fs.order); s != "" {
				msg += fmt.Sprintf(" (did you mean --%s?)", s)
			}
		}
		return usagef("%s: %s", fs.Name(), msg)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// inputFlags collects repeated --in NAME=VALUE flags.
type inputFlags []string

func (f *inputFlags) String() string     { return strings.Join(*f, " ") }
func (f *inputFlags) Set(s string) error { *f = append(*f, s); return nil }

// wrtFlag is --wrt NAME[,NAME...], repeatable: the inputs to
// differentiate with respect to (several: one reverse sweep). name joins
// them with commas.
type wrtFlag struct {
	name  string
	names []string
}

func (f *wrtFlag) String() string { return f.name }
func (f *wrtFlag) Set(s string) error {
	for _, n := range strings.Split(s, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			return fmt.Errorf("%q: want NAME[,NAME...]", s)
		}
		for _, m := range f.names {
			if m == n {
				return fmt.Errorf("%s is given twice", n)
			}
		}
		f.names = append(f.names, n)
	}
	f.name = strings.Join(f.names, ",")
	return nil
}

// commonArgs are the flags every program-taking command shares.
type commonArgs struct {
	file, text   string
	inputs       inputFlags
	wrt          wrtFlag
	diff         diffFlags // with wrt: --mode, --value, --vjp, --jvp, --hvp (derive.go)
	opt          string
	noShapeCheck bool
	memoryLimit  string
	disable      string // --disable PASS[,PASS...]
}

func (c *commonArgs) register(fs *flagSet, withWrt bool) {
	fs.String(&c.file, "f", "", "read the program from `FILE`")
	fs.String(&c.text, "e", "", "the program `TEXT`")
	fs.Value(&c.inputs, "in", "bind an input: `NAME=VALUE` (repeatable; see 'nablasd help')")
	if withWrt {
		fs.Value(&c.wrt, "wrt", "differentiate with respect to the inputs `NAME[,NAME...]` (repeatable; several from one reverse sweep)")
		c.diff.register(fs)
	}
	fs.String(&c.opt, "opt", "full", "optimizations, a `LEVEL`: full, rules (no equality saturation) or none (the logical program)")
	fs.Bool(&c.noShapeCheck, "no-shape-check", false, "do not check lookups against the inputs' shapes (x(j) with j over A's columns), nor products against theirs (--jvp, --hvp, --vjp): keys x lacks read as zero")
	fs.String(&c.disable, "disable", "", "lowering passes not to run, `PASS[,PASS...]` (debugging: the kernel stays right, only slower; nablasd plan --passes lists them)")
	fs.String(&c.memoryLimit, "memory-limit", "80%", "memory budget: a `SIZE` in bytes (512MiB, 4GB, ...), a percentage of the memory available (the least of the machine's, the cgroup's and half the address-space limit), or none (also 0, 0B: no budget, but a result larger than the memory available is still refused); also the Go runtime's soft limit")
}

// source returns the program's name (for error messages) and text.
func (c *commonArgs) source() (string, string, error) {
	switch {
	case c.file != "" && c.text != "":
		return "", "", usagef("give the program with -f FILE or -e TEXT, not both")
	case c.file != "":
		b, err := os.ReadFile(c.file)
		if err != nil {
			return "", "", fmt.Errorf("cannot read the program: %v", err)
		}
		return c.file, string(b), nil
	case c.text != "":
		return "", c.text, nil
	}
	return "", "", usagef("no program: give -f FILE or -e TEXT")
}

// evalArgs are the flags of eval and grad.
type evalArgs struct {
	commonArgs
	out        string
	exec       string
	dict       string
	threads    int
	dps        bool
	noValidate bool
	outFormat  string
	repeat     int
	stats      bool
	// checkFinite makes a result with a NaN or an infinity an error
	checkFinite bool
	// print is --print: auto, all or summary (print.go)
	print string
	batch batchFlags // --group-by, --resume, --quiet (batch.go)
}

func (a *evalArgs) register(fs *flagSet) {
	fs.String(&a.out, "out", "", "write the result to `FILE` (.mtx or .mtx.gz: Matrix Market; .parquet, .arrow, .arrows: a table)")
	fs.String(&a.exec, "exec", "auto", "the `EXECUTOR`: auto (the kernel compiler's closures, or the native kernel when the JIT's cache holds it: --exec jit builds and caches it once, and auto picks it up from then on; a --group-by job builds it itself once its groups have run 200ms), compiled (the closures only), jit (the generated Go built into native code with the Go toolchain, cached; about a second per new kernel) or interp (the reference interpreter)")
	fs.String(&a.dict, "dict", "intmap", "the hash `INDEX` of hashed dictionaries: intmap, map (Go's map) or swiss")
	fs.Int(&a.threads, "threads", 1, "run the kernel on up to `N` goroutines where there is enough work to share (--stats prints threads=, the goroutines the last run used)")
	fs.Bool(&a.dps, "dps", true, "destination-passing style (false: build intermediate dictionaries, as before DPS)")
	fs.Bool(&a.noValidate, "no-validate", false, "skip the format invariant checks (trusted inputs)")
	fs.String(&a.outFormat, "out-format", "", "print the result as a container of `FORMAT` (its arrays) instead of a literal")
	fs.Int(&a.repeat, "repeat", 1, "run the kernel `N` times (--stats reports the median)")
	fs.String(&a.print, "print", "auto", "how a result prints on standard output, a `MODE`: all (every entry, streamed), summary (the first and last 3 keys of each dictionary, the shape and the number of entries, as NumPy prints a large array) or auto (a summary of a result of more than 1000 entries on a terminal, every entry anywhere else)")
	fs.Bool(&a.checkFinite, "check-finite", false, "a result holding a NaN or an infinity is an error (exit 1, nothing written), not a warning; both say where the first appears")
	fs.Bool(&a.stats, "stats", false, "print compile_ms, run_ms (the median of the runs by the executor reported), peak_rss_mb, result_mb (the result's bytes), executor (what ran the kernel: compiled, jit or interp) and reason (why that executor) to standard error")
	a.batch.register(fs)
}

func evalFlags(a *evalArgs) *flagSet {
	fs := newFlagSet("eval")
	a.commonArgs.register(fs, false)
	a.register(fs)
	return fs
}

func gradFlags(a *evalArgs) *flagSet {
	fs := newFlagSet("grad")
	a.commonArgs.register(fs, true)
	a.register(fs)
	return fs
}

// planArgs are the flags of plan.
type planArgs struct {
	commonArgs
	passes bool   // --passes: the lowering passes and what each changed
	after  string // --after PASS: the loop IR after one pass
	rules  bool   // --rules: the rules each saturation applied
}

func planFlags(a *planArgs) *flagSet {
	fs := newFlagSet("plan")
	a.commonArgs.register(fs, true)
	fs.Bool(&a.passes, "passes", false, "list the lowering passes in order, with what each changed in the loops")
	fs.String(&a.after, "after", "", "print the loops after lowering pass `PASS` (build: as lowering built them, before the passes)")
	fs.Bool(&a.rules, "rules", false, "also list the rewrite rules each equality saturation applied, with how many times")
	return fs
}

// genArgs are the flags of gen.
type genArgs struct {
	commonArgs
	out, fn, pkg string
	workspace    bool
}

func genFlags(a *genArgs) *flagSet {
	fs := newFlagSet("gen")
	a.commonArgs.register(fs, true)
	fs.String(&a.out, "out", "", "write the Go source to `FILE` (default standard output)")
	fs.StringVar(&a.out, "o", "", "the same as --out")
	fs.add("o")
	fs.String(&a.fn, "func", "", "the kernel function's `NAME` (default Kernel, or Grad_X for --wrt X)")
	fs.String(&a.pkg, "package", "kernels", "the generated file's package `NAME`")
	fs.Bool(&a.workspace, "workspace", false, "keep the kernel's intermediate tensors in a workspace the caller passes (ws *FUNCWork), reused across calls")
	return fs
}

const gradHelp = `The derivative of a result of type tensor n with respect to an input of type
tensor m is a tensor of order n+m, the result's indices first, given on the
input's stored positions (every position for an input bound :dense).

--mode forward is the paper's tensorized forward mode; --mode reverse
linearizes, unzips and transposes (a gradient costs a small constant times
the program at any depth); --mode auto proposes reverse for a result of
lower order than the inputs (a loss) and keeps the mode whose optimized
program the cost model estimates cheaper. Several --wrt and --value come
from one run and print one per line: value: ..., grad x: .... --vjp's NAME
labels the cotangent; --jvp x=VALUE gives x's tangent; --hvp x=VALUE the
direction of a Hessian-vector product (forward over reverse). A tangent and
a direction are taken on x's stored positions, as the gradient is given on
them (their entries elsewhere are ignored), so J·v = <grad, v>. Products
stored as tensors must have the shape of x (a cotangent: of the result),
unless --no-shape-check.
`

const planHelp = `Each stage prints after a line "-- stage: NAME": logical, in reverse mode anf,
linearized, unzipped and transposed, differentiated (with --wrt), sparsity,
saturated (or simplified with --opt rules), composed (with the inputs'
storage formats), normalized, and last loops: the loop IR the kernel runs.
Then one "-- saturation for stage S" line for each equality saturation (its
e-graph's size, why it stopped, the cost before and after; --rules adds the
rules it applied). A derivative's plan ends with "-- mode: ...", how --mode
auto chose. Without --in the inputs' types are inferred from their use.

--passes lists the lowering passes that turn the program into the loops,
in order, with the lines each changed; --after PASS prints the loops after
one of them; --disable PASS[,PASS...] (also for eval, grad and gen) turns
passes off to see what each does: results stay right, only slower.
`

const genHelp = `The source is self-contained (standard library only, no maps over storage
formats) and gofmt-clean: the kernel's loops, lowered as for eval and grad.
Its function takes the program's inputs sorted by name: scalars, and each
tensor's storage arrays and extents, whose doc comment line says which field
of a formats.Tensor t each is (A_pos = t.Pos[1], A_idx = t.Idx[1], A_val =
t.Val, A_len = t.Shape[0], ...); with --opt none, dictionaries as nested Go
maps. A scalar result is returned; a dictionary result is written into a
destination dst *FUNCResult (a zero one is empty; the kernel refills it,
reusing its memory), read through its Entries and String methods or its
fields. Bad input and a failed program are returned errors, not panics.
`
