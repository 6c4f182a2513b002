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
	var df diffFlags
	var out, fn, pkg string
	fs := newFlagSet("gen", &c, true, false)
	df.register(fs)
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
	d, err := p.differentiate(&c, &df)
	if err != nil {
		return err
	}
	pl, err := prepare(p, d, c.opt)
	if err != nil {
		return err
	}
	if fn == "" {
		fn = "Kernel"
		if d != nil {
			fn = kernelName(d)
		}
	}
	var shape []int
	if d != nil && d.kind == "grad" && !d.outputs.Bundled() {
		shape = denseGradShape(p, d.wrt[0])
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

// kernelName names a derivative's generated function: Grad_x, Grad_x_b,
// Vjp_x, Jvp_x, Hvp_x.
func kernelName(d *derivation) string {
	name := strings.ToUpper(d.kind[:1]) + d.kind[1:]
	for _, w := range d.wrt {
		name += "_" + strings.ReplaceAll(w, "'", "_prime")
	}
	return name
}
