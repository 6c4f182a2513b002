package main

import (
	"io"

	"github.com/nablasd/nablasd/sdql"
)

// cmdEval: nablasd eval (-f FILE | -e TEXT) [--in NAME=VALUE]... [--out FILE]
func cmdEval(args []string, stdout, stderr io.Writer) error {
	var c common
	fs := newFlagSet("eval", &c, false, true)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := load(&c)
	if err != nil {
		return err
	}
	in := &sdql.Interp{File: p.name}
	v, err := in.Run(p.expr, p.info, p.values)
	if err != nil {
		return err
	}
	return writeResult(v, c.out, p.shapeHint(v), stdout)
}
