package nablasd

import (
	"fmt"
	"slices"
	"strings"

	"github.com/nablasd/nablasd/lower"
	"github.com/nablasd/nablasd/sdql"
)

// shapeInfo is what the shape check needs of a program: for every lookup
// of an input's mode by a key that ranges over an input's mode, the two
// modes. It depends on the inputs' kinds, not on their extents, so a
// kernel rerun over new inputs checks it again cheaply.
type shapeInfo struct {
	lookups []modeLookup
	// result bounds the program's result levels (sdql.AnalyzeExtents)
	result []sdql.Bound
}

// modeLookup is a lookup x(k): mode Mode of Dict looked up by keys of mode
// KeyMode of Key.
type modeLookup struct {
	at            sdql.Pos
	dict, key     string
	mode, keyMode int
}

// analyzeShapes finds the program's lookups whose key ranges over an
// input's dimension, as sdql.AnalyzeExtents bounds them (a computed key,
// such as i + 1, is not one and stays unchecked).
func analyzeShapes(prog sdql.Expr, types map[string]sdql.Type, dims map[string][]int) (*shapeInfo, error) {
	ext, err := sdql.AnalyzeExtents(prog, types, dims)
	if err != nil {
		return nil, err
	}
	s := &shapeInfo{result: ext.Result}
	for _, l := range ext.Lookups {
		d, k := l.Dict, l.Key
		if d.KeysOf == "" || k.KeysOf == "" || d.Empty || k.Empty || d.KeysOf == k.KeysOf && d.Mode == k.Mode {
			continue
		}
		s.lookups = append(s.lookups, modeLookup{at: l.Expr.Pos(), dict: d.KeysOf, mode: d.Mode, key: k.KeysOf, keyMode: k.Mode})
	}
	return s, nil
}

// check compares the extents of the modes each lookup relates: "x has 100
// entries but is indexed by A's columns (5300)".
func (s *shapeInfo) check(file string, dims map[string][]int) error {
	var errs sdql.ErrorList
	for _, l := range s.lookups {
		dd, kd := dims[l.dict], dims[l.key]
		if l.mode >= len(dd) || l.keyMode >= len(kd) || dd[l.mode] == kd[l.keyMode] {
			continue
		}
		errs.Add(file, l.at, "%s has %d %s but is indexed by %s's %s (%d)",
			l.dict, dd[l.mode], modeName(len(dd), l.mode), l.key, modeName(len(kd), l.keyMode), kd[l.keyMode])
	}
	return errs.Err()
}

// equalModes groups the modes of the tensor inputs the shape check makes
// equal (lower.Options.EqualModes): each lookup's looked-up mode with the
// mode its key ranges over, joined where lookups share a mode. None when
// the check is off (Options.NoShapeCheck): then a key past a dense
// input's end reads zero, and lowering must test it.
func (q *Query) equalModes() [][]lower.Mode {
	if q.opts.NoShapeCheck || q.shapes == nil {
		return nil
	}
	group := map[lower.Mode]int{}
	var groups [][]lower.Mode
	for _, l := range q.shapes.lookups {
		a, b := lower.Mode{Tensor: l.dict, Mode: l.mode}, lower.Mode{Tensor: l.key, Mode: l.keyMode}
		ga, oka := group[a]
		gb, okb := group[b]
		switch {
		case oka && okb && ga != gb:
			for _, m := range groups[gb] {
				group[m] = ga
			}
			groups[ga] = append(groups[ga], groups[gb]...)
			groups[gb] = nil
		case oka && !okb:
			group[b] = ga
			groups[ga] = append(groups[ga], b)
		case okb && !oka:
			group[a] = gb
			groups[gb] = append(groups[gb], a)
		case !oka && !okb:
			group[a], group[b] = len(groups), len(groups)
			groups = append(groups, []lower.Mode{a, b})
		}
	}
	out := groups[:0]
	for _, g := range groups {
		if g != nil {
			out = append(out, g)
		}
	}
	return out
}

// shapeEqualities says in words what equalModes makes equal: "x has as
// many entries as A has columns", one per lookup, in order, without
// repeats. None when the shape check is off.
func (q *Query) shapeEqualities() []string {
	if q.opts.NoShapeCheck || q.shapes == nil {
		return nil
	}
	dims := q.dims()
	var out []string
	for _, l := range q.shapes.lookups {
		e := fmt.Sprintf("%s has as many %s as %s has %s", l.dict, modeName(len(dims[l.dict]), l.mode), l.key, modeName(len(dims[l.key]), l.keyMode))
		if !slices.Contains(out, e) {
			out = append(out, e)
		}
	}
	return out
}

// checkProducts compares the shapes of a request's products with what
// they belong to, as the shape check compares inputs (and with the same
// escape hatch, Options.NoShapeCheck): a tangent or a direction has its
// input's extents, a cotangent the result's (as far as the program tells
// them, sdql.AnalyzeExtents). dims gives the extents of the tensor inputs,
// the products' among them; a product bound as a logical value (a Go map,
// an sdql.Value) has no shape and is not checked, like such an input.
func (q *Query) checkProducts(r *request, dims map[string][]int) error {
	if q.opts.NoShapeCheck || r == nil {
		return nil
	}
	check := func(what, name string, want []int, of string) error {
		got := dims[name]
		if got == nil || want == nil {
			return nil
		}
		if len(got) != len(want) {
			return fmt.Errorf("%s: a tensor of order %d, where %s has order %d", what, len(got), of, len(want))
		}
		for m := range got {
			if want[m] != 0 && got[m] != want[m] {
				return fmt.Errorf("%s: %d %s, but %s has %d", what, got[m], modeName(len(got), m), of, want[m])
			}
		}
		return nil
	}
	for _, n := range sortedNames(r.tangents) {
		if err := check("tangent of "+n, r.tangents[n], dims[n], n); err != nil {
			return err
		}
	}
	if r.dir != "" {
		if err := check("direction of "+r.wrt[0], r.dir, dims[r.wrt[0]], r.wrt[0]); err != nil {
			return err
		}
	}
	if r.cot != "" {
		var want []int
		if ext, err := q.extents(dims); err == nil {
			want = extentsOf(ext.Result, max(sdql.Order(q.info.Result), 0))
		}
		if err := check("cotangent", r.cot, want, "the result"); err != nil {
			return err
		}
	}
	return nil
}

func sortedNames(m map[string]string) []string {
	names := make([]string, 0, len(m))
	for n := range m {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// modeName names mode m of a tensor of the given order: a vector's
// entries, a matrix's rows and columns, else "mode m" (counted from 0).
func modeName(order, m int) string {
	switch {
	case order == 1:
		return "entries"
	case order == 2 && m == 0:
		return "rows"
	case order == 2:
		return "columns"
	}
	return fmt.Sprintf("entries along mode %d", m)
}

// extents is sdql.AnalyzeExtents of the query's program for inputs of
// the given extents, remembered for the last few: a kernel rerun over new
// inputs (a batch job's groups, of one shape) asks for the same every
// run, and the analysis walks the whole program.
func (q *Query) extents(dims map[string][]int) (*sdql.Extents, error) {
	names := make([]string, 0, len(dims))
	for n := range dims {
		names = append(names, n)
	}
	slices.Sort(names)
	var key strings.Builder
	for _, n := range names {
		fmt.Fprintf(&key, "%s%v;", n, dims[n])
	}
	k := key.String()
	q.mu.Lock()
	c, ok := q.extentsCache[k]
	q.mu.Unlock()
	if ok {
		return c.ext, c.err
	}
	ext, err := sdql.AnalyzeExtents(q.prog, q.types, dims)
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.extentsCache == nil || len(q.extentsCache) >= 16 {
		q.extentsCache = map[string]extentsResult{}
	}
	q.extentsCache[k] = extentsResult{ext, err}
	return ext, err
}

// extentsResult is a remembered analysis (Query.extents).
type extentsResult struct {
	ext *sdql.Extents
	err error
}

// resultShape returns the extents of the result of a plan's program as far
// as the program tells them from the inputs' shapes (0 where unknown): the
// logical program's result's (sdql.AnalyzeExtents), then for a gradient
// the wrt input's shape (a gradient's indices are the result's, then the
// input's). A plan with several results has none (Kernel.Split gives each
// its own).
func (q *Query) resultShape(p *Plan) []int { return q.resultShapeFor(p, q.dims()) }

// resultShapeFor is resultShape for inputs of the given extents.
func (q *Query) resultShapeFor(p *Plan, dims map[string][]int) []int {
	if p.Outputs == nil {
		return q.outputShape("value", "", dims, p.Info.Result)
	}
	if p.Outputs.Bundled() {
		return nil
	}
	return q.outputShape(p.req.kind, p.Outputs.Names[0], dims, p.Info.Result)
}

// outputShape returns the extents of one result of type t: the program's
// value's (for "value" and a JVP), a gradient's with respect to the input
// name (the value's, then the input's), a VJP's or an HVP's (the input's).
func (q *Query) outputShape(kind, name string, dims map[string][]int, t sdql.Type) []int {
	var shape []int
	input := func() []int {
		s := dims[name]
		if s == nil {
			s = make([]int, max(sdql.Order(q.types[name]), 0))
		}
		return s
	}
	if name == "value" || kind == "value" || kind == "jvp" || kind == "grad" {
		if ext, err := q.extents(dims); err == nil {
			shape = extentsOf(ext.Result, max(sdql.Order(q.info.Result), 0))
		}
	}
	if name != "value" && (kind == "grad" || kind == "vjp" || kind == "hvp") {
		shape = append(shape, input()...)
	}
	if len(shape) != max(sdql.Order(t), 0) {
		return nil // not the shape of this result: let the writer measure it
	}
	return shape
}

// extentsOf turns level bounds into extents: one past a bound's largest
// key when its keys are known to be non-negative, else 0 (unknown).
func extentsOf(bs []sdql.Bound, order int) []int {
	if order <= 0 {
		return nil
	}
	out := make([]int, order)
	for i := range out {
		if i < len(bs) && bs[i].Known && bs[i].Lo >= 0 {
			out[i] = bs[i].Hi + 1
		}
	}
	return out
}
