// Command nablasd is the command-line front of the nablasd engine (the
// root package github.com/nablasd/nablasd behind flags): it evaluates SDQL
// programs and their gradients over sparse tensors bound from numbers,
// Matrix Market files, SuiteSparse matrices or synthetic data, prints
// every stage of the pipeline, and generates Go. See "nablasd help",
// "nablasd help CMD" and doc/cli.md.
//
// Exit status: 0 on success, 1 on bad input (programs, files, values),
// 2 on bad usage.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/sdql"
)

// usageError is bad usage of the command line: exit status 2 (the batch
// package's, which binds the inputs, is the same type).
type usageError = batch.UsageError

func usagef(format string, args ...any) error { return batch.Usagef(format, args...) }

// helpShown is returned when -h printed a command's help: exit status 0.
var helpShown = errors.New("help shown")

// command is one subcommand.
type command struct {
	synopsis string // after "nablasd NAME "
	summary  string // one line
	run      func(args []string, stdout, stderr io.Writer) error
	// flags registers the command's flags (for its help); nil: none
	flags func() *flagSet
	more  string // more help text
}

var commands map[string]*command

func init() {
	commands = map[string]*command{
		"eval": {"(-f FILE | -e TEXT) [--in NAME=VALUE]... [--out FILE]", "evaluate a program over its inputs",
			cmdEval, func() *flagSet { return evalFlags(new(evalArgs)) }, ""},
		"grad": {"(-f FILE | -e TEXT) --wrt NAME[,NAME...] [--mode MODE] [--value] [--in NAME=VALUE]... [--out FILE]", "evaluate gradients (or --vjp, --jvp, --hvp products)",
			cmdGrad, func() *flagSet { return gradFlags(new(evalArgs)) }, gradHelp},
		"plan": {"(-f FILE | -e TEXT) [--wrt NAME[,NAME...]] [--mode MODE] [--in NAME=VALUE]...", "print every stage of the pipeline",
			cmdPlan, func() *flagSet { return planFlags(new(planArgs)) }, planHelp},
		"gen": {"(-f FILE | -e TEXT) [--wrt NAME[,NAME...]] [--mode MODE] --in NAME=VALUE... [--out FILE]", "write the kernel as Go source",
			cmdGen, func() *flagSet { return genFlags(new(genArgs)) }, genHelp},
		"fit": {"(-f FILE | -e TEXT) --wrt NAME[,NAME...] [--in NAME=VALUE]... [--init [NAME=]VALUE]... [--method METHOD] [--tol T] [--out [NAME=]FILE]...", "fit inputs to minimize a real-valued program (lbfgs, bfgs, cg, gd, adam)",
			cmdFit, func() *flagSet { return fitFlags(new(fitArgs)) }, fitHelp},
		"demo": {"", "run the paper's BATAx kernel and its gradient on built-in data",
			cmdDemo, nil, ""},
		"help": {"[CMD]", "print this help, or a command's with every flag",
			nil, nil, ""},
	}
}

const usageTail = `
VALUE is a number (beta=0.7) or tensor data with an optional storage format:
  A=matrix.mtx[.gz][:FORMAT]          a Matrix Market file (one column: a vector)
  A=suitesparse:bcspwr10[:FORMAT]     a SuiteSparse matrix by name (looked up in
                                      $NABLASD_DATA, the user cache and
                                      shared/datasets/suitesparse beside the
                                      working directory, the module and the
                                      executable; else downloaded)
  A=synthetic:rows=1000,cols=1000,density=0.01,seed=1[:FORMAT]
  A=table.parquet[:FORMAT][?OPTIONS]  a Parquet table, one row per entry:
                                      coordinate columns and a value column
  A=table.arrow[:FORMAT][?OPTIONS]    an Arrow IPC file (.arrows: a stream)
OPTIONS name a table's columns and shape when they depart from the convention
(i, or row and col, or i0, i1, ...; val): ?row=src,col=dst,val=w,shape=100x100
(i= for a vector, i0=, i1=, ... for any order). With --group-by KEY a table
holds one tensor per value of its KEY column, and the job runs once per group.
FORMAT is one of dense, coo, csr, csc, dcsr, dense_col, csf (default csr for
sparse matrices, coo for sparse vectors, dense for array files).

The result prints as an SDQL literal with sorted keys, streamed; on a
terminal a result of more than 1000 entries prints as a summary, the first
and last keys of each dictionary (--print all prints every entry). --out
FILE writes it instead: FILE.mtx[.gz] as Matrix Market (orders 1 and 2),
FILE.parquet, FILE.arrow or FILE.arrows as a table of one row per entry. A
result holding a NaN or an infinity gets a warning saying where the first
appears (--check-finite: an error).

Kernels run as closures, or as native code (--exec, default auto) found in
the JIT's cache ($NABLASD_JIT_CACHE, else the user cache directory): run a
kernel once with --exec jit to build it there. NABLASD_JIT=off keeps every
kernel on the closures.

Run 'nablasd help CMD' (or 'nablasd CMD -h') for a command's flags.
`

// usage is the overview: every command's synopsis.
func usage() string {
	var b strings.Builder
	b.WriteString("nablasd: a sparse-tensor query engine with automatic differentiation\n\nUsage:\n")
	for _, name := range commandNames() {
		c := commands[name]
		fmt.Fprintf(&b, "  nablasd %-5s %s\n", name, c.synopsis)
	}
	b.WriteString("\nCommands:\n")
	for _, name := range commandNames() {
		fmt.Fprintf(&b, "  %-5s %s\n", name, commands[name].summary)
	}
	b.WriteString(usageTail)
	return b.String()
}

// commandNames lists the commands in the order of the usage.
func commandNames() []string {
	order := map[string]int{"eval": 0, "grad": 1, "fit": 2, "plan": 3, "gen": 4, "demo": 5, "help": 6}
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	return names
}

// commandHelp is a command's help: its synopsis, summary, every flag with
// its default, and more.
func commandHelp(name string) string {
	c := commands[name]
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: nablasd %s %s\n\n%s.\n", name, c.synopsis, strings.ToUpper(c.summary[:1])+c.summary[1:])
	if c.flags != nil {
		b.WriteString("\nFlags:\n")
		b.WriteString(c.flags().help())
	}
	if c.more != "" {
		b.WriteString("\n" + c.more)
	}
	return b.String()
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run executes one command line and returns the exit status. It never
// panics on any input: a panic is reported as an internal error.
func run(args []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "nablasd: internal error: %v\n", r)
			status = 3
		}
	}()
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	var err error
	name := args[0]
	switch c := commands[name]; {
	case name == "help" || name == "-h" || name == "-help" || name == "--help":
		err = cmdHelp(args[1:], stdout)
	case c != nil:
		err = c.run(args[1:], stdout, stderr)
	default:
		msg := fmt.Sprintf("unknown command %q", name)
		if s := sdql.Suggest(name, commandNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		} else {
			msg += " (want eval, grad, fit, plan, gen, demo or help)"
		}
		err = usagef("%s", msg)
	}
	switch {
	case err == nil:
		return 0
	case errors.Is(err, helpShown):
		fmt.Fprint(stdout, commandHelp(name))
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "nablasd: %v\nRun 'nablasd help", err)
		if commands[name] != nil && name != "help" {
			fmt.Fprintf(stderr, " %s", name)
		}
		fmt.Fprintln(stderr, "' for usage.")
		return 2
	}
	fmt.Fprintf(stderr, "nablasd: %v\n", err)
	return 1
}

// cmdHelp: nablasd help [CMD]
func cmdHelp(args []string, stdout io.Writer) error {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage())
		return nil
	case len(args) > 1:
		return usagef("help takes one command at most")
	}
	if commands[args[0]] == nil {
		msg := fmt.Sprintf("help: unknown command %q", args[0])
		if s := sdql.Suggest(args[0], commandNames()); s != "" {
			msg += fmt.Sprintf(" (did you mean %s?)", s)
		}
		return usagef("%s", msg)
	}
	fmt.Fprint(stdout, commandHelp(args[0]))
	return nil
}
