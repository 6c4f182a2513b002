package gorun

import (
	"fmt"
	"testing"

	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// Generate lowers a program (its free variables typed by types) with
// lopts and generates its Go kernel with gopts: the path of the pipeline
// after fuse, for tests.
func Generate(prog sdql.Expr, types map[string]sdql.Type, lopts lower.Options, gopts gogen.Options) (*gogen.Kernel, *lower.Program, error) {
	info, err := sdql.Check(prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		return nil, nil, err
	}
	p, err := lower.Lower(prog, info, lopts)
	if err != nil {
		return nil, nil, err
	}
	if gopts.Formats == nil {
		gopts.Formats = lopts.Formats
	}
	k, err := gogen.Generate(p, gopts)
	return k, p, err
}

// TypesOf types bindings by their values.
func TypesOf(bindings map[string]sdql.Value) map[string]sdql.Type {
	types := make(map[string]sdql.Type, len(bindings))
	for n, v := range bindings {
		types[n] = sdql.TypeOfValue(v)
	}
	return types
}

// Diff compares a case's result with the interpreter's value want: ""
// when they agree. Its String value must equal want as a dictionary
// (sdql.DiffDicts: the same keys, empty dictionaries included), or as a
// function with asFunctions (sdql.Equal); its Entries value must equal
// want without its empty dictionaries.
func Diff(res Result, want sdql.Value, asFunctions bool) string {
	switch {
	case res.Err != nil:
		return res.Err.Error()
	case res.KernelErr != nil:
		return fmt.Sprintf("the kernel failed: %v; interpreted %s", res.KernelErr, sdql.FormatValue(want))
	}
	if asFunctions {
		if !sdql.Equal(res.Value, want) {
			return fmt.Sprintf("generated Go %s, interpreted %s (as functions)", sdql.FormatValue(res.Value), sdql.FormatValue(want))
		}
	} else if d := sdql.DiffDicts(res.Value, want, 1e-9); d != "" {
		return fmt.Sprintf("generated Go %s, interpreted %s: %s", sdql.FormatValue(res.Value), sdql.FormatValue(want), d)
	}
	if res.Entries == nil {
		return ""
	}
	pruned := Prune(want)
	if asFunctions {
		if !sdql.Equal(res.Entries, pruned) {
			return fmt.Sprintf("Entries gives %s, interpreted %s (as functions)", sdql.FormatValue(res.Entries), sdql.FormatValue(pruned))
		}
	} else if d := sdql.DiffDicts(res.Entries, pruned, 1e-9); d != "" {
		return fmt.Sprintf("Entries gives %s, interpreted %s: %s", sdql.FormatValue(res.Entries), sdql.FormatValue(pruned), d)
	}
	return ""
}

// Prune returns v without its empty dictionaries (what a result's
// Entries, which gives values, cannot show).
func Prune(v sdql.Value) sdql.Value {
	d, ok := v.(*sdql.Dict)
	if !ok {
		return v
	}
	out := sdql.NewDict()
	for _, k := range d.Keys() {
		x, _ := d.Get(k)
		x = Prune(x)
		if sub, ok := x.(*sdql.Dict); ok && sub.Len() == 0 {
			continue
		}
		out.Set(k, x)
	}
	return out
}

// Check runs the cases (Run) and reports through t every case whose
// kernel failed or whose result differs from wants[i] (Diff), with the
// program it came from (program(i), "" for none) and the kernel's source;
// it stops the test when the program cannot be built at all.
func Check(t testing.TB, cases []Case, wants []sdql.Value, program func(i int) string) {
	t.Helper()
	results, err := Run(cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, res := range results {
		if d := Diff(res, wants[i], cases[i].AsFunctions); d != "" {
			src := ""
			if program != nil {
				src = program(i)
			}
			t.Errorf("%s: %s\n%s\n%s", cases[i].Name, d, src, cases[i].Kernel.Source)
		}
	}
}
