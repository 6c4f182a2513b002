package main

import (
	"fmt"
	"io"

	"github.com/nablasd/nablasd/ad"
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
	stage := func(name string, e sdql.Expr) {
		fmt.Fprintf(stdout, "-- stage: %s\n%s\n", name, sdql.Print(e))
	}
	stage("logical", p.expr)
	if c.wrt == "" {
		return nil
	}
	st, err := ad.GradStages(p.expr, c.wrt, p.types())
	if err != nil {
		return p.withFile(err)
	}
	stage("anf", st.ANF)
	stage("differentiated", st.Derivative)
	stage("sparsity", st.Sparse)
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
