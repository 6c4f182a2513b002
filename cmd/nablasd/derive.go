package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/batch"
)

// diffFlags say what grad, plan and gen differentiate, beside --wrt.
type diffFlags struct {
	mode  string
	value bool
	vjp   inputFlags
	jvp   inputFlags
	hvp   inputFlags
}

func (f *diffFlags) register(fs *flagSet) {
	fs.String(&f.mode, "mode", "auto", "differentiation `MODE`: auto (chosen per program), forward or reverse")
	fs.Bool(&f.value, "value", false, "also compute the program's value, in the same run")
	fs.Value(&f.vjp, "vjp", "vector–Jacobian product with respect to --wrt: the cotangent, of the result's kind, `NAME=VALUE` (NAME any new name)")
	fs.Value(&f.jvp, "jvp", "Jacobian–vector product: the tangent of the input NAME, `NAME=VALUE` (repeatable; the other inputs' are zero; no --wrt)")
	fs.Value(&f.hvp, "hvp", "Hessian–vector product of a real-valued program with respect to the input NAME in the direction `NAME=VALUE` (no --wrt)")
}

// describe lists the flags beyond --wrt that say what a derivative
// computes, for a grouped job's metadata (--resume requires the same).
func (f *diffFlags) describe(c *commonArgs) string {
	var parts []string
	if f.value {
		parts = append(parts, "--value")
	}
	if len(c.wrt.names) > 0 {
		parts = append(parts, "--wrt "+c.wrt.name)
	}
	for _, fl := range []struct {
		name  string
		flags inputFlags
	}{{"--vjp", f.vjp}, {"--jvp", f.jvp}, {"--hvp", f.hvp}} {
		for _, s := range fl.flags {
			parts = append(parts, fl.name+" "+s)
		}
	}
	return strings.Join(parts, " ")
}

// simple reports whether the flags ask for one gradient at most (or the
// value): what the commands did before these flags.
func (c *commonArgs) simple() bool {
	d := &c.diff
	return len(c.wrt.names) <= 1 && !d.value && len(d.vjp) == 0 && len(d.jvp) == 0 && len(d.hvp) == 0
}

// derivative turns the flags into the API's Derivative, loading the
// products' values as --in loads a value.
func (c *commonArgs) derivative(progress io.Writer) (*nablasd.Derivative, error) {
	d := &c.diff
	kinds := 0
	for _, n := range []int{len(d.vjp), len(d.jvp), len(d.hvp)} {
		if n > 0 {
			kinds++
		}
	}
	out := &nablasd.Derivative{Wrt: c.wrt.names, Value: d.value}
	switch {
	case kinds > 1:
		return nil, usagef("give one of --vjp, --jvp and --hvp")
	case len(d.jvp) > 0 || len(d.hvp) > 0:
		if len(c.wrt.names) > 0 {
			return nil, usagef("--jvp and --hvp name their inputs themselves: leave out --wrt")
		}
	case len(c.wrt.names) == 0:
		if len(d.vjp) > 0 {
			return nil, usagef("--vjp needs --wrt NAME[,NAME...]: the inputs whose cotangents to compute")
		}
		return nil, usagef("--value goes with a derivative: give --wrt, --vjp or --jvp")
	}
	load := func(flag string, fs inputFlags) (nablasd.Inputs, error) {
		in, err := parseValues(flag, fs, progress)
		if err != nil {
			return nil, err
		}
		return in, nil
	}
	switch {
	case len(d.vjp) > 0:
		if len(d.vjp) > 1 {
			return nil, usagef("--vjp is given once: the cotangent of the program's result")
		}
		if d.mode == "forward" {
			return nil, usagef("--vjp needs reverse mode (--mode reverse or auto)")
		}
		in, err := load("--vjp", d.vjp)
		if err != nil {
			return nil, err
		}
		for _, v := range in {
			out.Cotangent = v
		}
	case len(d.jvp) > 0:
		in, err := load("--jvp", d.jvp)
		if err != nil {
			return nil, err
		}
		out.Tangents = in
	case len(d.hvp) > 0:
		if len(d.hvp) > 1 {
			return nil, usagef("--hvp is given once: the input and the direction")
		}
		if d.value {
			return nil, usagef("--value goes with a gradient, a VJP or a JVP, not with --hvp")
		}
		in, err := load("--hvp", d.hvp)
		if err != nil {
			return nil, err
		}
		for n, v := range in {
			out.Wrt, out.Direction = []string{n}, v
		}
	}
	return out, nil
}

// parseValues loads NAME=VALUE flags other than --in (a number or tensor
// data, as --in loads them).
func parseValues(flag string, flags []string, progress io.Writer) (nablasd.Inputs, error) {
	in := nablasd.Inputs{}
	for _, s := range flags {
		name, val, ok := strings.Cut(s, "=")
		if !ok || name == "" || val == "" {
			return nil, usagef("%s %q: want NAME=VALUE", flag, s)
		}
		if _, dup := in[name]; dup {
			return nil, usagef("%s %s is given twice", flag, name)
		}
		if x, err := strconv.ParseFloat(val, 64); err == nil {
			in[name] = x
			continue
		}
		if v, ok, err := batch.ReadTableInput(name, val); ok {
			if err != nil {
				return nil, fmt.Errorf("%s %s: %v", flag, name, strings.TrimPrefix(err.Error(), "--in "+name+": "))
			}
			in[name] = v
			continue
		}
		t, err := nablasd.Load(val, &nablasd.LoadOptions{Progress: progress})
		if err != nil {
			return nil, fmt.Errorf("%s %s: %v", flag, name, err)
		}
		in[name] = t
	}
	return in, nil
}

// runDerivative computes what the flags ask for beyond one gradient
// (several --wrt, --value, --vjp, --jvp, --hvp) in one kernel, --repeat
// times, and writes its results: one, as grad writes a gradient, or
// several, one a line ("value: ...", "grad x: ...", "vjp x: ...", "jvp:
// ..."); with --value and one other result, --out writes that one and the
// value prints.
func (a *evalArgs) runDerivative(stdout, stderr io.Writer) error {
	if a.batch.groupBy != "" {
		d, err := a.derivative(stderr)
		if err != nil {
			return err
		}
		return a.runBatch("", d, stderr)
	}
	o, err := a.options()
	if err != nil {
		return err
	}
	o.JITAfter = oneShot
	q, err := a.prepare(o, stderr)
	if err != nil {
		return err
	}
	d, err := a.derivative(stderr)
	if err != nil {
		return err
	}
	k, err := q.CompileDerivative(d)
	if err != nil {
		return err
	}
	res := k.NewResult()
	rs := runStats{repeat: a.repeat, stats: a.stats}
	if err := rs.measure(k, func() error { return k.Run(res, nil) }); err != nil {
		return err
	}
	if a.threads > 1 {
		rs.threads = k.Threads()
	}
	rs.executor, rs.reason = k.Executor(), executorReason(k, a.exec)
	rs.size = res.Size()
	rs.report(stderr, k.CompileTime())
	outs, err := k.Split(res)
	if err != nil {
		return err
	}
	for _, r := range outs {
		if err := a.finite(r, stderr); err != nil {
			return err
		}
	}
	names := k.Outputs()
	if len(outs) == 1 {
		return a.write(outs[0], "", stdout, stderr)
	}
	if a.outFormat != "" {
		return usagef("--out-format prints one result; this run computes %d", len(outs))
	}
	if a.out != "" {
		if len(outs) != 2 || names[0] != "value" {
			return usagef("--out writes one result; with several --wrt the results print on standard output")
		}
		if err := a.printResult(stdout, outs[0], "value", stderr); err != nil {
			return err
		}
		return a.write(outs[1], names[1], stdout, stderr)
	}
	kind := "grad "
	switch {
	case len(a.diff.vjp) > 0:
		kind = "vjp "
	case len(a.diff.jvp) > 0:
		kind = ""
	}
	for i, r := range outs {
		label := names[i]
		if label != "value" {
			label = kind + label
		}
		if err := a.printResult(stdout, r, label, stderr); err != nil {
			return err
		}
	}
	return nil
}

// write writes one result as eval and grad do: a container, a table, a
// Matrix Market file or a literal.
func (a *evalArgs) write(res *nablasd.Result, wrt string, stdout, stderr io.Writer) error {
	switch {
	case a.outFormat != "":
		return printContainer(stdout, res, a.outFormat)
	case a.out != "" && isTableOut(a.out):
		return writeTableResult(res, a.out, tableMeta(&a.commonArgs, wrt))
	case a.out != "":
		return writeResult(res, a.out)
	}
	return a.printResult(stdout, res, "", stderr)
}
