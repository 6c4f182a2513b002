package main

import (
	"io"
	"time"
)

// cmdEval: nablasd eval (-f FILE | -e TEXT) [--in NAME=VALUE]... [--out FILE]
func cmdEval(args []string, stdout, stderr io.Writer) error {
	var c common
	var rs runStats
	var x execFlags
	fs := newFlagSet("eval", &c, false, true)
	rs.register(fs)
	x.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := load(&c)
	if err != nil {
		return err
	}
	compileStart := time.Now()
	pl, err := prepare(p, nil, c.opt)
	if err != nil {
		return err
	}
	optimize := time.Since(compileStart)
	v, res, kernel, err := x.execute(p, pl, &rs, nil)
	if err != nil {
		return err
	}
	rs.report(stderr, optimize+kernel)
	return x.output(v, res, c.out, p.resultShape("", v), stdout)
}
