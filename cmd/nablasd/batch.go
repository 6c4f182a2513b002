package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

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
	if os.Getenv("GOGC") == "" {
		// A grouped job holds little (a group and the shared inputs) and
		// reads a lot: decoding makes about four bytes of garbage a byte
		// read. Collecting at 25% growth instead of 100% keeps its peak
		// nearer what it holds (BenchmarkGroupedJob).
		debug.SetGCPercent(25)
	}
	gj, err := batch.OpenGrouped(key, name, text, a.inputs, o, wrt, stderr)
	if err != nil {
		return err
	}
	groups := gj.Groups
	defer groups.Close()
	b := &batch.Step{Text: text, Base: gj.Inputs, Opts: o, Wrt: wrt, Grouped: groups.Grouped()}
	job := &datasets.Job{
		Groups:  groups,
		Step:    b.Run,
		Order:   gj.Order,
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
	for _, w := range b.LateWarnings() {
		fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
	}
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
		fmt.Fprintf(stderr, "groups=%d kept=%d rows=%d entries_out=%d compile_ms=%s elapsed_ms=%s rows_per_s=%.0f peak_rss_mb=%s executor=%s reason=%q\n",
			st.Groups, st.Kept, st.Rows, st.Entries, ms(b.CompileTime()), ms(st.Elapsed), rate, peakRSS(), executor, reason)
	}
	return nil
}

// batchMeta is the metadata of a grouped job's output: the program, the
// gradient's input and the bindings (--resume requires the same).
func batchMeta(a *evalArgs, wrt string) map[string]string {
	_, text, _ := a.source()
	return batch.Meta(text, wrt, a.inputs)
}
