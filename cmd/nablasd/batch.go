package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"syscall"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/datasets"
)

// batchFlags are the flags of grouped batch jobs (eval and grad).
type batchFlags struct {
	groupBy string
	resume  bool
	quiet   bool
}

func (b *batchFlags) register(fs *flagSet) {
	fs.String(&b.groupBy, "group-by", "", "run once per value of the column `KEY` of the table inputs that have it (in any order: a table not sorted by KEY is sorted in temporary files), into --out FILE.parquet|.arrow|.arrows with KEY first; several results (--value, several --wrt) go to a table each, OUT.value.parquet, OUT.grad_x.parquet, ...")
	fs.Bool(&b.resume, "resume", false, "with --group-by: keep the groups a stopped run finished (OUT.partial) or an earlier output holds, and run the others")
	fs.Bool(&b.quiet, "quiet", false, "no progress bar on standard error")
}

// runBatch runs eval (wrt "") or grad once per group of the table inputs
// split by --group-by, or what a Derivative asks for (d: the value and
// several gradients, or a product) with a table for each result: the
// program is prepared and compiled once (for the first group's inputs)
// and its kernel run for every group (with the group's tensors rebound:
// nablasd.Kernel.Run) on --threads workers; the results go to --out with
// the key column first (batchOutputs names a table of each result).
func (a *evalArgs) runBatch(wrt string, d *nablasd.Derivative, stderr io.Writer) error {
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
	if err := a.sharedProducts(key); err != nil {
		return err
	}
	if os.Getenv("GOGC") == "" {
		// A grouped job holds little (a group and the shared inputs) and
		// reads a lot: decoding makes about four bytes of garbage a byte
		// read. Collecting at 25% growth instead of 100% keeps its peak
		// nearer what it holds (BenchmarkGroupedJob).
		// (The setting is the process's: it is put back when the job
		// returns, for a caller that runs it in process.)
		defer debug.SetGCPercent(debug.SetGCPercent(25))
	}
	gopts := &batch.GroupedOptions{Derivative: d, Groups: &datasets.GroupOptions{SortMemory: sortMemory(o.MemoryLimit)}}
	gj, err := batch.OpenGroupedWith(key, name, text, a.inputs, o, wrt, gopts, stderr)
	if err != nil {
		return err
	}
	groups := gj.Groups
	defer groups.Close()
	b := &batch.Step{Text: text, Base: gj.Inputs, Opts: o, Wrt: wrt, Grouped: groups.Grouped(), Derivative: d}
	nf := &groupFinite{key: key, check: a.checkFinite, stderr: stderr}
	b.NonFinite = nf.report
	job := &datasets.Job{
		Groups:  groups,
		Workers: workers,
		Resume:  a.batch.resume,
	}
	outs := a.batchOutputs(gj.Outputs, wrt)
	if len(outs) == 1 {
		job.Step, job.Out, job.Order, job.Meta = b.Run, outs[0].Out, outs[0].Order, outs[0].Meta
	} else {
		job.Steps, job.Outputs = b.RunAll, outs
	}
	if !a.batch.quiet && isTerminal(stderr) {
		job.Progress = stderr
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	st, err := job.Run(ctx)
	for _, w := range b.LateWarnings() {
		fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
	}
	nf.summary()
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
		executor, reason := "none", "no group ran"
		if k := b.Kernel(); k != nil {
			executor, reason = k.Executor(), executorReason(k, a.exec)
		}
		sorted, sortBytes := groups.Sorted()
		fmt.Fprintf(stderr, "groups=%d kept=%d rows=%d entries_out=%d compile_ms=%s elapsed_ms=%s rows_per_s=%.0f peak_rss_mb=%s sorted=%q sort_mb=%.1f executor=%s reason=%q\n",
			st.Groups, st.Kept, st.Rows, st.Entries, ms(b.CompileTime()), ms(st.Elapsed), rate, peakRSS(),
			strings.Join(sorted, ","), float64(sortBytes)/(1<<20), executor, reason)
	}
	return nil
}

// sortMemory is the memory the external sort of an unsorted grouped
// table takes (datasets.GroupOptions.SortMemory): a sixty-fourth of the
// --memory-limit budget, from 4 MiB to 16 MiB. 16 MiB runs of a matrix
// table hold 260K rows, and one merge of 256 of them sorts 66M rows; a
// larger table takes a pass more. More memory saves little time: a
// 10M-row table sorts in about the same time with 64 MiB runs, and the
// job's peak grows by the difference.
func sortMemory(limit int64) int64 {
	if limit <= 0 {
		return 16 << 20
	}
	return min(max(limit/64, 4<<20), 16<<20)
}

// batchOutputs are the tables of a grouped job's results: --out for one;
// for several, --out with each result's label before its extension
// (out.parquet: out.value.parquet, out.grad_x.parquet, ...).
func (a *evalArgs) batchOutputs(outs []batch.Output, wrt string) []datasets.JobOutput {
	_, text, _ := a.source()
	meta := batch.Meta(text, wrt, a.inputs)
	if !a.simple() {
		meta["nablasd.derivative"] = a.diff.describe(&a.commonArgs)
	}
	if len(outs) == 1 {
		return []datasets.JobOutput{{Out: a.out, Order: outs[0].Order, Meta: meta}}
	}
	ext := filepath.Ext(a.out)
	var jobs []datasets.JobOutput
	for _, o := range outs {
		m := maps.Clone(meta)
		m["nablasd.output"] = o.Label
		path := strings.TrimSuffix(a.out, ext) + "." + strings.ReplaceAll(o.Label, " ", "_") + ext
		jobs = append(jobs, datasets.JobOutput{Out: path, Order: o.Order, Meta: m})
	}
	return jobs
}

// sharedProducts refuses a product's value (--vjp, --jvp, --hvp) that is
// a table with the key column: a product's value is one for every group,
// and such a table would be read whole, its groups summed.
func (a *evalArgs) sharedProducts(key string) error {
	for _, fl := range []struct {
		name  string
		flags inputFlags
	}{{"--vjp", a.diff.vjp}, {"--jvp", a.diff.jvp}, {"--hvp", a.diff.hvp}} {
		for _, s := range fl.flags {
			n, val, _ := strings.Cut(s, "=")
			ts, ok, err := batch.ParseTableSpec(n, val)
			if !ok || err != nil {
				continue
			}
			cols, err := datasets.TableColumns(ts.Path)
			if err != nil {
				continue // reading it reports it
			}
			if slices.Contains(cols, key) {
				return usagef("%s %s: %s has the key column %s, but a product's value is the same for every group (give a table without it)", fl.name, n, ts.Path, key)
			}
		}
	}
	return nil
}

// groupFinite reports the groups whose results hold a NaN or an
// infinity: a warning for the first few (with where the first appears),
// a count of the others; with --check-finite, an error that stops the
// job.
type groupFinite struct {
	key    string
	check  bool
	stderr io.Writer
	mu     sync.Mutex
	groups map[datasets.Key]bool // the groups found so far
}

// groupFiniteWarnings is how many groups' warnings are written in full.
const groupFiniteWarnings = 3

func (f *groupFinite) report(g *datasets.Group, res *nablasd.Result, _ *nablasd.NonFinite) error {
	if f.check {
		return fmt.Errorf("%v (--check-finite)", res.CheckFinite())
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.groups == nil {
		f.groups = map[datasets.Key]bool{}
	}
	f.groups[g.Key] = true
	if len(f.groups) <= groupFiniteWarnings {
		// every result of the first groups
		fmt.Fprintf(f.stderr, "nablasd: warning: %s=%s: %v\n", f.key, g.Key, res.CheckFinite())
	}
	return nil
}

// summary counts the groups not warned about.
func (f *groupFinite) summary() {
	if n := len(f.groups) - groupFiniteWarnings; n > 0 {
		what := fmt.Sprintf("%d more groups hold", n)
		if n == 1 {
			what = "1 more group holds"
		}
		fmt.Fprintf(f.stderr, "nablasd: warning: %s a NaN or an infinity (--check-finite makes the first an error)\n", what)
	}
}
