package main

import (
	"io"
	"time"

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
	compileStart := time.Now()
	pl, err := prepare(p, "", c.opt)
	if err != nil {
		return err
	}
	compile := time.Since(compileStart)
	v, err := rs.measure(func() (sdql.Value, error) {
		return (&sdql.Interp{File: p.name}).Run(pl.prog, pl.info, pl.values)
	})
	if err != nil {
		return err
	}
	rs.report(stderr, compile)
	return writeResult(v, c.out, p.shapeHint(v), stdout)
}
