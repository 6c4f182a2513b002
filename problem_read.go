package nablasd

import (
	"fmt"
	"math"

	"github.com/nablasd/nablasd/formats"
)

// A Problem's kernel returns a bundle (bundle.go): the value, then each
// parameter's gradient. Lowered dense (bundleShape) it is one array,
// and a run's loss and gradient are copied out of it (the gradient of a
// dense row-major parameter in one copy); otherwise, or when the executor
// keeps no such array (the interpreter), they are read through the
// result's entries, each key mapped to its stored position.

// bundleLayout says where the value is in a dense bundle's array of size
// entries.
type bundleLayout struct {
	size, value int
}

// prepareRead works out where a run's loss and gradient are: the dense
// layout when the bundle has one, and each parameter's map from keys to
// stored positions for reading entries.
func (p *Problem) prepareRead() error {
	o := p.k.plan.Outputs
	out := map[string]int{}
	for i, n := range o.Names {
		out[n] = i
	}
	if _, ok := out["value"]; !ok {
		return fmt.Errorf("internal error: the fit's kernel computes %v, not the value", o.Names)
	}
	for _, pr := range p.params {
		if _, ok := out[pr.Name]; !ok {
			return fmt.Errorf("internal error: the fit's kernel computes %v, not the gradient of %s", o.Names, pr.Name)
		}
		if pr.tensor == nil {
			continue
		}
		idx, val, err := pr.tensor.Coords()
		if err != nil {
			return fmt.Errorf("wrt %s: %v", pr.Name, err)
		}
		for e, v := range val {
			if math.Float64bits(v) != math.Float64bits(pr.tensor.Val[e]) {
				return fmt.Errorf("internal error: wrt %s: the storage order of %s is not its values'", pr.Name, pr.Format)
			}
		}
		if pr.Format != formats.Dense {
			pr.pos = map[int][]int{}
			for e := range val {
				lin := 0
				for m, n := range pr.Shape {
					lin = lin*n + idx[m][e]
				}
				pr.pos[lin] = append(pr.pos[lin], e)
			}
		}
		pr.coords = idx
	}
	dims := p.b.dims
	if dims == nil {
		dims = p.k.q.dims()
	}
	shape := p.k.q.bundleShape(p.k.plan, dims)
	if shape == nil {
		return nil
	}
	stride := make([]int, len(shape))
	stride[len(shape)-1] = 1
	for l := len(shape) - 2; l >= 0; l-- {
		stride[l] = stride[l+1] * shape[l+1]
	}
	p.layout = &bundleLayout{size: shape[0] * stride[0], value: out["value"] * stride[0]}
	for _, pr := range p.params {
		base := out[pr.Name] * stride[0]
		pr.start, pr.src = base, nil
		if pr.tensor == nil {
			continue
		}
		first := len(shape) - len(pr.Shape) // the level of the parameter's first mode
		src := make([]int, pr.Len)
		contiguous := true
		for e := range src {
			off := base
			for m := range pr.Shape {
				off += pr.coords[m][e] * stride[first+m]
			}
			src[e] = off
			contiguous = contiguous && off == base+e
		}
		if !contiguous {
			pr.src = src
		}
	}
	for _, pr := range p.params {
		pr.coords = nil
	}
	return nil
}

// readResult reads the loss and the gradient of the run into p.f and p.g.
func (p *Problem) readResult() {
	if l := p.layout; l != nil {
		if vals := p.dst.dense(); len(vals) == l.size {
			p.f = vals[l.value]
			for _, pr := range p.params {
				g := p.g[pr.Offset : pr.Offset+pr.Len]
				if pr.src == nil {
					copy(g, vals[pr.start:pr.start+pr.Len])
					continue
				}
				for e, o := range pr.src {
					g[e] = vals[o]
				}
			}
			return
		}
	}
	p.readEntries()
}

// readEntries reads the loss and the gradient through the result's
// entries: a key's gradient goes to its stored positions, and a stored
// position the program does not reach has gradient 0.
func (p *Problem) readEntries() {
	names := p.k.plan.Outputs.Names
	byOut := make([]*param, len(names))
	value := -1
	for i, n := range names {
		if n == "value" {
			value = i
		}
		for _, pr := range p.params {
			if pr.Name == n {
				byOut[i] = pr
			}
		}
	}
	p.f = 0
	clear(p.g)
	err := p.dst.Entries(func(c []int, v float64) bool {
		o := c[0]
		if o == value {
			p.f += v
			return true
		}
		if o < 0 || o >= len(byOut) || byOut[o] == nil {
			return true
		}
		pr := byOut[o]
		if pr.tensor == nil {
			p.g[pr.Offset] += v
			return true
		}
		keys := c[len(c)-len(pr.Shape):]
		lin := 0
		for m, k := range keys {
			if k < 0 || k >= pr.Shape[m] {
				return true // a dense bundle's padding
			}
			lin = lin*pr.Shape[m] + k
		}
		if pr.pos == nil {
			p.g[pr.Offset+lin] = v
			return true
		}
		for _, e := range pr.pos[lin] {
			p.g[pr.Offset+e] = v
		}
		return true
	})
	if err != nil && p.err == nil {
		p.err = fmt.Errorf("internal error: reading the fit's kernel's result: %v", err)
	}
}

// dense returns the result's values in one row-major array when the
// kernel keeps them so (every level dense and full), else nil.
func (r *Result) dense() []float64 {
	if r.pending != nil || r.v != nil {
		return nil
	}
	if r.jr != nil {
		if r.jr.k.dense == nil {
			return nil
		}
		return r.jr.k.dense(r.jr.dst)
	}
	if r.ex != nil {
		if vals, _, ok := r.ex.Dense(); ok {
			return vals
		}
	}
	return nil
}
