package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nablasd/nablasd/exec"
)

// cmdGen: nablasd gen (-f FILE | -e TEXT) [--wrt NAME] --in ... [-o FILE]
// [--func NAME] [--package NAME] writes the Go source of the optimized
// program's kernel (the paper's section 5.5 code generation, in Go), or
// with --opt none of the logical program over dictionary (map) inputs.
// Programs of the benchmark kernels' shapes become destination-passing
// loops, any other a function returning its result (exec.GoValue).
func cmdGen(args []string, stdout, stderr io.Writer) error {
	var c common
	var out, fn, pkg string
	fs := newFlagSet("gen", &c, true, false)
	fs.StringVar(&out, "o", "", "write the Go source to `FILE` (default standard output)")
	fs.StringVar(&fn, "func", "", "the kernel function's `NAME` (default derived from the program)")
	fs.StringVar(&pkg, "package", "kernels", "the generated file's package `NAME`")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	p, err := load(&c)
	if err != nil {
		return err
	}
	if c.wrt != "" {
		if _, ok := p.inputs[c.wrt]; !ok {
			return fmt.Errorf("--wrt %s: %s is not an input of the program (its inputs: %s)", c.wrt, c.wrt, inputList(p))
		}
	}
	pl, err := prepare(p, c.wrt, c.opt)
	if err != nil {
		return err
	}
	if fn == "" {
		fn = "Kernel"
		if c.wrt != "" {
			fn = "Grad_" + strings.ReplaceAll(c.wrt, "'", "_prime")
		}
	}
	var shape []int
	if c.wrt != "" {
		shape = denseGradShape(p, c.wrt)
	}
	k, err := exec.GenerateGoKernel(pl.prog, pl.info, pl.values, fn, exec.GoOptions{ResultShape: shape, Package: pkg})
	if err != nil {
		return p.withFile(err)
	}
	if out == "" {
		_, err = stdout.Write(k.Source)
		return err
	}
	if err := os.WriteFile(out, k.Source, 0o644); err != nil {
		return fmt.Errorf("-o %s: %v", out, err)
	}
	params, result := k.Params, ""
	switch {
	case k.Layout == exec.GoValue:
		result = " " + k.ResultType
	case k.DstType == "":
		result = " float64"
	default:
		params = append(params, "dst")
	}
	fmt.Fprintf(stderr, "wrote %s: func %s(%s)%s\n", out, k.Func, strings.Join(params, ", "), result)
	return nil
}
