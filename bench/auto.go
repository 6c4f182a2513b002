package bench

import (
	"fmt"
	"time"

	"github.com/nablasd/nablasd"
)

// CompileAuto prepares the case's kernel through the root package as a
// user would, with the default executor (Options.Exec "auto": the
// closures first, native code once built, the faster kept), in forward
// mode so that it runs the program the compiled column runs (the
// paper's system; Pipeline), compiles its gradient and runs it once.
// Compiled.Settle then runs it until the executor is chosen. A spelled
// variant has no such kernel (an error).
func (cs *Case) CompileAuto() (*Compiled, error) {
	if cs.Variant != nil {
		return nil, fmt.Errorf("bench: %s: the default executor is measured on the originals only", cs.Name())
	}
	src, ok := Logical[cs.Kernel]
	if !ok {
		return nil, fmt.Errorf("bench: unknown kernel %q", cs.Kernel)
	}
	t0 := time.Now()
	c := &Compiled{}
	var err error
	if c.Query, err = nablasd.Prepare(src, cs.Inputs, &nablasd.Options{File: cs.Kernel, Mode: "forward"}); err != nil {
		return nil, fmt.Errorf("bench: %s: %v", cs.Name(), err)
	}
	if c.Kernel, err = c.Query.Compile(Wrt[cs.Kernel]); err != nil {
		return nil, fmt.Errorf("bench: %s: %v", cs.Name(), err)
	}
	c.Result = c.Kernel.NewResult()
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("bench: %s: %v", cs.Name(), err)
	}
	c.Time = time.Since(t0)
	return c, nil
}
