package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/sdql"
)

// args are the flags of eval and grad: nablasd's (the same names and
// meanings), the job's, and Beam's runner flags.
type args struct {
	file, text    string
	inputs        inputFlags
	wrt           string
	opt           string
	noShapeCheck  bool
	memoryLimit   string
	exec, dict    string
	threads       int
	dps           bool
	noValidate    bool
	out           string
	groupBy       string
	partitionRows int64
	partitionIn   string
	shards        int
	runner        string
	quiet         bool
	verbose       bool
	// fit's: the parameters, their starts and the optimizer
	wrts             []string
	init             inputFlags
	method           string
	tol, gtol, lr    float64
	maxIter, maxEval int
	memory           int
}

// inputFlags collects repeated --in NAME=VALUE flags.
type inputFlags []string

func (f *inputFlags) String() string     { return strings.Join(*f, " ") }
func (f *inputFlags) Set(s string) error { *f = append(*f, s); return nil }

// runners are the Beam runners nablasd-beam runs on, with Beam's other
// names for them.
var runners = map[string]string{
	"prism": "prism", "PrismRunner": "prism",
	"flink": "flink", "FlinkRunner": "flink",
	"spark": "spark", "SparkRunner": "spark",
	"dataflow": "dataflow", "DataflowRunner": "dataflow",
	"universal": "universal", "portable": "universal", "PortableRunner": "universal",
}

// flagSet is a command's flags: its own, then Beam's (every flag the Beam
// packages define, set through the standard flag.CommandLine, where
// Beam's runners read them).
type flagSet struct {
	*flag.FlagSet
	own []string
}

func newFlags(cmd string, a *args) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(cmd, flag.ContinueOnError)}
	fs.SetOutput(io.Discard)
	str := func(p *string, name, def, usage string) {
		fs.StringVar(p, name, def, usage)
		fs.own = append(fs.own, name)
	}
	boolean := func(p *bool, name string, def bool, usage string) {
		fs.BoolVar(p, name, def, usage)
		fs.own = append(fs.own, name)
	}
	str(&a.file, "f", "", "read the program from `FILE`")
	str(&a.text, "e", "", "the program `TEXT`")
	fs.Var(&a.inputs, "in", "bind an input: `NAME=VALUE`, as for nablasd (repeatable); workers read files at the same paths")
	fs.own = append(fs.own, "in")
	if cmd == "grad" {
		str(&a.wrt, "wrt", "", "differentiate with respect to the input `NAME`")
	}
	if cmd == "fit" {
		str(&a.wrt, "wrt", "", "the parameters to fit, inputs `NAME[,NAME...]`, as for nablasd fit")
		fs.Var(&a.init, "init", "a parameter's start, `NAME=VALUE` as --in binds it (repeatable); a parameter bound by --in starts there")
		fs.own = append(fs.own, "init")
		str(&a.method, "method", "lbfgs", "the optimizer, a `METHOD`: lbfgs, bfgs, cg, gd or adam")
		fs.Float64Var(&a.tol, "tol", 1e-6, "stop once the gradient's largest magnitude is at most `T` times the start's (0: no such test)")
		fs.Float64Var(&a.gtol, "gtol", 0, "stop once the gradient's largest magnitude is at most `G` (0: no such test)")
		fs.IntVar(&a.maxIter, "max-iter", 1000, "stop after `N` iterations (0: no limit)")
		fs.IntVar(&a.maxEval, "max-eval", 0, "stop after `N` evaluations, kernel runs (0: no limit)")
		fs.Float64Var(&a.lr, "lr", 0, "the learning rate `R`: adam's step (0: 0.001), gd's constant step (0: a line search)")
		fs.IntVar(&a.memory, "memory", 10, "lbfgs's history of `M` steps")
		fs.own = append(fs.own, "tol", "gtol", "max-iter", "max-eval", "lr", "memory")
	}
	str(&a.out, "out", "", "with --group-by a `DIR`ectory of Parquet shards and a manifest; with --partition-rows a table FILE (.parquet, .arrow, .arrows)")
	str(&a.groupBy, "group-by", "", "run once per value of the column `KEY` of the table inputs that have it (as nablasd --group-by)")
	fs.Int64Var(&a.partitionRows, "partition-rows", 0, "run on blocks of `N` rows of the partitioned input and add the blocks' results (the program must be a sum over its rows)")
	fs.own = append(fs.own, "partition-rows")
	str(&a.partitionIn, "partition-input", "", "the partitioned input's `NAME` (default: the largest table input)")
	fs.IntVar(&a.shards, "shards", 4, "with --group-by, the number of output shards `N`")
	fs.own = append(fs.own, "shards")
	str(&a.runner, "runner", "prism", "the Beam `RUNNER`: prism (in this process), flink, spark, dataflow or universal (a portable job service at --endpoint)")
	str(&a.opt, "opt", "full", "optimizations, a `LEVEL`: full, rules or none")
	boolean(&a.noShapeCheck, "no-shape-check", false, "do not check lookups against the inputs' shapes")
	str(&a.memoryLimit, "memory-limit", "80%", "memory budget of each worker's kernels: a `SIZE` (512MiB, 4GB), a percentage of the memory available, or none")
	str(&a.exec, "exec", "compiled", "the `EXECUTOR`: compiled or interp")
	str(&a.dict, "dict", "intmap", "the hash `INDEX` of hashed dictionaries: intmap, map or swiss")
	fs.IntVar(&a.threads, "threads", 1, "each kernel run on up to `N` goroutines (the runner runs bundles in parallel besides)")
	fs.own = append(fs.own, "threads")
	boolean(&a.dps, "dps", true, "destination-passing style")
	boolean(&a.noValidate, "no-validate", false, "skip the format invariant checks (trusted inputs)")
	boolean(&a.quiet, "quiet", false, "do not print the job's counters at the end")
	boolean(&a.verbose, "verbose", false, "show the runner's log")
	own := map[string]bool{}
	for _, n := range fs.own {
		own[n] = true
	}
	flag.CommandLine.VisitAll(func(f *flag.Flag) {
		if !own[f.Name] {
			fs.Var(beamFlag{f}, f.Name, f.Usage)
		}
	})
	return fs
}

// beamFlag sets one of Beam's flags through flag.CommandLine (so that
// Beam sees it as set, and passes it on to the workers).
type beamFlag struct{ f *flag.Flag }

func (b beamFlag) String() string {
	if b.f == nil {
		return ""
	}
	return b.f.Value.String()
}
func (b beamFlag) Set(s string) error { return flag.CommandLine.Set(b.f.Name, s) }
func (b beamFlag) IsBoolFlag() bool {
	bf, ok := b.f.Value.(interface{ IsBoolFlag() bool })
	return ok && bf.IsBoolFlag()
}

// errHelp is returned when -h printed a command's help.
var errHelp = errors.New("help shown")

// parse parses a command's flags: a misspelt flag gets the nearest one
// suggested.
func (fs *flagSet) parse(argv []string) error {
	err := fs.Parse(argv)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return errHelp
	case err != nil:
		msg := err.Error()
		if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
			name = strings.TrimPrefix(name, "-")
			msg = fmt.Sprintf("unknown flag --%s", name)
			var all []string
			fs.VisitAll(func(f *flag.Flag) { all = append(all, f.Name) })
			if s := sdql.Suggest(name, all); s != "" {
				msg += fmt.Sprintf(" (did you mean --%s?)", s)
			}
		}
		return batch.Usagef("%s: %s", fs.Name(), msg)
	}
	if fs.NArg() > 0 {
		return batch.Usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// beamFlagsShown are the runner flags the help lists (every other Beam
// flag works too).
var beamFlagsShown = []string{"endpoint", "environment_type", "environment_config", "worker_binary", "job_name",
	"parallelism", "project", "region", "staging_location", "temp_location", "num_workers", "max_num_workers"}

// help lists the command's own flags with their defaults, then the
// runner flags most runs need.
func (fs *flagSet) help() string {
	var b strings.Builder
	line := func(f *flag.Flag) {
		arg, usage := flag.UnquoteUsage(f)
		head := "--" + f.Name
		if len(f.Name) == 1 {
			head = "-" + f.Name
		}
		if arg != "" {
			head += " " + arg
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "[]" && f.DefValue != "0" {
			def = fmt.Sprintf(" (default %s)", f.DefValue)
		}
		fmt.Fprintf(&b, "  %-24s %s%s\n", head, usage, def)
	}
	for _, n := range fs.own {
		line(fs.Lookup(n))
	}
	b.WriteString("\nBeam's runner flags (every flag of the Beam SDK is accepted; see the README):\n")
	names := append([]string(nil), beamFlagsShown...)
	sort.Strings(names)
	for _, n := range names {
		if f := fs.Lookup(n); f != nil {
			line(f)
		}
	}
	return b.String()
}

// source returns the program's name (for messages) and text.
func (a *args) source() (string, string, error) {
	switch {
	case a.file != "" && a.text != "":
		return "", "", batch.Usagef("give the program with -f FILE or -e TEXT, not both")
	case a.file != "":
		b, err := os.ReadFile(a.file)
		if err != nil {
			return "", "", fmt.Errorf("cannot read the program: %v", err)
		}
		return a.file, string(b), nil
	case a.text != "":
		return "", a.text, nil
	}
	return "", "", batch.Usagef("no program: give -f FILE or -e TEXT")
}
