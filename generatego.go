package nablasd

import (
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// GoOptions configure GenerateGo.
type GoOptions struct {
	// Wrt names the input of the gradient to generate ("" for the value).
	Wrt string
	// Derivative, when set, is what to generate instead (several
	// gradients, the value with them, a product; see Derivative).
	Derivative *Derivative
	// Func is the function's name (default Kernel, or Grad_x for the
	// gradient with respect to x).
	Func string
	// Package is the generated file's package (default kernels).
	Package string
	// Workspace makes the kernel keep its intermediate tensors in a
	// workspace the caller passes and reuses (gogen.Options.Workspace).
	Workspace bool
	// Parallel makes the kernel take a last parameter threads int and run
	// the loops lowering marks parallel on up to threads goroutines
	// (gogen.Options.Parallel; the JIT's kernels do, with Options.Threads).
	Parallel bool
	// MinParallel is the least work a parallel loop is split for
	// (gogen.Options.MinParallel; 0: the default, 8192): tests lower it.
	MinParallel int
}

// GenerateGo returns the Go source of the kernel of the program's value
// or gradient: the program that runs (Plan) lowered to the loop IR as
// Compile lowers it, printed as a self-contained, gofmt-clean Go file
// (standard library only) by gogen.Generate. Its function takes the
// program's inputs, sorted by name: scalars, the storage arrays of the
// tensor inputs (its doc comment says how each comes from an input's
// formats.Tensor t, "A_pos = t.Pos[1]"), and with Options.Opt "none"
// dictionaries as nested Go maps; it writes a dictionary result into a
// destination it refills on every call (gogen.Kernel says how to make and
// read it) and returns a scalar one. A gradient with respect to a dense
// input is dense in the input's extents, taken from the input's
// parameters, so the kernel serves inputs of any shape.
func (q *Query) GenerateGo(opts GoOptions) (*gogen.Kernel, error) {
	var wrt []string
	if opts.Wrt != "" {
		wrt = []string{opts.Wrt}
	}
	var p *Plan
	var err error
	if opts.Derivative != nil {
		p, err = q.PlanDerivative(opts.Derivative)
	} else {
		p, err = q.Plan(wrt...)
	}
	if err != nil {
		return nil, err
	}
	if q.planOnly {
		if _, err := q.Compile(wrt...); err != nil {
			return nil, err
		}
	}
	fn := opts.Func
	if fn == "" {
		fn = "Kernel"
		switch {
		case opts.Derivative != nil:
			fn = strings.ToUpper(p.req.kind[:1]) + p.req.kind[1:]
			for _, w := range p.req.wrt {
				fn += "_" + strings.ReplaceAll(w, "'", "_prime")
			}
		case opts.Wrt != "":
			fn = "Grad_" + strings.ReplaceAll(opts.Wrt, "'", "_prime")
		}
	}
	return q.generateFor(p, gogen.Options{Func: fn, Package: opts.Package, Workspace: opts.Workspace,
		Parallel: opts.Parallel, MinParallel: opts.MinParallel}, 0)
}

// generateFor generates the Go of plan p's kernel with the options given
// (Func, Package, Workspace, Parallel, MinParallel): GenerateGo's work once
// the plan is made (the JIT calls it on the plan it compiles). The doc
// comment prints each program in at most docLines lines (0: whole).
func (q *Query) generateFor(p *Plan, opts gogen.Options, docLines int) (*gogen.Kernel, error) {
	k, _, err := q.generateIR(p, opts, docLines)
	return k, err
}

// generateIR is generateFor that also returns the loop IR it printed.
func (q *Query) generateIR(p *Plan, opts gogen.Options, docLines int) (*gogen.Kernel, *lower.Program, error) {
	fs := q.formats()
	shape := q.denseResultShape(p)
	ir, err := q.loopsFor(p, shape)
	if err != nil {
		return nil, nil, err
	}
	opts.Doc, opts.Formats, opts.ResultSizes = q.goDoc(p, docLines), fs, q.resultSizes(p, shape)
	k, err := gogen.Generate(ir, opts)
	if err != nil {
		return nil, nil, q.withFile(err)
	}
	return k, ir, nil
}

// goDoc opens a generated kernel's doc comment: what it computes, each
// program printed in at most maxLines lines (0: whole).
func (q *Query) goDoc(p *Plan, maxLines int) []string {
	what := "It computes"
	if p.Wrt != "" {
		what = "It computes the gradient with respect to " + p.Wrt + " of"
	}
	lines := []string{what, ""}
	lines = append(lines, docProgram(q.prog, maxLines)...)
	if q.opts.Opt != "none" {
		lines = append(lines, "", "as the program, optimized over its inputs' storage,", "")
		lines = append(lines, docProgram(p.Program, maxLines)...)
	}
	if w := q.completedOn(p); w != "" {
		lines = append(lines, "", "The gradient is given on the stored positions of "+w+": a position",
			"the program does not reach holds zero where the result has it and is",
			"left out otherwise (ad.OnStoredPositions adds those, with zeros).")
	}
	if eq := q.shapeEqualities(); len(eq) > 0 {
		lines = append(lines, "", "It takes the inputs' shapes to agree as the shape check compared them:")
		for _, e := range eq {
			lines = append(lines, "  - "+e+";")
		}
		lines[len(lines)-1] = strings.TrimSuffix(lines[len(lines)-1], ";") + "."
		lines = append(lines, "An entry keyed past a dense input's end then fails with an index",
			"out of range, where the program would read zero.")
	}
	return lines
}

// docProgram prints e for a doc comment, indented by a tab, in at most
// maxLines lines (0: whole) and a line that says so when it is cut.
func docProgram(e sdql.Expr, maxLines int) []string {
	var ls []string
	more := false
	if maxLines > 0 {
		ls, more = sdql.PrintLines(e, maxLines)
	} else {
		ls = strings.Split(sdql.Print(e), "\n")
	}
	out := make([]string, 0, len(ls)+1)
	for _, l := range ls {
		out = append(out, "\t"+l)
	}
	if more {
		out = append(out, "\t// … (cut: `nablasd plan` prints the whole program)")
	}
	return out
}

// resultSizes names the parameters that give the extents of a dense
// result shape: the wrt input's extents (formats.Levels), so that the
// generated kernel is not tied to the shape it was generated for.
func (q *Query) resultSizes(p *Plan, shape []int) []string {
	in := q.inputs[p.Wrt]
	if len(shape) == 0 || in == nil || in.tensor == nil {
		return nil
	}
	ls, err := formats.Levels(in.tensor.Format, p.Wrt, in.tensor.Order())
	if err != nil {
		return nil
	}
	sizes := make([]string, len(shape))
	for _, l := range ls {
		if l.Mode < len(sizes) && l.CoordIter {
			sizes[l.Mode] = l.Extent
		}
	}
	return sizes
}
