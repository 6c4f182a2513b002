package main

import (
	"fmt"
	"io"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// cmdGrad: nablasd grad (-f FILE | -e TEXT) --wrt NAME [--in NAME=VALUE]...
// [--out FILE] [--repeat N] [--stats]
func cmdGrad(args []string, stdout, stderr io.Writer) error {
	var c common
	var rs runStats
	var x execFlags
	fs := newFlagSet("grad", &c, true, true)
	rs.register(fs)
	x.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if c.wrt == "" {
		return usagef("grad needs --wrt NAME: the input to differentiate with respect to")
	}
	p, err := load(&c)
	if err != nil {
		return err
	}
	if _, ok := p.inputs[c.wrt]; !ok {
		return fmt.Errorf("--wrt %s: %s is not an input of the program (its inputs: %s)", c.wrt, c.wrt, inputList(p))
	}
	compileStart := time.Now()
	pl, err := prepare(p, c.wrt, c.opt)
	if err != nil {
		return err
	}
	optimize := time.Since(compileStart)
	dense := denseGradShape(p, c.wrt)
	v, res, kernel, err := x.execute(p, pl, &rs, dense)
	if err != nil {
		return err
	}
	if t := p.inputs[c.wrt].tensor; t != nil && p.info.Result == sdql.RealType && (dense == nil || x.exec != "compiled") {
		// the gradient of a scalar program is given on exactly the wrt
		// input's stored positions, whichever executor computed it (a
		// compiled kernel with a dense destination already covers them)
		v, res = ad.OnStoredPositions(v, formats.ToValue(t)), nil
	}
	rs.report(stderr, optimize+kernel)
	return x.output(v, res, c.out, p.resultShape(c.wrt, v), stdout)
}

// denseGradShape is the result shape the kernel may make dense: the wrt
// input's shape when the program's result is a scalar and the input is
// bound in a dense format (its gradient then covers every position).
func denseGradShape(p *program, wrt string) []int {
	t := p.inputs[wrt].tensor
	if t == nil || p.info.Result != sdql.RealType {
		return nil
	}
	if t.Format != formats.Dense && t.Format != formats.DenseCol {
		return nil
	}
	return t.Shape
}
