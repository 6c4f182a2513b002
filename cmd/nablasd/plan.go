package main

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd"
)

// cmdPlan: nablasd plan (-f FILE | -e TEXT) [--wrt NAME[,NAME...]] [--mode
// MODE] [--in NAME=VALUE]... prints every stage of the pipeline, each after
// a line "-- stage: NAME"; the last is the program that runs; a derivative's
// plan ends with "-- mode: ...". Without --in, the inputs' types are
// inferred from their use.
func cmdPlan(args []string, stdout, stderr io.Writer) error {
	var c commonArgs
	if err := planFlags(&c).parse(args); err != nil {
		return err
	}
	o, err := c.options("")
	if err != nil {
		return err
	}
	if c.opt == "none" {
		return usagef("--opt %q: plan shows the optimizer's stages for --opt full or rules", c.opt)
	}
	q, err := c.prepare(o, stderr)
	if err != nil {
		return err
	}
	var p *nablasd.Plan
	if c.simple() {
		p, err = q.Plan(c.wrt.names...)
	} else {
		var d *nablasd.Derivative
		if d, err = c.derivative(stderr); err != nil {
			return err
		}
		p, err = q.PlanDerivative(d)
	}
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, p)
	return nil
}
