package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// batchFlags are the flags of grouped batch jobs (eval and grad).
type batchFlags struct {
	groupBy string
	resume  bool
	quiet   bool
}

func (b *batchFlags) register(fs *flagSet) {
	fs.String(&b.groupBy, "group-by", "", "run once per value of the column `KEY` of the table inputs that have it, into --out FILE.parquet|.arrow|.arrows with KEY first")
	fs.Bool(&b.resume, "resume", false, "with --group-by: keep the groups a stopped run finished (OUT.partial) or an earlier output holds, and run the others")
	fs.Bool(&b.quiet, "quiet", false, "no progress bar on standard error")
}

// runBatch runs eval (wrt "") or grad once per group of the table inputs
// split by --group-by: the program is prepared and compiled once (for the
// first group's inputs) and its kernel run for every group (with the
// group's tensors rebound: nablasd.Kernel.Run) on --threads workers; the
// results go to --out with the key column first.
func (a *evalArgs) runBatch(wrt string, stderr io.Writer) error {
	key := a.batch.groupBy
	switch {
	case a.out == "" || !isTableOut(a.out):
		return usagef("--group-by %s writes a table: give --out FILE.parquet, FILE.arrow or FILE.arrows", key)
	case a.outFormat != "":
		return usagef("--out-format prints one result; it does not go with --group-by")
	case a.repeat != 1:
		return usagef("--repeat times one run; it does not go with --group-by")
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	workers := o.Threads
	o.Threads = 1 // the groups share the workers
	name, text, err := a.source()
	if err != nil {
		return err
	}
	if _, err := sdql.Parse(name, text); err != nil {
		return err
	}
	o.File = name
	var tables []datasets.GroupInput
	var rest []string
	bound := map[string]bool{}
	for _, s := range a.inputs {
		n, val, _ := strings.Cut(s, "=")
		ts, ok, err := parseTableSpec(n, val)
		if err != nil {
			return err
		}
		if !ok {
			rest = append(rest, s)
			continue
		}
		if bound[n] {
			return usagef("--in %s is bound twice", n)
		}
		bound[n] = true
		tables = append(tables, datasets.GroupInput{Name: n, Path: ts.path, Options: ts.opts, Format: ts.format})
	}
	inputs, err := parseInputs(rest, stderr)
	if err != nil {
		return err
	}
	for n := range bound {
		if _, dup := inputs[n]; dup {
			return usagef("--in %s is bound twice", n)
		}
	}
	if os.Getenv("GOGC") == "" {
		// A grouped job holds little (a group and the shared inputs) and
		// reads a lot: decoding makes about four bytes of garbage a byte
		// read. Collecting at 25% growth instead of 100% keeps its peak
		// nearer what it holds (BenchmarkGroupedJob).
		debug.SetGCPercent(25)
	}
	groups, err := datasets.OpenGroups(key, tables)
	if err != nil {
		return fmt.Errorf("--group-by %s: %v", key, err)
	}
	defer groups.Close()
	for n, tt := range groups.Shared() {
		inputs[n] = tableValue(tt)
	}
	grouped := groups.Grouped()
	for _, n := range grouped {
		// an empty tensor of the groups' shape and format stands for them
		// while the program is checked
		shape, f := groups.Shape(n)
		if shape == nil {
			inputs[n] = 0.0
			continue
		}
		t, err := formats.FromSortedCoords(shape, make([][]int, len(shape)), nil, f)
		if err != nil {
			return fmt.Errorf("--in %s: %v", n, err)
		}
		inputs[n] = t
	}
	q, err := a.prepareWith(text, inputs, o, wrt, stderr)
	if err != nil {
		return err
	}
	order := max(sdql.Order(q.Type()), 0)
	if t, ok := inputs[wrt].(*formats.Tensor); ok && wrt != "" {
		order += t.Order()
	}
	b := &batchRun{a: a, text: text, base: inputs, opts: o, wrt: wrt, grouped: grouped}
	job := &datasets.Job{
		Groups:  groups,
		Step:    b.step,
		Order:   order,
		Out:     a.out,
		Meta:    batchMeta(a, wrt),
		Workers: workers,
		Resume:  a.batch.resume,
	}
	if !a.batch.quiet && isTerminal(stderr) {
		job.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := job.Run(ctx)
	if err != nil {
		if errors.Is(err, datasets.ErrStopped) {
			return fmt.Errorf("--group-by %s: %v", key, err)
		}
		return err
	}
	if a.stats {
		rate := 0.0
		if s := st.Elapsed.Seconds(); s > 0 {
			rate = float64(st.Rows) / s
		}
		fmt.Fprintf(stderr, "groups=%d kept=%d rows=%d entries_out=%d compile_ms=%s elapsed_ms=%s rows_per_s=%.0f peak_rss_mb=%s\n",
			st.Groups, st.Kept, st.Rows, st.Entries, ms(b.compile), ms(st.Elapsed), rate, peakRSS())
	}
	return nil
}

// prepareWith prepares the program over inputs as commonArgs.prepare does
// over the --in flags: errors in the CLI's words, warnings printed.
func (a *evalArgs) prepareWith(text string, inputs nablasd.Inputs, o *nablasd.Options, wrt string, stderr io.Writer) (*nablasd.Query, error) {
	q, err := nablasd.Prepare(text, inputs, o)
	if err != nil {
		var ue *nablasd.UndefinedError
		if errors.As(err, &ue) {
			return nil, &sdql.Error{File: ue.File, Pos: ue.Pos, Msg: fmt.Sprintf("undefined: %s (bind it with --in %s=VALUE)", ue.Name, ue.Name)}
		}
		return nil, err
	}
	if stderr != nil {
		for _, w := range q.Warnings() {
			fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
		}
	}
	if wrt != "" {
		if err := checkWrt(q, wrt); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// batchMeta is the metadata of a grouped job's output: the program, the
// gradient's input and the bindings (--resume requires the same).
func batchMeta(a *evalArgs, wrt string) map[string]string {
	m := tableMeta(&a.commonArgs, wrt)
	m["nablasd.inputs"] = strings.Join(a.inputs, " ")
	return m
}

// batchRun is the per-group step of a grouped job. The query and kernel
// are made once, for the first group that runs; after that the step only
// reads them, so that groups run on several goroutines.
type batchRun struct {
	a       *evalArgs
	text    string
	base    nablasd.Inputs // the shared inputs and the groups' stand-ins
	opts    *nablasd.Options
	wrt     string
	grouped []string

	used map[string]bool // the program's inputs: the unused ones are not rebound

	mu      sync.Mutex
	ready   bool
	err     error
	kernel  *nablasd.Kernel
	compile time.Duration
}

// groupInputs are a group's values of the grouped inputs.
func (b *batchRun) groupInputs(g *datasets.Group) nablasd.Inputs {
	in := nablasd.Inputs{}
	for _, n := range b.grouped {
		if b.used == nil || b.used[n] {
			in[n] = tableValue(g.Inputs[n])
		}
	}
	return in
}

// prepare prepares and compiles the program for the first group's inputs
// (the optimizer's cost model measures them; the plan holds for every
// group: the groups differ only in their arrays).
func (b *batchRun) prepare(g *datasets.Group) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ready {
		return b.err
	}
	b.ready = true
	start := time.Now()
	inputs := nablasd.Inputs{}
	for n, v := range b.base {
		inputs[n] = v
	}
	for n, v := range b.groupInputs(g) {
		inputs[n] = v
	}
	q, err := b.a.prepareWith(b.text, inputs, b.opts, b.wrt, nil)
	if err != nil {
		b.err = err
		return err
	}
	b.used = map[string]bool{}
	for _, n := range q.InputNames() {
		b.used[n] = true
	}
	var ws []string
	if b.wrt != "" {
		ws = []string{b.wrt}
	}
	b.kernel, b.err = q.Compile(ws...)
	b.compile = time.Since(start)
	return b.err
}

// step computes one group's result.
func (b *batchRun) step(g *datasets.Group) (*datasets.TableTensor, error) {
	if err := b.prepare(g); err != nil {
		return nil, err
	}
	res := b.kernel.NewResult()
	if err := b.kernel.Run(res, b.groupInputs(g)); err != nil {
		return nil, err
	}
	return resultTable(res)
}

// isTerminal reports whether w is a terminal (a character device).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
