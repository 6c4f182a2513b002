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
	// Order is the order of every group's result (0: scalars).
	Order int
}

// OpenGrouped opens the inputs of a job grouped by the column key: the
// bindings (--in NAME=VALUE) that name tables are read split by key when
// they have the column and whole (shared) when not; the others are
// loaded (ParseInputs). The program text (from the file name, "" for
// inline text) is prepared over them, with wrt the gradient's input (""
// for the value); its warnings go to warn.
func OpenGrouped(key, name, text string, bindings []string, o *nablasd.Options, wrt string, warn io.Writer) (_ *Grouped, err error) {
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
	groups, err := datasets.OpenGroups(key, tables)
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
	return &Grouped{Groups: groups, Tables: tables, Inputs: inputs, Query: q, Order: order}, nil
}
