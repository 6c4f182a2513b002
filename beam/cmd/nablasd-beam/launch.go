package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/beam/pipeline"
)

// launch checks a job's flags and inputs, builds its pipeline, runs it on
// the runner and prints its counters. Everything that can be checked
// before the pipeline is submitted is: the runner, the program, every
// input (read once here), and that the program can be partitioned.
func launch(cmd string, a *args, stderr io.Writer) error {
	runner, ok := runners[a.runner]
	if !ok {
		return batch.Usagef("--runner %s: unknown runner (want prism, flink, spark, dataflow or universal)", a.runner)
	}
	wrt := ""
	if cmd == "grad" {
		if a.wrt == "" {
			return batch.Usagef("grad needs --wrt NAME: the input to differentiate with respect to")
		}
		wrt = a.wrt
	}
	var fit *pipeline.Fit
	if cmd == "fit" {
		var err error
		if fit, err = a.fitSpec(); err != nil {
			return err
		}
	}
	switch {
	case a.groupBy != "" && a.partitionRows != 0:
		return batch.Usagef("give --group-by or --partition-rows, not both")
	case a.groupBy == "" && a.partitionRows == 0:
		return batch.Usagef("nablasd-beam runs batch jobs: give --group-by KEY or --partition-rows N")
	case a.partitionRows < 0:
		return batch.Usagef("--partition-rows %d: want a positive number of rows", a.partitionRows)
	case a.partitionIn != "" && a.partitionRows == 0:
		return batch.Usagef("--partition-input goes with --partition-rows")
	case a.out == "":
		return batch.Usagef("no output: give --out (a directory with --group-by, a table file with --partition-rows)")
	case a.shards < 1:
		return batch.Usagef("--shards %d: want at least 1", a.shards)
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	name, text, err := a.source()
	if err != nil {
		return err
	}
	job := pipeline.Job{Program: text, File: name, Wrt: wrt, Options: jobOptions(o), Out: a.out, Shards: a.shards, Fit: fit}
	var cleanup func()
	switch {
	case fit != nil:
		cleanup, err = fitJob(&job, a, o, stderr)
	case a.groupBy != "":
		cleanup, err = groupedJob(&job, a, o, stderr)
	default:
		err = partitionedJob(&job, a, o, stderr)
	}
	if err != nil {
		return err
	}
	beam.Init() // sets up Beam's logging, among others
	if !a.verbose {
		quietLogs(stderr, slog.LevelError+4) // a failure is reported below, once
	}
	p, s := beam.NewPipelineWithRoot()
	if job.Key != "" {
		pipeline.Grouped(s, job)
	} else {
		pipeline.Partitioned(s, job)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	start := time.Now()
	pr, err := beam.Run(ctx, runner, p)
	if err != nil {
		if cleanup != nil {
			cleanup()
		}
		return fmt.Errorf("the job failed: %v", pipeline.JobError(err))
	}
	if !a.quiet {
		fmt.Fprintf(stderr, "nablasd-beam: %s elapsed_ms=%d peak_rss_mb=%s\n",
			pipeline.FormatCounters(pipeline.Counters(pr)), time.Since(start).Milliseconds(), peakRSS())
	}
	return nil
}

// options turns the executor's flags into the API's options, as nablasd
// does, and sets this process's soft memory limit to the budget.
func (a *args) options() (*nablasd.Options, error) {
	switch a.opt {
	case "full", "rules", "none":
	default:
		return nil, batch.Usagef("--opt %q: want full, rules or none", a.opt)
	}
	switch a.exec {
	case "compiled", "interp":
	default:
		return nil, batch.Usagef("--exec %q: want compiled or interp", a.exec)
	}
	switch a.dict {
	case "intmap", "map", "swiss":
	default:
		return nil, batch.Usagef("--dict %q: want intmap, map or swiss", a.dict)
	}
	if a.threads < 1 {
		return nil, batch.Usagef("--threads %d: want at least 1", a.threads)
	}
	limit, err := nablasd.ParseBytes(a.memoryLimit)
	if err != nil {
		return nil, batch.Usagef("--memory-limit: %v", err)
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return &nablasd.Options{Opt: a.opt, Exec: a.exec, Dict: a.dict, Threads: a.threads, NoDPS: !a.dps,
		NoValidate: a.noValidate, NoShapeCheck: a.noShapeCheck, MemoryLimit: limit}, nil
}

func jobOptions(o *nablasd.Options) pipeline.Options {
	return pipeline.Options{Opt: o.Opt, Exec: o.Exec, Dict: o.Dict, Threads: o.Threads, NoDPS: o.NoDPS,
		NoValidate: o.NoValidate, NoShapeCheck: o.NoShapeCheck, MemoryLimit: o.MemoryLimit}
}

// bindingName is the NAME of a NAME=VALUE binding.
func bindingName(s string) string {
	n, _, _ := strings.Cut(s, "=")
	return n
}
