package main

import (
	"io"

	"github.com/nablasd/nablasd/sdql"
)

// cmdEval: nablasd eval (-f FILE | -e TEXT) [--in NAME=VALUE]... [--out FILE]
func cmdEval(args []string, stdout, stderr io.Writer) error {
	var c common
	var rs runStats
	fs := newFlagSet("eval", &c, false, true)
	rs.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := load(&c)
	if err != nil {
		return err
	}
	v, err := rs.measure(func() (sdql.Value, error) {
		return (&sdql.Interp{File: p.name}).Run(p.expr, p.info, p.values)
	})
	if err != nil {
		return err
	}
	rs.report(stderr, 0)
	return writeResult(v, c.out, p.shapeHint(v), stdout)
}
