package main

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/sdql"
)

// parseInputs parses the --in NAME=VALUE flags and loads the values: a
// number, or tensor data (nablasd.Load).
func parseInputs(flags []string, progress io.Writer) (nablasd.Inputs, error) {
	in := nablasd.Inputs{}
	for _, s := range flags {
		name, val, ok := strings.Cut(s, "=")
		if !ok || name == "" || val == "" {
			return nil, usagef("--in %q: want NAME=VALUE", s)
		}
		if !validName(name) {
			return nil, usagef("--in %q: %q is not a variable name", s, name)
		}
		if _, dup := in[name]; dup {
			return nil, usagef("--in %s is bound twice", name)
		}
		if x, err := strconv.ParseFloat(val, 64); err == nil {
			in[name] = x
			continue
		}
		if v, ok, err := tableInput(name, val); ok {
			if err != nil {
				return nil, err
			}
			in[name] = v
			continue
		}
		t, err := nablasd.Load(val, &nablasd.LoadOptions{Progress: progress})
		if err != nil {
			return nil, fmt.Errorf("--in %s: %v", name, err)
		}
		in[name] = t
	}
	return in, nil
}

func validName(s string) bool {
	e, err := sdql.Parse("", s)
	if err != nil {
		return false
	}
	id, ok := e.(*sdql.Ident)
	return ok && id.Name == s && s != "_"
}

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
	inputs, err := parseInputs(c.inputs, stderr)
	if err != nil {
		return nil, err
	}
	o.File = name
	q, err := nablasd.Prepare(text, inputs, o)
	if err != nil {
		var ue *nablasd.UndefinedError
		if errors.As(err, &ue) {
			return nil, &sdql.Error{File: ue.File, Pos: ue.Pos, Msg: fmt.Sprintf("undefined: %s (bind it with --in %s=VALUE)", ue.Name, ue.Name)}
		}
		return nil, err
	}
	for _, w := range q.Warnings() {
		fmt.Fprintf(stderr, "nablasd: warning: %s\n", w)
	}
	for _, w := range c.wrt.names {
		if err := checkWrt(q, w); err != nil {
			return nil, err
		}
	}
	return q, nil
}

// checkWrt reports a --wrt that names no input of the program.
func checkWrt(q *nablasd.Query, wrt string) error {
	for _, n := range q.InputNames() {
		if n == wrt {
			return nil
		}
	}
	list := strings.Join(q.InputNames(), ", ")
	if list == "" {
		list = "none bound"
	}
	return fmt.Errorf("--wrt %s: %s is not an input of the program (its inputs: %s)", wrt, wrt, list)
}
