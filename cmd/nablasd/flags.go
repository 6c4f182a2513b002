package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// inputFlags collects repeated --in NAME=VALUE flags.
type inputFlags []string

func (f *inputFlags) String() string     { return strings.Join(*f, " ") }
func (f *inputFlags) Set(s string) error { *f = append(*f, s); return nil }

// common holds the flags every command shares.
type common struct {
	file, text string
	inputs     inputFlags
	out        string
	wrt        string
	opt        string
	batch      batchFlags
}

func newFlagSet(name string, c *common, withWrt, withOut bool) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.StringVar(&c.file, "f", "", "read the program from `FILE`")
	fs.StringVar(&c.text, "e", "", "the program `TEXT`")
	fs.Var(&c.inputs, "in", "bind an input: `NAME=VALUE` (repeatable)")
	if withOut {
		fs.StringVar(&c.out, "out", "", "write the result to `FILE` (.mtx: Matrix Market; .parquet, .arrow, .arrows: a table)")
		c.batch.register(fs)
	}
	if withWrt {
		fs.StringVar(&c.wrt, "wrt", "", "differentiate with respect to the input `NAME`")
	}
	fs.StringVar(&c.opt, "opt", "full", "optimizations: full, rules (no equality saturation) or none (the logical program)")
	return fs
}

func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return usagef("%s: %v", fs.Name(), err)
	}
	if fs.NArg() > 0 {
		return usagef("%s: unexpected argument %q", fs.Name(), fs.Arg(0))
	}
	return nil
}

// source returns the program's name (for error messages) and text.
func (c *common) source() (string, string, error) {
	switch {
	case c.file != "" && c.text != "":
		return "", "", usagef("give the program with -f FILE or -e TEXT, not both")
	case c.file != "":
		b, err := os.ReadFile(c.file)
		if err != nil {
			return "", "", fmt.Errorf("cannot read the program: %v", err)
		}
		return c.file, string(b), nil
	case c.text != "":
		return "", c.text, nil
	}
	return "", "", usagef("no program: give -f FILE or -e TEXT")
}
