// Command nablasd-beam runs nablasd's batch jobs on Apache Beam: the same
// eval and grad commands, programs and --in/--out conventions as nablasd,
// on Beam's in-process Prism runner or on Flink, Spark or Dataflow. Two
// kinds of jobs:
//
//   - --group-by KEY: the program (or its gradient) once per group of the
//     table inputs split by the column KEY, as nablasd --group-by; the
//     results go to a directory of Parquet shards and a manifest, holding
//     the rows nablasd's single output holds.
//   - --partition-rows N: one big input split into blocks of N rows, the
//     program run on each block and the blocks' results added (a CombineFn:
//     the semiring's +). The program must be a sum over the input's rows;
//     others are refused, saying why.
//
// Bad input is reported before the pipeline is submitted. At the end the
// job's counters (Beam metrics) are printed to standard error. See "Running
// on a cluster" in the README, and "nablasd-beam help CMD".
//
// Exit status: 0 on success, 1 on bad input or a failed job, 2 on bad
// usage.
//
// The same binary is the workers' program: a runner starts it with
// Beam's --worker flags.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"syscall"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/dataflow"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/flink"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/prism"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/spark"
	_ "github.com/apache/beam/sdks/v2/go/pkg/beam/runners/universal"

	"github.com/nablasd/nablasd/batch"
)

const usage = `nablasd-beam: nablasd's batch jobs on Apache Beam

Usage:
  nablasd-beam eval (-f FILE | -e TEXT) [--in NAME=VALUE]... (--group-by KEY | --partition-rows N) --out OUT [--runner RUNNER] [Beam flags]
  nablasd-beam grad (-f FILE | -e TEXT) --wrt NAME [--in NAME=VALUE]... (--group-by KEY | --partition-rows N) --out OUT [--runner RUNNER] [Beam flags]
  nablasd-beam fit  (-f FILE | -e TEXT) --wrt NAME[,NAME...] [--in NAME=VALUE]... [--init NAME=VALUE]... --group-by KEY --out OUT [--method METHOD] [--tol T] [Beam flags]
  nablasd-beam help [CMD]

--group-by KEY runs the program once per group (as nablasd --group-by) into
the directory OUT: Parquet shards and manifest.json; fit fits the program's
parameters once per group (as nablasd fit --group-by), a row per group and
parameter entry. --partition-rows N runs
it on blocks of N rows of its big input and adds the blocks' results into
the table OUT. VALUE is as for nablasd (a number, a table, a Matrix Market
file, synthetic:...); every worker reads it at the same path.

Run 'nablasd-beam help eval' for every flag.
`

func main() {
	if len(os.Args) > 1 && strings.HasPrefix(os.Args[1], "-") {
		// Started by a runner as a worker (--worker --id=... ...): Beam's
		// harness runs and exits in beam.Init.
		flag.Parse()
		beam.Init()
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// run runs one command line and returns the exit status; a panic is
// reported as an internal error.
func run(argv []string, stdout, stderr io.Writer) (status int) {
	defer func() {
		if r := recover(); r != nil {
			fmt.Fprintf(stderr, "nablasd-beam: internal error: %v\n", r)
			status = 3
		}
	}()
	if len(argv) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	var err error
	cmd := argv[0]
	switch cmd {
	case "eval", "grad", "fit":
		var a args
		fs := newFlags(cmd, &a)
		if err = fs.parse(argv[1:]); err == nil {
			err = launch(cmd, &a, stderr)
		}
		if errors.Is(err, errHelp) {
			fmt.Fprintf(stdout, "Usage: nablasd-beam %s [flags]\n\nFlags:\n%s", cmd, fs.help())
			return 0
		}
	case "help", "-h", "--help":
		switch {
		case len(argv) == 1:
			fmt.Fprint(stdout, usage)
			return 0
		case argv[1] == "eval" || argv[1] == "grad" || argv[1] == "fit":
			var a args
			fmt.Fprintf(stdout, "Usage: nablasd-beam %s [flags]\n\nFlags:\n%s", argv[1], newFlags(argv[1], &a).help())
			return 0
		}
		err = batch.Usagef("help: unknown command %q (want eval, grad or fit)", argv[1])
	default:
		err = batch.Usagef("unknown command %q (want eval, grad, fit or help)", cmd)
	}
	if err == nil {
		return 0
	}
	var ue *batch.UsageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "nablasd-beam: %v\nRun 'nablasd-beam help' for usage.\n", err)
		return 2
	}
	fmt.Fprintf(stderr, "nablasd-beam: %v\n", err)
	return 1
}

// quietLogs sends the runner's and the SDK's log to w only from level on
// (slog: Prism and the Go SDK log through it).
func quietLogs(w io.Writer, level slog.Level) {
	slog.SetDefault(slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})))
}

// peakRSS is the process's peak resident set size in MiB (for Prism: the
// runner's and the workers', all in this process).
func peakRSS() string {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return "unknown"
	}
	return fmt.Sprintf("%.1f", float64(ru.Maxrss)/1024) // Linux reports KiB
}
