package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
	"github.com/nablasd/nablasd/sdql"
)

// options turns the common flags into the API's options, and sets the Go
// runtime's soft memory limit to the budget.
func (c *commonArgs) options(name string) (*nablasd.Options, error) {
	o := &nablasd.Options{File: name, Opt: c.opt, NoShapeCheck: c.noShapeCheck, Mode: c.diff.mode}
	switch c.opt {
	case "full", "rules", "none":
	default:
		return nil, usagef("--opt %q: want full, rules or none", c.opt)
	}
	switch c.diff.mode {
	case "", "auto", "forward", "reverse":
	default:
		return nil, usagef("--mode %q: want auto, forward or reverse", c.diff.mode)
	}
	limit, err := nablasd.ParseBytes(c.memoryLimit)
	if err != nil {
		return nil, usagef("--memory-limit: %v", err)
	}
	o.MemoryLimit = limit
	if o.DisablePasses, err = passNames(c.disable, "--disable"); err != nil {
		return nil, err
	}
	if limit > 0 {
		debug.SetMemoryLimit(limit)
	}
	return o, nil
}

// prepare reads the program and its inputs and prepares the query; it
// prints the query's warnings (the precedence lint, unused inputs).
func (c *commonArgs) prepare(o *nablasd.Options, stderr io.Writer) (*nablasd.Query, error) {
	name, text, err := c.source()
	if err != nil {
		return nil, err
	}
	// parse first: a program that does not parse is reported before its
	// inputs are loaded
	if _, err := sdql.Parse(name, text); err != nil {
		return nil, err
	}
	inputs, err := batch.ParseInputs(c.inputs, stderr)
	if err != nil {
		return nil, err
	}
	o.File = name
	q, err := nablasd.Prepare(text, inputs, o)
	if err != nil {
		var ue *nablasd.UndefinedError
		if errors.As(err, &ue) {
			return nil, &sdql.Error{File: ue.File, Pos: ue.Pos, Msg: ue.Message(fmt.Sprintf("bind it with --in %s=VALUE", ue.Name))}
		}
		return nil, err
	}
	for _, w := range q.Warnings() {
		fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
	}
	for _, w := range c.wrt.names {
		if err := batch.CheckWrt(q, w); err != nil {
			return nil, err
		}
	}
	return q, nil
}
