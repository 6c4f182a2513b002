package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/exec"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// batchFlags are the flags of grouped batch jobs (eval and grad).
type batchFlags struct {
	groupBy string
	resume  bool
	quiet   bool
	// preset are the bindings runBatch made, by their --in flag: load
	// takes them instead of reading the files whole.
	preset map[string]*input
}

func (b *batchFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&b.groupBy, "group-by", "", "run once per value of the column `KEY` of the table inputs that have it, into --out FILE.parquet|.arrow|.arrows with KEY first")
	fs.BoolVar(&b.resume, "resume", false, "with --group-by: keep the groups a stopped run finished (OUT.partial) or an earlier output holds, and run the others")
	fs.BoolVar(&b.quiet, "quiet", false, "no progress bar on standard error")
}

// parseInput is parseInput, but for the bindings runBatch made.
func (c *common) parseInput(s string) (*input, error) {
	if in, ok := c.batch.preset[s]; ok {
		return in, nil
	}
	return parseInput(s)
}

// runBatch runs eval (wrt "") or grad once per group of the table inputs
// split by --group-by: the program is checked, optimized and compiled once
// (for the first group's inputs) and run for every group on --threads
// workers; the results go to --out with the key column first.
func runBatch(c *common, x *execFlags, rs *runStats, wrt string, stderr io.Writer) error {
	key := c.batch.groupBy
	switch {
	case c.out == "" || !isTableOut(c.out):
		return usagef("--group-by %s writes a table: give --out FILE.parquet, FILE.arrow or FILE.arrows", key)
	case x.outFormat != "":
		return usagef("--out-format prints one result; it does not go with --group-by")
	case rs.repeat != 1:
		return usagef("--repeat times one run; it does not go with --group-by")
	case x.threads < 1:
		return usagef("--threads %d: want at least 1", x.threads)
	}
	switch x.exec {
	case "compiled", "interp":
	default:
		return usagef("--exec %q: want compiled or interp", x.exec)
	}
	switch x.dict {
	case "intmap", "map", "swiss":
	default:
		return usagef("--dict %q: want intmap, map or swiss", x.dict)
	}
	var tables []datasets.GroupInput
	flagOf := map[string]string{}
	for _, s := range c.inputs {
		name, val, _ := strings.Cut(s, "=")
		ts, ok, err := parseTableSpec(name, val)
		if err != nil {
			return err
		}
		if ok {
			tables = append(tables, datasets.GroupInput{Name: name, Path: ts.path, Options: ts.opts, Format: ts.format})
			flagOf[name] = s
		}
	}
	if os.Getenv("GOGC") == "" {
		// A grouped job holds little (a group and the shared inputs) and
		// reads a lot: decoding makes about four bytes of garbage a byte
		// read. Collecting at 25% growth instead of 100% keeps its peak
		// near what it holds (BenchmarkGroupedJob).
		debug.SetGCPercent(25)
	}
	groups, err := datasets.OpenGroups(key, tables)
	if err != nil {
		return fmt.Errorf("--group-by %s: %v", key, err)
	}
	defer groups.Close()
	c.batch.preset = map[string]*input{}
	for name, tt := range groups.Shared() {
		c.batch.preset[flagOf[name]] = tableTensorInput(name, "", tt)
	}
	grouped := groups.Grouped()
	for _, name := range grouped {
		shape, f := groups.Shape(name)
		in := &input{name: name, isNum: shape == nil}
		if shape != nil {
			// an empty tensor of the group's shape and format stands for
			// the groups while the program is checked
			t, err := formats.FromSortedCoords(shape, make([][]int, len(shape)), nil, f)
			if err != nil {
				return fmt.Errorf("--in %s: %v", name, err)
			}
			in.tensor = t
		}
		c.batch.preset[flagOf[name]] = in
	}
	p, err := load(c)
	if err != nil {
		return err
	}
	if wrt != "" {
		if _, ok := p.inputs[wrt]; !ok {
			return fmt.Errorf("--wrt %s: %s is not an input of the program (its inputs: %s)", wrt, wrt, inputList(p))
		}
	}
	order := resultOrder(p, wrt)
	b := &batchRun{p: p, x: x, wrt: wrt, opt: c.opt, grouped: grouped, order: order}
	job := &datasets.Job{
		Groups:  groups,
		Step:    b.step,
		Order:   order,
		Out:     c.out,
		Meta:    batchMeta(c, x.tableMeta),
		Workers: x.threads,
		Resume:  c.batch.resume,
	}
	if !c.batch.quiet && isTerminal(stderr) {
		job.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := job.Run(ctx)
	if err != nil {
		if errors.Is(err, datasets.ErrStopped) {
			return fmt.Errorf("--group-by %s: %v", key, err)
		}
		return p.withFile(err)
	}
	if rs.stats {
		rate := 0.0
		if s := st.Elapsed.Seconds(); s > 0 {
			rate = float64(st.Rows) / s
		}
		fmt.Fprintf(stderr, "groups=%d kept=%d rows=%d entries_out=%d compile_ms=%s elapsed_ms=%s rows_per_s=%.0f peak_rss_mb=%s\n",
			st.Groups, st.Kept, st.Rows, st.Entries, ms(b.compile), ms(st.Elapsed), rate, peakRSS())
	}
	return nil
}

// batchMeta is the metadata of a grouped job's output: the program, the
// gradient's input and the bindings (--resume requires the same).
func batchMeta(c *common, meta map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range meta {
		m[k] = v
	}
	m["nablasd.inputs"] = strings.Join(c.inputs, " ")
	return m
}

// batchRun is the per-group step of a grouped job. The plan and kernel are
// made once, for the first group that runs; after that the step only reads
// them, so that groups run on several goroutines.
type batchRun struct {
	p       *program
	x       *execFlags
	wrt     string
	opt     string
	grouped []string
	order   int // the results' order

	mu      sync.Mutex
	ready   bool
	err     error
	pl      *plan
	kernel  *exec.Kernel
	dense   []int // the result shape a compiled gradient makes dense
	shape   []int // the results' shape (resultShape)
	shaped  bool  // shape is set
	compile time.Duration
}

// prepare makes the plan and the kernel for the first group's inputs (the
// optimizer's cost model measures them; the plan holds for every group:
// the groups differ only in their arrays).
func (b *batchRun) prepare(g *datasets.Group) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.ready {
		return b.err
	}
	b.ready = true
	start := time.Now()
	templates := map[string]*formats.Tensor{}
	for _, n := range b.grouped {
		templates[n] = b.p.inputs[n].tensor
		if t := g.Inputs[n].Tensor; t != nil {
			b.p.inputs[n].tensor = t
		}
	}
	b.p.logical = nil
	defer func() {
		for n, t := range templates {
			b.p.inputs[n].tensor = t
		}
		b.p.logical = nil
	}()
	b.pl, b.err = prepare(b.p, b.wrt, b.opt)
	if b.err != nil {
		return b.err
	}
	if b.wrt != "" {
		b.dense = denseGradShape(b.p, b.wrt)
	}
	if b.x.exec == "compiled" {
		opts := exec.Options{Dict: b.x.dict, Threads: 1, NoValidate: b.x.noValidate, ResultShape: b.dense, Opt: "dps"}
		if !b.x.dps {
			opts.Opt = "norm"
		}
		b.kernel, b.err = exec.CompileFor(b.pl.prog, b.pl.values, opts)
		if b.err != nil {
			b.err = b.p.withFile(b.err)
		}
	}
	b.compile = time.Since(start)
	return b.err
}

// step computes one group's result.
func (b *batchRun) step(g *datasets.Group) (*datasets.TableTensor, error) {
	if err := b.prepare(g); err != nil {
		return nil, err
	}
	values := make(map[string]sdql.Value, len(b.pl.values))
	for n, v := range b.pl.values {
		values[n] = v
	}
	logical := b.pl.result == nil
	for _, n := range b.grouped {
		tt := g.Inputs[n]
		if tt.Tensor == nil {
			if _, isInt := b.p.values[n].(sdql.Int); isInt {
				values[n] = sdql.Int(int(tt.Scalar))
			} else {
				values[n] = sdql.Real(tt.Scalar)
			}
			continue
		}
		if logical {
			values[n] = formats.ToValue(tt.Tensor)
			continue
		}
		arrays, err := formats.Bind(tt.Tensor, n)
		if err != nil {
			return nil, err
		}
		for k, v := range arrays {
			values[k] = v
		}
	}
	var v sdql.Value
	if b.kernel != nil {
		res, err := b.kernel.Run(values)
		if err != nil {
			return nil, err
		}
		v = res.Value()
	} else {
		var err error
		if v, err = (&sdql.Interp{File: b.p.name}).Run(b.pl.prog, b.pl.info, values); err != nil {
			return nil, err
		}
	}
	if b.wrt != "" && b.p.info.Result == sdql.RealType && (b.dense == nil || b.kernel == nil) {
		var x *formats.Tensor
		if tt, ok := g.Inputs[b.wrt]; ok {
			x = tt.Tensor
		} else {
			x = b.p.inputs[b.wrt].tensor
		}
		if x != nil {
			v = ad.OnStoredPositions(v, formats.ToValue(x))
		}
	}
	b.mu.Lock()
	if !b.shaped {
		// an empty result gives no shape (resultShape checks the value's
		// order): wait for a group with entries
		if s := b.p.resultShape(b.wrt, v); len(s) == b.order {
			b.shape, b.shaped = s, true
		}
	}
	shape := b.shape
	b.mu.Unlock()
	return resultTable(v, shape, b.order)
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
