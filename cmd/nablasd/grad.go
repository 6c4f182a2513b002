package main

import (
	"fmt"
	"io"
	"time"

	"github.com/nablasd/nablasd/ad"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// cmdGrad: nablasd grad (-f FILE | -e TEXT) (--wrt NAME[,NAME...] | --jvp
// NAME=VALUE... | --hvp NAME=VALUE) [--mode MODE] [--value] [--vjp
// NAME=VALUE] [--in NAME=VALUE]... [--out FILE] [--repeat N] [--stats]
func cmdGrad(args []string, stdout, stderr io.Writer) error {
	var c common
	var rs runStats
	var x execFlags
	var df diffFlags
	fs := newFlagSet("grad", &c, true, true)
	rs.register(fs)
	x.register(fs)
	df.register(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if c.wrt == "" && len(df.jvp) == 0 && len(df.hvp) == 0 {
		return usagef("grad needs --wrt NAME[,NAME...] (or --jvp or --hvp): the inputs to differentiate with respect to")
	}
	p, err := load(&c)
	if err != nil {
		return err
	}
	compileStart := time.Now()
	d, err := p.differentiate(&c, &df)
	if err != nil {
		return err
	}
	pl, err := prepare(p, d, c.opt)
	if err != nil {
		return err
	}
	optimize := time.Since(compileStart)
	var dense []int
	if d.kind == "grad" && !d.outputs.Bundled() {
		dense = denseGradShape(p, d.wrt[0])
	}
	v, res, kernel, err := x.execute(p, pl, &rs, dense)
	if err != nil {
		return err
	}
	outs, err := d.outputs.Split(v)
	if err != nil {
		return fmt.Errorf("internal error: %v", err)
	}
	for i, name := range d.outputs.Names {
		t := p.inputs[name]
		if name == "value" || d.kind != "grad" || t == nil || t.tensor == nil || p.info.Result != sdql.RealType {
			continue
		}
		if dense == nil || x.exec != "compiled" {
			// the gradient of a scalar program is given on exactly the wrt
			// input's stored positions, whichever executor computed it (a
			// compiled kernel with a dense destination already covers them)
			outs[i], res = ad.OnStoredPositions(outs[i], formats.ToValue(t.tensor)), nil
		}
	}
	rs.report(stderr, optimize+kernel)
	if !d.outputs.Bundled() {
		return x.output(outs[0], res, c.out, d.shape(p, 0, outs[0]), stdout)
	}
	return d.print(p, outs, &x, c.out, stdout)
}

// shape is the shape of result i written with --out (resultShape).
func (d *derivation) shape(p *program, i int, v sdql.Value) []int {
	switch name := d.outputs.Names[i]; {
	case name == "value" || d.kind == "jvp":
		return p.resultShape("", v)
	case d.kind == "grad":
		return p.resultShape(name, v)
	}
	// a VJP or an HVP has the wrt input's shape
	t := p.inputs[d.outputs.Names[i]].tensor
	if t == nil || len(t.Shape) != sdql.Order(sdql.TypeOfValue(v)) {
		return nil
	}
	return t.Shape
}

// print writes several results: one per line, "NAME: LITERAL" (value:,
// grad x:, vjp x:, jvp:). With --out, the one result that is not the value
// is written to the file and the value printed.
func (d *derivation) print(p *program, outs []sdql.Value, x *execFlags, out string, stdout io.Writer) error {
	if x.outFormat != "" {
		return usagef("--out-format prints one result; this run computes %d", len(outs))
	}
	if out != "" {
		if len(outs) != 2 || d.outputs.Names[0] != "value" {
			return usagef("--out writes one result; with several --wrt the results print on standard output")
		}
		if _, err := fmt.Fprintf(stdout, "value: %s\n", sdql.FormatValue(outs[0])); err != nil {
			return err
		}
		return writeResult(outs[1], out, d.shape(p, 1, outs[1]), stdout)
	}
	for i, v := range outs {
		if _, err := fmt.Fprintf(stdout, "%s: %s\n", d.label(i), sdql.FormatValue(v)); err != nil {
			return err
		}
	}
	return nil
}

// denseGradShape is the result shape the kernel may make dense: the wrt
// input's shape when the program's result is a scalar and the input is
// bound in a dense format (its gradient then covers every position).
func denseGradShape(p *program, wrt string) []int {
	t := p.inputs[wrt].tensor
	if t == nil || p.info.Result != sdql.RealType {
		return nil
	}
	if t.Format != formats.Dense && t.Format != formats.DenseCol {
		return nil
	}
	return t.Shape
}
