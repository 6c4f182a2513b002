package main

import (
	"fmt"
	"io"
	"time"

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
	v, res, kernel, err := x.execute(p, pl, &rs, denseGradShape(p, c.wrt))
	if err != nil {
		return err
	}
	rs.report(stderr, optimize+kernel)
	return x.output(v, res, c.out, gradShape(p, c.wrt, v), stdout)
}

// gradShape is the shape a written gradient keeps: the result's indices
// then the wrt input's.
func gradShape(p *program, wrt string, v sdql.Value) []int {
	var shape []int
	if t := p.inputs[wrt].tensor; t != nil {
		shape = t.Shape
	}
	if order := sdql.Order(sdql.TypeOfValue(v)); order > len(shape) {
		return append(make([]int, order-len(shape)), shape...)
	}
	return shape
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
