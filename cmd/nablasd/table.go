package main

import (
	"fmt"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
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

// tableInput reads a table file whole for a binding: a tensor, or a
// number for a scalar table. ok is false when val does not name a table
// file.
func tableInput(name, val string) (v any, ok bool, err error) {
	ts, ok, err := parseTableSpec(name, val)
	if !ok || err != nil {
		return nil, ok, err
	}
	tt, err := datasets.ReadTable(ts.path, ts.opts, ts.format)
	if err != nil {
		return nil, true, fmt.Errorf("--in %s: %v", name, err)
	}
	return tableValue(tt), true, nil
}

// tableValue is a table's tensor, or its number for a scalar table, as an
// input of the API.
func tableValue(tt *datasets.TableTensor) any {
	if tt.Tensor == nil {
		return tt.Scalar
	}
	return tt.Tensor
}

// isTableOut reports whether --out names a table file.
func isTableOut(out string) bool {
	_, ok := datasets.TableKindOf(out)
	return ok
}

// writeTableResult writes a result to a table file by the convention: a
// scalar as one row with val, a tensor as its entries with the result's
// extents (nablasd.Result.Extents), in the default format of its order.
func writeTableResult(res *nablasd.Result, out string, meta map[string]string) error {
	tt, err := resultTable(res)
	if err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	if err := datasets.WriteTable(out, tt, meta); err != nil {
		return fmt.Errorf("--out %s: %v", out, err)
	}
	return nil
}

// resultTable turns a result into a table tensor.
func resultTable(res *nablasd.Result) (*datasets.TableTensor, error) {
	if res.Order() == 0 {
		return &datasets.TableTensor{Scalar: res.Scalar()}, nil
	}
	t, err := res.Tensor(datasets.DefaultFormat(res.Order(), nil))
	if err != nil {
		return nil, err
	}
	return &datasets.TableTensor{Tensor: t}, nil
}

// tableMeta is the metadata written with a result table: the program's
// text, and for a gradient the input it is taken with respect to.
func tableMeta(c *commonArgs, wrt string) map[string]string {
	_, text, _ := c.source()
	meta := map[string]string{datasets.MetaProgram: text}
	if wrt != "" {
		meta["nablasd.wrt"] = wrt
	}
	return meta
}

// splitFormat splits VALUE[:FORMAT] when the part after the last colon is
// a format name.
func splitFormat(v string) (string, string) {
	i := strings.LastIndexByte(v, ':')
	if i < 0 {
		return v, ""
	}
	if _, err := formats.ByName(v[i+1:]); err == nil {
		return v[:i], v[i+1:]
	}
	return v, ""
}
