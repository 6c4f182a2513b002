package main

import (
	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

// resultShape is the shape of a result written with --out or
// --out-format: the extents of the program's result, from its inputs'
// shapes through the program (sdql.AnalyzeExtents), then for a gradient
// the wrt input's shape (a gradient's indices are the result's, then the
// input's). A level the analysis cannot bound (a computed key) is 0 here,
// and the writer makes it one past the largest key written.
func (p *program) resultShape(wrt string, v sdql.Value) []int {
	if _, isDict := v.(*sdql.Dict); !isDict {
		return nil // a scalar has no shape
	}
	var shape []int
	if x, err := sdql.AnalyzeExtents(p.expr, p.types(), p.dims()); err == nil {
		for _, b := range x.Result {
			n := 0
			if b.Known && b.Lo >= 0 {
				n = b.Hi + 1
			}
			shape = append(shape, n)
		}
	}
	order := max(sdql.Order(p.info.Result), 0)
	if len(shape) > order {
		shape = shape[:order]
	} else {
		shape = append(shape, make([]int, order-len(shape))...)
	}
	if wrt != "" {
		if t := p.inputs[wrt].tensor; t != nil {
			shape = append(shape, t.Shape...)
		}
	}
	if order := sdql.Order(sdql.TypeOfValue(v)); order != len(shape) {
		return nil // not the shape of this value: let the writer measure it
	}
	return shape
}

// dims gives the shapes of the tensor inputs.
func (p *program) dims() map[string][]int {
	ds := map[string][]int{}
	for n, in := range p.inputs {
		if in.tensor != nil {
			ds[n] = in.tensor.Shape
		}
	}
	return ds
}

// denseInputs names the tensor inputs bound in a dense format (every
// index of their extent stored).
func (p *program) denseInputs() map[string]bool {
	ds := map[string]bool{}
	for n, in := range p.inputs {
		if in.tensor != nil && (in.tensor.Format == formats.Dense || in.tensor.Format == formats.DenseCol) {
			ds[n] = true
		}
	}
	return ds
}
