package nablasd

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/formats"
	exec "github.com/nablasd/nablasd/internal/legacyexec"
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
}

// GenerateGo returns the Go source of the kernel of the program's value
// or gradient (exec.GenerateGoKernel): a self-contained, gofmt-clean file,
// standard library only, whose function takes the inputs' storage arrays
// and scalars (sorted by name) and writes the result into a destination.
// Its doc comment says how each parameter comes from an input's
// formats.Tensor t ("A_pos = t.Pos[1]"). With Options.Opt "none" it is the
// logical program's, over Go maps.
func (q *Query) GenerateGo(opts GoOptions) (*exec.GoKernel, error) {
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
	k, err := exec.GenerateGoKernel(p.Program, p.Info, p.Bindings, fn,
		exec.GoOptions{ResultShape: q.denseResultShape(p), Package: opts.Package, Doc: q.paramDoc(p)})
	if err != nil {
		return nil, q.withFile(err)
	}
	return k, nil
}

// paramDoc says where each parameter of a generated kernel comes from.
func (q *Query) paramDoc(p *Plan) []string {
	if q.opts.Opt == "none" {
		return nil
	}
	var lines []string
	names := make([]string, 0, len(q.inputs))
	for n := range q.inputs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := q.inputs[n].tensor
		if t == nil {
			continue
		}
		fields, err := formats.Fields(t.Format, n, t.Order())
		if err != nil {
			continue
		}
		ins, _ := formats.Inputs(t.Format, n, t.Order())
		var parts []string
		for _, in := range ins {
			if _, used := p.Info.Free[in]; used {
				parts = append(parts, fmt.Sprintf("%s = %s", in, fields[in]))
			}
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("From %s, a formats.Tensor t in %s (%s): %s.", n, t.Format, shapeString(t.Shape), strings.Join(parts, ", ")))
		}
	}
	if len(lines) > 0 {
		lines = append([]string{"Its parameters come from the inputs' storage:"}, lines...)
	}
	return lines
}

func shapeString(shape []int) string {
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = fmt.Sprint(n)
	}
	return strings.Join(s, "×")
}
