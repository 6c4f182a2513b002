package gen

import (
	"fmt"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// The binding of the workloads' generated kernels to inputs (written by
// hand; the kernels are generated).

// WorkloadRun binds the generated kernel of a workload's value or
// gradient (program and mode "eval" or "grad", as BindWorkload names
// them) to inputs: the bindings of the plan nablasd makes of src (file
// names it in messages) over them, with respect to wrt for the
// gradient. run runs the kernel into a destination it reuses (panicking
// if the kernel fails), value returns its last result. run is nil when
// there is no generated kernel of that name.
func WorkloadRun(program, mode, src, file, wrt string, inputs nablasd.Inputs) (run func(), value func() sdql.Value, err error) {
	mk := BindWorkload[program+"_"+mode]
	if mk == nil {
		return nil, nil, nil
	}
	q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: file})
	if err != nil {
		return nil, nil, err
	}
	var ws []string
	if wrt != "" {
		ws = []string{wrt}
	}
	p, err := q.Plan(ws...)
	if err != nil {
		return nil, nil, err
	}
	defer func() {
		if r := recover(); r != nil {
			run, value = nil, nil
			err = fmt.Errorf("gen: the generated kernel of %s %s does not bind to its plan (regenerate with go run ./bench/cmd/gengo): %v", program, mode, r)
		}
	}()
	run, value = mk(p.Bindings)
	return run, value, nil
}
