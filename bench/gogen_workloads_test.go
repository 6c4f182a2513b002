package bench

import (
	"testing"

	"github.com/nablasd/nablasd/bench/gen"
	"github.com/nablasd/nablasd/sdql"
)

// The generated Go of the workloads (bench/gen/wl_*.go, written by
// bench/cmd/gengo) is system=generated of BenchmarkWorkload: the test
// binary sets the GeneratedWorkload hook.
func init() { GeneratedWorkload = generatedWorkload }

// generatedWorkload binds the generated kernel of the case's workload
// and mode (the original spelling only) to the case's inputs: the
// bindings of the program's plan, as the root package binds them.
func generatedWorkload(cs *WorkloadCase) (func(), error) {
	run, _, err := bindGeneratedWorkload(cs)
	return run, err
}

func bindGeneratedWorkload(cs *WorkloadCase) (run func(), value func() sdql.Value, err error) {
	if cs.Variant != nil {
		return nil, nil, nil
	}
	inputs, err := cs.Data.Inputs(cs.Names)
	if err != nil {
		return nil, nil, err
	}
	return gen.WorkloadRun(cs.Program, cs.Mode, cs.Src, cs.File, cs.Wrt, inputs)
}

// TestGeneratedWorkloads runs the checked-in generated kernels of every
// workload's value and gradient, twice into their destination, on inputs
// of other sizes than they were generated for, against the hand-written
// closed forms (themselves checked against the interpreter and finite
// differences by TestWorkloadHand).
func TestGeneratedWorkloads(t *testing.T) {
	if dir, _ := WorkloadDir(); dir == "" {
		t.Skip("no workloads folder")
	}
	for _, w := range Workloads {
		d := smallWorkloadData(t, w)
		for _, mode := range Modes {
			cs, why, err := NewWorkloadCase(w, mode, d, nil)
			if err != nil || why != "" {
				t.Fatalf("%s %s: %v %s", w.Name, mode, err, why)
			}
			run, value, err := bindGeneratedWorkload(cs)
			if err != nil {
				t.Fatal(err)
			}
			if run == nil {
				t.Errorf("%s: no generated kernel (run go run ./bench/cmd/gengo)", cs.Name())
				continue
			}
			run()
			run() // a second run into the reused destination
			cs.Hand()
			n, cols := 1, 1
			if mode == "grad" {
				n = d.Cols()
				if w.Wrt == "U" {
					n, cols = d.Rows()*d.K, d.K
				}
			}
			got, want := flat(value(), n, cols), flat(cs.HandValue(), n, cols)
			for i := range want {
				if !closeTo(got[i], want[i], 1e-9) {
					t.Errorf("%s: generated [%d] = %v, hand-written %v", cs.Name(), i, got[i], want[i])
				}
			}
		}
	}
}
