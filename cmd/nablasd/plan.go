package main

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd/sdql"
)

// cmdPlan: nablasd plan (-f FILE | -e TEXT) [--wrt NAME] [--in NAME=VALUE]...
// prints every stage of the pipeline, each after a line "-- stage: NAME";
// the last is the program that runs.
func cmdPlan(args []string, stdout, stderr io.Writer) error {
	var c common
	fs := newFlagSet("plan", &c, true, false)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := loadForPlan(&c)
	if err != nil {
		return err
	}
	mode, ok := optModes[c.opt]
	if !ok || mode == "none" {
		return usagef("--opt %q: plan shows the optimizer's stages for --opt full or rules", c.opt)
	}
	res, _, err := p.optimize(c.wrt, mode)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, res.Plan())
	return nil
}

// loadForPlan is load without requiring every input to be bound: a plan
// can be printed for a program alone, with inferred input types.
func loadForPlan(c *common) (*program, error) {
	if len(c.inputs) > 0 {
		return load(c)
	}
	p, err := parse(c)
	if err != nil {
		return nil, err
	}
	if p.info, err = sdql.Check(p.expr, &sdql.CheckConfig{File: p.name}); err != nil {
		return nil, err
	}
	found := false
	for _, v := range sdql.FreeVars(p.expr) {
		found = found || v == c.wrt
	}
	if c.wrt != "" && !found {
		return nil, fmt.Errorf("--wrt %s: %s is not an input of the program", c.wrt, c.wrt)
	}
	return p, nil
}
