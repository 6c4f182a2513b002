package main

import (
	"fmt"
	"io"
)

// cmdPlan: nablasd plan (-f FILE | -e TEXT) [--wrt NAME] [--in NAME=VALUE]...
// prints every stage of the pipeline, each after a line "-- stage: NAME";
// the last is the program that runs. Without --in, the inputs' types are
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
	var wrt []string
	if c.wrt.name != "" {
		wrt = []string{c.wrt.name}
	}
	p, err := q.Plan(wrt...)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, p)
	return nil
}
