package bench

import (
	"sort"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/gogen"
	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// GenerateGo generates the Go kernel of the case's program (gogen), as
// Compile compiles it: lowered over the inputs' formats with the case's
// result shape, whose extents the kernel takes from the inputs'
// parameters (the wrt input's extents, else an extent parameter of the
// shape's value), so that it runs over the same kernel's cases on any
// input.
func (cs *Case) GenerateGo(opts gogen.Options) (*gogen.Kernel, error) {
	types := make(map[string]sdql.Type, len(cs.Bindings))
	for n, v := range cs.Bindings {
		types[n] = sdql.TypeOfValue(v)
	}
	info, err := sdql.Check(cs.Prog, &sdql.CheckConfig{Inputs: types, Strict: true})
	if err != nil {
		return nil, err
	}
	ir, err := lower.Lower(cs.Prog, info, lower.Options{Formats: cs.formats, ResultShape: cs.Shape, CompletedOn: cs.completedOn, EqualModes: cs.equalModes})
	if err != nil {
		return nil, err
	}
	opts.Formats = cs.formats
	opts.ResultSizes = cs.resultSizes()
	return gogen.Generate(ir, opts)
}

// Formats returns the storage of the case's tensor inputs.
func (cs *Case) Formats() map[string]lower.Format { return cs.formats }

// resultSizes names the parameters giving the extents of cs.Shape.
func (cs *Case) resultSizes() []string {
	sizes := make([]string, len(cs.Shape))
	w := Wrt[cs.Kernel]
	if f, ok := cs.formats[w]; ok && allDense(f) {
		if ls, err := formats.Levels(f.Format, w, f.Order); err == nil {
			for _, l := range ls {
				if l.Mode < len(sizes) {
					sizes[l.Mode] = l.Extent
				}
			}
		}
	}
	names := make([]string, 0, len(cs.Bindings))
	for n := range cs.Bindings {
		names = append(names, n)
	}
	sort.Strings(names)
	for m, ext := range cs.Shape {
		if sizes[m] != "" {
			continue
		}
		for _, n := range names {
			if v, ok := cs.Bindings[n].(sdql.Int); ok && int(v) == ext && strings.HasSuffix(n, "_len") {
				sizes[m] = n
				break
			}
		}
	}
	return sizes
}

// allDense reports whether an input's format stores every position.
func allDense(f lower.Format) bool {
	l, err := f.Format.Layout(f.Order)
	return err == nil && l.AllDense()
}
