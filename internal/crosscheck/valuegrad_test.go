package crosscheck

import (
	"testing"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// valueGradPrograms is how many programs TestCrossCheckValueAndGrad
// checks: 400, 12 with -short, 4 under the race detector, or
// $NABLASD_CROSSCHECK_N.
func valueGradPrograms() int { return sampleSize("NABLASD_CROSSCHECK_N", 400, 12, 4) }

// TestCrossCheckValueAndGrad is TestCrossCheck over what a fit runs: the
// value and the gradient of a real-valued program from one reverse sweep
// (ad.Derive with Request.Value, one bundle), whose primal sweep keeps
// per-entry values on tapes the gradient's sweeps read back (lower's
// fullrows and positionlocates make such a read the loop's position).
// Every variant and the generated Go give the interpreter's bundle.
func TestCrossCheckValueAndGrad(t *testing.T) {
	n := valueGradPrograms()
	rep := crossCheck(t, 36, n, config{withGo: !raceEnabled, valueGrad: true}, 20)
	for _, f := range rep.failures {
		t.Error(f)
	}
	checkGo(t, rep)
	if rep.taped == 0 && n >= 12 {
		t.Errorf("none of %d programs' kernels reads a tape at a loop's position: the check does not reach lower's positionlocates", n)
	}
	if rep.programs < n/2 {
		t.Errorf("only %d of %d generated programs evaluated", rep.programs, n)
	}
	t.Logf("%d programs' value and gradient over every storage round (%d jobs, %d variant runs) agree; %d kernels read a tape at a loop's position; %d generated Go kernels",
		rep.programs, rep.jobs, rep.runs, rep.taped, len(rep.goCases))
}

// valueAndGrad is the job's derivative: the program's value and its
// gradient with respect to w, one reverse sweep.
func valueAndGrad(prog sdql.Expr, w string) func(types map[string]sdql.Type) (sdql.Expr, error) {
	return func(types map[string]sdql.Type) (sdql.Expr, error) {
		e, _, _, err := ad.Derive(prog, &ad.Request{Wrt: []string{w}, Value: true}, ad.ModeReverse, types)
		return e, err
	}
}

// tapeRead reports whether the job's fully optimized program lowers
// differently without lower's positionlocates: a locate in a tape turned
// into the position of the loop that reads it.
func tapeRead(j *job) bool {
	e, vals, err := j.program("full")
	if err != nil {
		return false
	}
	info, err := sdql.Check(e, &sdql.CheckConfig{Inputs: j.types(vals), Strict: true})
	if err != nil {
		return false
	}
	opts := j.lowering("full")
	with, err1 := lower.Lower(e, info, lower.Options{Formats: opts.Formats})
	without, err2 := lower.Lower(e, info, lower.Options{Formats: opts.Formats, Disable: []string{"positionlocates"}})
	return err1 == nil && err2 == nil && lower.Print(with) != lower.Print(without)
}
