package bench

import (
	"fmt"

	"github.com/nablasd/nablasd"
	"github.com/nablasd/nablasd/formats"
)

// Logical gives the paper's kernels (section 7.1) as logical programs, as
// cmd/nablasd's tests write them.
var Logical = map[string]string{
	"batax": "sum(<i, r> in A) sum(<j, v1> in r) sum(<k, v2> in r) { j -> ((beta * v1) * v2) * (x(k)) }",
	"smmm":  "sum(<i, r> in A) sum(<k, a> in r) sum(<j, b> in B(k)) a * b",
	"smvm":  "sum(<i, r> in A) sum(<j, a> in r) a * x(j)",
	"vva":   "V1 + V2",
	"vvd":   "sum(<i, a> in V1) a * V2(i)",
	"vsm":   "sum(<i, v> in V1) { i -> v * s * s }",
}

// Wrt gives the input each kernel is differentiated with respect to
// (section 7.1).
var Wrt = map[string]string{"batax": "x", "smmm": "B", "smvm": "x", "vva": "V1", "vvd": "V1", "vsm": "s"}

// Pipeline runs the real ∇SD pipeline over a kernel through the root
// package, exactly as nablasd grad --mode forward does (the paper's
// system is forward mode; BenchmarkModes compares the modes): the
// logical program of
// Logical[kernel] prepared over the bound tensors and scalars, and its
// plan for the gradient with respect to Wrt[kernel] (differentiated,
// optimized with the tensors' storage definitions). The plan's Program is
// the program that runs, over its Bindings (the formats' arrays, bound
// without copying, and the scalars); the benchmarks compile it with their
// own exec options.
func Pipeline(kernel string, tensors map[string]*formats.Tensor, scalars map[string]float64) (*nablasd.Plan, error) {
	src, ok := Logical[kernel]
	if !ok {
		return nil, fmt.Errorf("bench: unknown kernel %q", kernel)
	}
	return PipelineOf(kernel, src, Wrt[kernel], tensors, scalars)
}

// PipelineOf is Pipeline of the program src (named name in messages),
// differentiated with respect to wrt: a spelled variant of a kernel.
func PipelineOf(name, src, wrt string, tensors map[string]*formats.Tensor, scalars map[string]float64) (*nablasd.Plan, error) {
	inputs := nablasd.Inputs{}
	for n, t := range tensors {
		inputs[n] = t
	}
	for n, x := range scalars {
		inputs[n] = x
	}
	q, err := nablasd.Prepare(src, inputs, &nablasd.Options{File: name, Mode: "forward"})
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %v", name, err)
	}
	p, err := q.Plan(wrt)
	if err != nil {
		return nil, fmt.Errorf("bench: %s: %v", name, err)
	}
	return p, nil
}
