package batch

import (
	"fmt"
	"io"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// Grouped is a grouped job's inputs, opened and checked: the table inputs
// split by the key column, the others bound, and the program prepared
// over them with the groups' stand-ins.
type Grouped struct {
	// Groups reads the grouped tables; the caller must Close it.
	Groups *datasets.Groups
	// Tables are the table bindings, grouped or shared.
	Tables []datasets.GroupInput
	// Inputs are the shared inputs, and for each grouped input a stand-in
	// (StandIn) of its groups' shape and format.
	Inputs nablasd.Inputs
	// Query is the program prepared over Inputs.
	Query *nablasd.Query
	// Order is the order of every group's result (0: scalars); with a
	// Derivative, of its first.
	Order int
	// Outputs are the results of every group, in the order Step.RunAll
	// gives them: one (the value or the gradient) but with a Derivative.
	Outputs []Output
}

// Output is one result of a grouped job's groups.
type Output struct {
	// Name is "" for a job of one result, else "value" or the input a
	// result is taken with respect to (nablasd.Kernel.Outputs).
	Name string
	// Label says what it is: "value", "grad x", "vjp x", "jvp", "hvp x".
	Label string
	// Order is the result's order (0: scalars).
	Order int
}

// GroupedOptions are OpenGroupedWith's options beyond OpenGrouped's.
type GroupedOptions struct {
	// Derivative, when set, is what each group computes instead of the
	// value or wrt's gradient (Step.Derivative).
	Derivative *nablasd.Derivative
	// Groups says where and in how much memory a table not sorted by the
	// key is sorted.
	Groups *datasets.GroupOptions
}

// OpenGrouped opens the inputs of a job grouped by the column key: the
// bindings (--in NAME=VALUE) that name tables are read split by key when
// they have the column and whole (shared) when not; the others are
// loaded (ParseInputs). The program text (from the file name, "" for
// inline text) is prepared over them, with wrt the gradient's input (""
// for the value); its warnings go to warn.
func OpenGrouped(key, name, text string, bindings []string, o *nablasd.Options, wrt string, warn io.Writer) (*Grouped, error) {
	return OpenGroupedWith(key, name, text, bindings, o, wrt, nil, warn)
}

// OpenGroupedWith is OpenGrouped with options: a Derivative the groups
// compute, and how unsorted tables are sorted.
func OpenGroupedWith(key, name, text string, bindings []string, o *nablasd.Options, wrt string, gopts *GroupedOptions, warn io.Writer) (_ *Grouped, err error) {
	if gopts == nil {
		gopts = &GroupedOptions{}
	}
	if _, err := sdql.Parse(name, text); err != nil {
		return nil, err
	}
	o.File = name
	var tables []datasets.GroupInput
	var rest []string
	bound := map[string]bool{}
	for _, s := range bindings {
		n, val, _ := strings.Cut(s, "=")
		ts, ok, err := ParseTableSpec(n, val)
		if err != nil {
			return nil, err
		}
		if !ok {
			rest = append(rest, s)
			continue
		}
		if bound[n] {
			return nil, Usagef("--in %s is bound twice", n)
		}
		bound[n] = true
		tables = append(tables, datasets.GroupInput{Name: n, Path: ts.Path, Options: ts.Opts, Format: ts.Format})
	}
	inputs, err := ParseInputs(rest, warn)
	if err != nil {
		return nil, err
	}
	for n := range bound {
		if _, dup := inputs[n]; dup {
			return nil, Usagef("--in %s is bound twice", n)
		}
	}
	groups, err := datasets.OpenGroupsWith(key, tables, gopts.Groups)
	if err != nil {
		return nil, fmt.Errorf("--group-by %s: %v", key, err)
	}
	defer func() {
		if err != nil {
			groups.Close()
		}
	}()
	for n, tt := range groups.Shared() {
		inputs[n] = TableValue(tt)
	}
	for _, n := range groups.Grouped() {
		// an empty tensor of the groups' shape and format stands for them
		// while the program is checked
		shape, f := groups.Shape(n)
		if inputs[n], err = StandIn(n, shape, f); err != nil {
			return nil, err
		}
	}
	q, err := Prepare(text, inputs, o, wrt, warn)
	if err != nil {
		return nil, err
	}
	order := max(sdql.Order(q.Type()), 0)
	if t, ok := inputs[wrt].(*formats.Tensor); ok && wrt != "" {
		order += t.Order()
	}
	label := "value"
	if wrt != "" {
		label = "grad " + wrt
	}
	outs := []Output{{Label: label, Order: order}}
	if d := gopts.Derivative; d != nil {
		if outs, err = derivativeOutputs(q, d); err != nil {
			return nil, err
		}
		order = outs[0].Order
	}
	return &Grouped{Groups: groups, Tables: tables, Inputs: inputs, Query: q, Order: order, Outputs: outs}, nil
}

// derivativeOutputs are the results a Derivative gives, from its plan
// over the groups' stand-ins.
func derivativeOutputs(q *nablasd.Query, d *nablasd.Derivative) ([]Output, error) {
	p, err := q.PlanDerivative(d)
	if err != nil {
		return nil, err
	}
	o := p.Outputs
	if o == nil || len(o.Names) == 0 {
		return nil, fmt.Errorf("internal error: batch: a derivative's plan without outputs")
	}
	kind := "grad"
	switch {
	case d.Cotangent != nil:
		kind = "vjp"
	case d.Tangents != nil:
		kind = "jvp"
	case d.Direction != nil:
		kind = "hvp"
	}
	var outs []Output
	for i, n := range o.Names {
		label := kind + " " + n
		switch {
		case n == "value":
			label = "value"
		case kind == "jvp":
			label = "jvp"
		}
		out := Output{Name: n, Label: label, Order: max(sdql.Order(o.Types[i]), 0)}
		if !o.Bundled() {
			out.Name = ""
		}
		outs = append(outs, out)
	}
	return outs, nil
}
