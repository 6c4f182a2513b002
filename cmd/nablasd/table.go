package main

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// tableSpec is a table binding's value: FILE[:FORMAT][?OPTIONS], FILE a
// .parquet, .arrow or .arrows file.
type tableSpec struct {
	path   string
	format formats.Format // zero: the table's default
	opts   datasets.TableOptions
}

// parseTableSpec parses a binding's value as a table; ok is false when it
// does not name a table file.
func parseTableSpec(name, val string) (ts tableSpec, ok bool, err error) {
	left, opts := val, ""
	if i := strings.LastIndexByte(val, '?'); i >= 0 {
		left, opts = val[:i], val[i+1:]
	}
	src, fmtName := splitFormat(left)
	if _, isTable := datasets.TableKindOf(src); !isTable {
		if i := strings.LastIndexByte(left, ':'); i >= 0 {
			if _, isTable := datasets.TableKindOf(left[:i]); isTable {
				_, err := formats.ByName(left[i+1:])
				return ts, true, usagef("--in %s: %v", name, err)
			}
		}
		return ts, false, nil
	}
	ts.path = src
	if fmtName != "" {
		if ts.format, err = formats.ByName(fmtName); err != nil {
			return ts, true, usagef("--in %s: %v", name, err)
		}
	}
	if ts.opts, err = datasets.ParseTableOptions(opts); err != nil {
		return ts, true, usagef("--in %s: %v", name, err)
	}
	return ts, true, nil
}

// tableInput binds a table file read whole: a tensor, or a number for a
// scalar table. ok is false when val does not name a table file.
func tableInput(name, val string) (in *input, ok bool, err error) {
	ts, ok, err := parseTableSpec(name, val)
	if !ok || err != nil {
		return nil, ok, err
	}
	tt, err := datasets.ReadTable(ts.path, ts.opts, ts.format)
	if err != nil {
		return nil, true, fmt.Errorf("--in %s: %v", name, err)
	}
	return tableTensorInput(name, ts.path, tt), true, nil
}

// tableTensorInput binds a tensor or scalar read from a table.
func tableTensorInput(name, path string, tt *datasets.TableTensor) *input {
	in := &input{name: name, source: path}
	if tt.Tensor == nil {
		in.number, in.isNum = tt.Scalar, true
	} else {
		in.tensor = tt.Tensor
	}
	return in
}

// isTableOut reports whether --out names a table file.
func isTableOut(out string) bool {
	_, ok := datasets.TableKindOf(out)
	return ok
}

// writeTableResult writes a result to a table file by the convention: a
// scalar as one row with val, a tensor as its entries with the shape of
// the result (resultShape, at least one past the largest key), in the
// default format of its order.
func writeTableResult(v sdql.Value, out string, shape []int, meta map[string]string, order int) error {
	tt, err := resultTable(v, shape, order)
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	if err := datasets.WriteTable(out, tt, meta); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	return nil
}

// resultTable turns a result value into a table tensor of the given order
// (-1: the value's; an empty dictionary has no order of its own).
func resultTable(v sdql.Value, shape []int, order int) (*datasets.TableTensor, error) {
	if x, ok := scalar(v); ok {
		return &datasets.TableTensor{Scalar: x}, nil
	}
	if order < 0 {
		order = sdql.Order(sdql.TypeOfValue(v))
	}
	if d, ok := v.(*sdql.Dict); ok && d.Len() == 0 && order > 0 {
		dims := make([]int, order)
		copy(dims, shape)
		t, err := formats.FromSortedCoords(dims, make([][]int, order), nil, datasets.DefaultFormat(order, nil))
		if err != nil {
			return nil, err
		}
		return &datasets.TableTensor{Tensor: t}, nil
	}
	t, err := tensorOf(v, datasets.DefaultFormat(order, nil), shape)
	if err != nil {
		return nil, err
	}
	return &datasets.TableTensor{Tensor: t}, nil
}

// resultOrder is the order of the program's result, or of its gradient
// with respect to wrt (the result's order plus the input's).
func resultOrder(p *program, wrt string) int {
	order := max(sdql.Order(p.info.Result), 0)
	if wrt != "" {
		if t := p.inputs[wrt].tensor; t != nil {
			order += t.Order()
		}
	}
	return order
}

// tableMeta is the metadata written with a result table: the program's
// text, and for a gradient the input it is taken with respect to.
func tableMeta(c *common, wrt string) map[string]string {
	text := c.text
	if c.file != "" {
		_, t, err := c.source()
		if err == nil {
			text = t
		}
	}
	meta := map[string]string{datasets.MetaProgram: text}
	if wrt != "" {
		meta["nablasd.wrt"] = wrt
	}
	return meta
}
