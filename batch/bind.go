package batch

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/sdql"
)

// ParseInputs parses --in NAME=VALUE flags and loads the values: a
// number, a table file (ReadTableInput), or tensor data (nablasd.Load,
// which reports its progress to progress).
func ParseInputs(flags []string, progress io.Writer) (nablasd.Inputs, error) {
	in := nablasd.Inputs{}
	for _, s := range flags {
		name, val, ok := strings.Cut(s, "=")
		if !ok || name == "" || val == "" {
			return nil, Usagef("--in %q: want NAME=VALUE", s)
		}
		if !ValidName(name) {
			return nil, Usagef("--in %q: %q is not a variable name", s, name)
		}
		if _, dup := in[name]; dup {
			return nil, Usagef("--in %s is bound twice", name)
		}
		if x, err := strconv.ParseFloat(val, 64); err == nil {
			in[name] = x
			continue
		}
		if v, ok, err := ReadTableInput(name, val); ok {
			if err != nil {
				return nil, err
			}
			in[name] = v
			continue
		}
		t, err := nablasd.Load(val, &nablasd.LoadOptions{Progress: progress})
		if err != nil {
			return nil, fmt.Errorf("--in %s: %v", name, err)
		}
		in[name] = t
	}
	return in, nil
}

// ValidName reports whether s is a variable name of the language.
func ValidName(s string) bool {
	e, err := sdql.Parse("", s)
	if err != nil {
		return false
	}
	id, ok := e.(*sdql.Ident)
	return ok && id.Name == s && s != "_"
}

// TableSpec is a table binding's value (nablasd.TableSpec).
type TableSpec = nablasd.TableSpec

// ParseTableSpec parses the value of the binding of name as a table; ok
// is false when it does not name a table file.
func ParseTableSpec(name, val string) (ts TableSpec, ok bool, err error) {
	ts, ok, err = nablasd.ParseTableSpec(val)
	if err != nil {
		return ts, ok, Usagef("--in %s: %v", name, err)
	}
	return ts, ok, nil
}

// ReadTableInput reads a table file whole for a binding: a tensor, or a
// number for a scalar table. ok is false when val does not name a table
// file.
func ReadTableInput(name, val string) (v any, ok bool, err error) {
	ts, ok, err := ParseTableSpec(name, val)
	if !ok || err != nil {
		return nil, ok, err
	}
	tt, err := datasets.ReadTable(ts.Path, ts.Opts, ts.Format)
	if err != nil {
		return nil, true, fmt.Errorf("--in %s: %v", name, err)
	}
	return TableValue(tt), true, nil
}

// TableValue is a table's tensor, or its number for a scalar table, as an
// input of the API.
func TableValue(tt *datasets.TableTensor) any {
	if tt.Tensor == nil {
		return tt.Scalar
	}
	return tt.Tensor
}
