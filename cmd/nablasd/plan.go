package main

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd/sdql"
)

// cmdPlan: nablasd plan (-f FILE | -e TEXT) [--wrt NAME[,NAME...]]
// [--mode MODE] [--in NAME=VALUE]... prints every stage of the pipeline,
// each after a line "-- stage: NAME"; the last is the program that runs.
// In reverse mode ad's stages (anf, linearized, unzipped, transposed) come
// after the logical program; a last line "-- mode: ..." says which mode
// differentiated.
func cmdPlan(args []string, stdout, stderr io.Writer) error {
	var c common
	var df diffFlags
	fs := newFlagSet("plan", &c, true, false)
	df.register(fs)
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
	d, err := p.differentiate(&c, &df)
	if err != nil {
		return err
	}
	res, _, err := p.optimize(d, mode)
	if err != nil {
		return err
	}
	if d != nil && len(d.stages) > 0 {
		res.Stages = append(append(res.Stages[:1:1], d.stages...), res.Stages[1:]...)
	}
	fmt.Fprint(stdout, res.Plan())
	if d != nil {
		how := d.mode.String()
		if df.mode == "auto" || df.mode == "" {
			how += " (auto"
			if d.why != "" {
				how += "; " + d.why
			}
			how += ")"
		}
		fmt.Fprintf(stdout, "-- mode: %s\n", how)
	}
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
	return p, nil
}
