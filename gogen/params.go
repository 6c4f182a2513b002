package gogen

import (
	"fmt"
	"sort"
	"strings"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/lower"
)

// paramField is the field of a formats.Tensor a parameter is bound to.
type paramField struct {
	field, input, format string
}

// lenFact records that by its format's invariants an array has the
// length of an extent parameter or of another array.
type lenFact struct {
	a      *lower.Array
	extent *lower.Var   // len(a) == extent, or
	same   *lower.Array // len(a) == len(same)
}

// describeParams finds, for every parameter that is one of a format's
// arrays or extents, its field (formats.Fields), and the lengths the
// formats promise: a dense vector's values have its extent's length, a
// format's values its last level's coordinates'.
func (g *gen) describeParams() {
	g.fields = map[string]paramField{}
	fs := g.opts.Formats
	if fs == nil {
		fs = g.inferFormats()
	}
	g.formats = fs
	// the arrays the program loads from, by name
	loaded := map[*lower.Array]bool{}
	lower.WalkStmtExprs(g.p.Body, func(e lower.Expr) {
		if ld, ok := e.(*lower.Load); ok {
			loaded[ld.A] = true
		}
	})
	arrays := map[string]*lower.Array{}
	for _, a := range g.p.Arrays {
		if loaded[a] {
			arrays[a.Name] = a
		}
	}
	vars := map[string]*lower.Var{}
	for _, pa := range g.p.Params {
		if pa.Var != nil {
			vars[pa.Name] = pa.Var
		}
	}
	names := make([]string, 0, len(fs))
	for n := range fs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := fs[n]
		fields, err := formats.Fields(f.Format, n, f.Order)
		if err != nil {
			continue
		}
		for in, field := range fields {
			g.fields[in] = paramField{field: field, input: n, format: f.Format.String()}
		}
		ls, err := formats.Levels(f.Format, n, f.Order)
		if err != nil || len(ls) == 0 {
			continue
		}
		last := ls[len(ls)-1]
		val := arrays[last.Val]
		if val == nil {
			continue
		}
		switch {
		case len(ls) == 1 && last.CoordIter && vars[last.Extent] != nil:
			g.lens = append(g.lens, lenFact{a: val, extent: vars[last.Extent]})
		case !last.CoordIter && arrays[last.Idx] != nil:
			g.lens = append(g.lens, lenFact{a: val, same: arrays[last.Idx]})
		}
	}
}

// inferFormats recovers the formats of the inputs whose arrays the
// program describes (lower.Array.Level), the order being the one whose
// levels name the same arrays.
func (g *gen) inferFormats() map[string]lower.Format {
	out := map[string]lower.Format{}
	for _, a := range g.p.Arrays {
		li := a.Level
		if li == nil {
			continue
		}
		if _, done := out[li.Tensor]; done {
			continue
		}
		for order := li.Level + 1; order <= 8; order++ {
			ls, err := formats.Levels(li.Format, li.Tensor, order)
			if err != nil || li.Level >= len(ls) {
				continue
			}
			l := ls[li.Level]
			if l.CoordIter == li.CoordIter && l.OnePerParent == li.OnePerParent && l.Pos == li.Pos && l.Idx == li.Idx && l.Mode == li.Mode {
				out[li.Tensor] = lower.Format{Format: li.Format, Order: order}
				break
			}
		}
	}
	return out
}

// paramDoc documents the parameters in the function's doc comment: for
// each tensor input, the fields of its formats.Tensor they are (in the
// order of formats.Inputs), and the dictionary inputs.
func (g *gen) paramDoc() []string {
	var lines []string
	names := make([]string, 0, len(g.formats))
	for n := range g.formats {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		f := g.formats[n]
		ins, err := formats.Inputs(f.Format, n, f.Order)
		if err != nil {
			continue
		}
		var parts []string
		for _, in := range ins {
			for _, p := range g.params {
				if p.Name == in && p.Field != "" {
					parts = append(parts, fmt.Sprintf("%s = %s", p.GoName, p.Field))
				}
			}
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("  - from %s, a formats.Tensor t in %s: %s;", n, f.Format, strings.Join(parts, ", ")))
		}
	}
	for _, pa := range g.p.Params {
		if pa.Tensor != nil {
			lines = append(lines, fmt.Sprintf("  - %s is the dictionary %s (%s) as nested maps;", g.paramGoName(pa.Name), pa.Name, pa.Tensor.Type))
		}
	}
	if len(lines) > 0 {
		last := lines[len(lines)-1]
		lines[len(lines)-1] = last[:len(last)-1] + "."
		lines = append([]string{"Its parameters come from the inputs:", ""}, lines...)
	}
	if len(g.p.Ordered) > 0 {
		var names []string
		for _, a := range g.p.Ordered {
			names = append(names, g.arrays[a])
		}
		lines = append(lines, "", fmt.Sprintf("It relies on the coordinates %s being strictly ascending within", strings.Join(names, ", ")),
			"each parent, as their format promises (formats.Tensor.Validate checks it):",
			"it does not check them.")
	}
	return lines
}

func (g *gen) paramGoName(name string) string {
	for _, p := range g.params {
		if p.Name == name {
			return p.GoName
		}
	}
	return name
}
