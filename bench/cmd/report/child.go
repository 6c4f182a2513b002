package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd/bench"
	"github.com/nablasd/nablasd/datasets"
	nexec "github.com/nablasd/nablasd/exec"
)

// The peak-memory measurement runs in a child process per kernel, input
// and variant: the report runs itself again with -child
// KERNEL,INPUT,VARIANT (and the parent's kernel options), and the child
// prints one line, "peak_extra=BYTES baseline=BYTES", or "unavailable:
// REASON" where the operating system cannot measure it.

// warmInput is the small matrix each child first runs its variant over,
// so that code pages and the runtime's one-time structures are resident
// before the baseline and the measurement sees what grows with the input.
const warmInput = "rows=300,cols=300,density=0.02,seed=3"

// runChild measures one variant's peak memory in this process and prints
// it to standard output.
func runChild(spec string, opts nexec.Options) error {
	kernel, rest, ok1 := strings.Cut(spec, ",")
	input, variant, ok2 := strings.Cut(rest, ",")
	if !ok1 || !ok2 {
		return fmt.Errorf("-child %q: want KERNEL,INPUT,VARIANT", spec)
	}
	format := ""
	for _, kf := range bench.Kernels {
		if kf.Name == kernel {
			format = kf.Format
		}
	}
	if format == "" {
		return fmt.Errorf("-child %q: unknown kernel %q", spec, kernel)
	}
	small, err := datasets.ParseSynthetic(warmInput)
	if err != nil {
		return err
	}
	warm, err := newCase(kernel, format, "warm", small, opts)
	if err != nil {
		return err
	}
	m, why, err := bench.LoadInput(input)
	if err != nil {
		return err
	}
	if m == nil {
		return fmt.Errorf("input %s: %s", input, why)
	}
	cs, err := newCase(kernel, format, input, m, opts)
	if err != nil {
		return err
	}
	m = nil
	// the case's own hand-written run (its result, and BATAx's CSC copy
	// of A, made by NewCase for the timing tables) is not this child's:
	// left alive, it is live heap the collector paces the measured run
	// against (a heap may grow to twice the live one before a collection)
	cs.Hand, cs.HandValue, cs.HandThreads = nil, nil, nil
	if _, err := firstRun(warm, variant, opts); err != nil {
		return err
	}
	warm = nil
	var runErr error
	extra, base, err := bench.PeakRSS(func() { _, runErr = firstRun(cs, variant, opts) })
	if errors.Is(err, bench.ErrNoPeakRSS) {
		fmt.Printf("unavailable: %v\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	if runErr != nil {
		return runErr
	}
	fmt.Printf("peak_extra=%d baseline=%d\n", extra, base)
	return nil
}

// firstRun does what a variant needs before and including its first run:
// for the compiled kernel exec.Compile, NewResult and RunInto; for the
// generated Go its binding (which allocates its destination) and run; for
// the hand-written loop the allocation of its buffers and its run. It
// returns what the run keeps (to keep it alive).
func firstRun(cs *bench.Case, variant string, opts nexec.Options) (any, error) {
	switch variant {
	case "hand":
		run := cs.NewHand()
		run()
		return run, nil
	case "compiled":
		k, err := cs.Compile(opts)
		if err != nil {
			return nil, err
		}
		res := k.NewResult()
		return res, k.RunInto(res, cs.Bindings)
	case "gen":
		run := genKernel(cs.Kernel+"_"+cs.Format, cs.Bindings)
		if run == nil {
			return nil, fmt.Errorf("no generated kernel for %s_%s", cs.Kernel, cs.Format)
		}
		run()
		return run, nil
	}
	return nil, fmt.Errorf("unknown variant %q (want hand, compiled or gen)", variant)
}

// peak is a child's measurement: the peak resident memory above the
// baseline, or why there is none.
type peak struct {
	extra int64
	note  string // "" when measured
}

// measurePeak runs the child of one kernel, input and variant, passing it
// args (the parent's kernel options).
func measurePeak(kernel, input, variant string, args []string) (peak, error) {
	exe, err := os.Executable()
	if err != nil {
		return peak{note: err.Error()}, nil
	}
	var out bytes.Buffer
	cmd := exec.Command(exe, append([]string{"-child", kernel + "," + input + "," + variant}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, os.Stderr
	if err := cmd.Run(); err != nil {
		return peak{}, fmt.Errorf("child %s,%s,%s: %v", kernel, input, variant, err)
	}
	line := strings.TrimSpace(out.String())
	if why, ok := strings.CutPrefix(line, "unavailable: "); ok {
		return peak{note: why}, nil
	}
	var p peak
	for _, f := range strings.Fields(line) {
		if v, ok := strings.CutPrefix(f, "peak_extra="); ok {
			if p.extra, err = strconv.ParseInt(v, 10, 64); err != nil {
				break
			}
			return p, nil
		}
	}
	return peak{}, fmt.Errorf("child %s,%s,%s: unexpected output %q", kernel, input, variant, line)
}
