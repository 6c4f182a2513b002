package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// cmdEval: nablasd eval (-f FILE | -e TEXT) [--in NAME=VALUE]... [--out FILE]
func cmdEval(args []string, stdout, stderr io.Writer) error {
	var a evalArgs
	if err := evalFlags(&a).parse(args); err != nil {
		return err
	}
	return a.run("", stdout, stderr)
}

// cmdGrad: nablasd grad (-f FILE | -e TEXT) (--wrt NAME[,NAME...] | --jvp
// NAME=VALUE... | --hvp NAME=VALUE) [--mode MODE] [--value] [--vjp
// NAME=VALUE] [--in NAME=VALUE]... [--out FILE] [--repeat N] [--stats]
func cmdGrad(args []string, stdout, stderr io.Writer) error {
	var a evalArgs
	if err := gradFlags(&a).parse(args); err != nil {
		return err
	}
	if a.wrt.name == "" && len(a.diff.jvp) == 0 && len(a.diff.hvp) == 0 {
		return usagef("grad needs --wrt NAME[,NAME...] (or --jvp or --hvp): the inputs to differentiate with respect to")
	}
	if !a.simple() {
		return a.runDerivative(stdout, stderr)
	}
	return a.run(a.wrt.name, stdout, stderr)
}

// options adds the executors' flags to the common ones.
func (a *evalArgs) options() (*nablasd.Options, error) {
	o, err := a.commonArgs.options("")
	if err != nil {
		return nil, err
	}
	switch a.exec {
	case "auto", "compiled", "jit", "interp":
	default:
		return nil, usagef("--exec %q: want auto, compiled, jit or interp", a.exec)
	}
	switch a.dict {
	case "intmap", "map", "swiss":
	default:
		return nil, usagef("--dict %q: want intmap, map or swiss", a.dict)
	}
	if a.threads < 1 {
		return nil, usagef("--threads %d: want at least 1", a.threads)
	}
	if a.repeat < 1 {
		return nil, usagef("--repeat %d: want a positive count", a.repeat)
	}
	if !slices.Contains(printModes, a.print) {
		return nil, usagef("--print %q: want auto, all or summary", a.print)
	}
	if a.outFormat != "" {
		if a.exec == "interp" {
			return nil, usagef("--out-format needs --exec auto, compiled or jit")
		}
		if _, err := formats.ByName(a.outFormat); err != nil {
			return nil, usagef("--out-format: %v", err)
		}
		if a.out != "" {
			return nil, usagef("--out-format prints the container; --out writes Matrix Market: give one of them")
		}
	}
	if a.out != "" && !isMatrixMarket(a.out) && !isTableOut(a.out) {
		return nil, usagef("--out %s: want FILE.mtx or FILE.mtx.gz (Matrix Market), or FILE.parquet, FILE.arrow, FILE.arrows (a table)", a.out)
	}
	o.Exec, o.Dict, o.Threads, o.NoDPS, o.NoValidate = a.exec, a.dict, a.threads, !a.dps, a.noValidate
	return o, nil
}

// oneShot is Options.JITAfter for a command that runs its kernel and
// ends (not a --group-by job): --exec auto takes the native kernel from
// the JIT's cache, but never builds it, since a build could not pay off
// before the process ends (and would end with it).
const oneShot = -1

// run evaluates the program (wrt "") or its gradient, --repeat times, and
// writes the last result.
func (a *evalArgs) run(wrt string, stdout, stderr io.Writer) error {
	if a.batch.groupBy != "" {
		return a.runBatch(wrt, nil, stderr)
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	o.JITAfter = oneShot
	q, err := a.prepare(o, stderr)
	if err != nil {
		return err
	}
	var ws []string
	if wrt != "" {
		ws = []string{wrt}
	}
	before := len(q.Warnings())
	k, err := q.Compile(ws...)
	if err != nil {
		return err
	}
	// what Compile found (the JIT's fallback)
	for _, w := range q.Warnings()[before:] {
		fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
	}
	res := k.NewResult()
	rs := runStats{repeat: a.repeat, stats: a.stats}
	if err := rs.measure(k, func() error { return k.Run(res, nil) }); err != nil {
		return err
	}
	if a.threads > 1 {
		rs.threads = k.Threads() // what the runs used: it depends on the input
	}
	rs.executor, rs.reason = k.Executor(), executorReason(k, a.exec)
	rs.size = res.Size()
	rs.report(stderr, k.CompileTime())
	if err := a.finite(res, stderr); err != nil {
		return err
	}
	switch {
	case a.outFormat != "":
		return printContainer(stdout, res, a.outFormat)
	case a.out != "" && isTableOut(a.out):
		return writeTableResult(res, a.out, tableMeta(&a.commonArgs, wrt))
	case a.out != "":
		return writeResult(res, a.out)
	}
	return a.printResult(stdout, res, "", stderr)
}

// printContainer prints the result as a container's arrays, one a line.
func printContainer(w io.Writer, res *nablasd.Result, format string) error {
	f, _ := formats.ByName(format)
	if res.Order() < 1 {
		return fmt.Errorf("--out-format %s: the result is the scalar %s; formats hold vectors and tensors", format, res)
	}
	t, err := res.Tensor(f)
	if err != nil {
		return fmt.Errorf("--out-format %s: %v", format, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "format: %s\nshape: %v\n", t.Format, t.Shape)
	for k := range t.Pos {
		if t.Pos[k] != nil {
			fmt.Fprintf(&b, "pos%d: %v\n", k+1, t.Pos[k])
		}
		if t.Idx[k] != nil {
			fmt.Fprintf(&b, "idx%d: %v\n", k+1, t.Idx[k])
		}
	}
	b.WriteString("val: [")
	for i, x := range t.Val {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(sdql.FormatReal(x))
	}
	b.WriteString("]\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// finite checks a result for NaNs and infinities (nablasd.Result.CheckFinite):
// a warning naming where the first appears, or with --check-finite an
// error.
func (a *evalArgs) finite(res *nablasd.Result, stderr io.Writer) error {
	nf := res.CheckFinite()
	switch {
	case nf == nil:
		return nil
	case a.checkFinite:
		return fmt.Errorf("%v (--check-finite)", nf)
	}
	fmt.Fprintf(stderr, "nablasd: warning: %v\n", nf)
	return nil
}
