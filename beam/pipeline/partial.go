package pipeline

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// partial is a row block's result, or a sum of them: a scalar, or a
// tensor's entries as coordinates in row-major order, each once, with
// their values and the tensor's shape. Adding two is the semiring's +:
// the entries' union, values of a coordinate in both added.
type partial struct {
	blocks int // the blocks summed into it (0: the empty sum)
	tensor bool
	scalar float64
	shape  []int
	idx    [][]int // one slice a mode
	val    []float64
}

// newPartial turns a block's result into a partial.
func newPartial(tt *datasets.TableTensor) (*partial, error) {
	p := &partial{blocks: 1}
	if tt.Tensor == nil {
		p.scalar = tt.Scalar
		return p, nil
	}
	t := tt.Tensor
	idx, val, err := t.Coords()
	if err != nil {
		return nil, err
	}
	p.tensor, p.shape = true, append([]int(nil), t.Shape...)
	if len(idx) != len(t.Shape) {
		idx = make([][]int, len(t.Shape)) // Coords of an empty tensor
	}
	p.idx, p.val = idx, val
	if !p.sorted() {
		p.sortUnique()
	}
	return p, nil
}

// cmpAt orders entry a of p and entry b of q row-major.
func cmpAt(p *partial, a int, q *partial, b int) int {
	for m := range p.idx {
		if c := cmp.Compare(p.idx[m][a], q.idx[m][b]); c != 0 {
			return c
		}
	}
	return 0
}

// sorted reports whether the entries are in strictly increasing
// row-major order.
func (p *partial) sorted() bool {
	for e := 1; e < len(p.val); e++ {
		if cmpAt(p, e-1, p, e) >= 0 {
			return false
		}
	}
	return true
}

// sortUnique sorts the entries row-major, adding the values of a
// coordinate stored twice (in their order).
func (p *partial) sortUnique() {
	perm := make([]int, len(p.val))
	for i := range perm {
		perm[i] = i
	}
	slices.SortStableFunc(perm, func(a, b int) int { return cmpAt(p, a, p, b) })
	q := &partial{blocks: p.blocks, tensor: true, shape: p.shape, idx: make([][]int, len(p.idx))}
	for _, e := range perm {
		n := len(q.val)
		if n > 0 && cmpAt(q, n-1, p, e) == 0 {
			q.val[n-1] += p.val[e]
			continue
		}
		for m := range p.idx {
			q.idx[m] = append(q.idx[m], p.idx[m][e])
		}
		q.val = append(q.val, p.val[e])
	}
	*p = *q
}

// add returns p + q (either may be the empty sum).
func add(p, q *partial) (*partial, error) {
	switch {
	case p.blocks == 0:
		return q, nil
	case q.blocks == 0:
		return p, nil
	case p.tensor != q.tensor || !slices.Equal(p.shape, q.shape):
		return nil, fmt.Errorf("internal error: nablasd-beam: adding results of shapes %v and %v", p.shape, q.shape)
	}
	s := &partial{blocks: p.blocks + q.blocks, tensor: p.tensor, scalar: p.scalar + q.scalar, shape: p.shape}
	if !p.tensor {
		return s, nil
	}
	n := len(p.val) + len(q.val)
	s.idx = make([][]int, len(p.idx))
	for m := range s.idx {
		s.idx[m] = make([]int, 0, n)
	}
	s.val = make([]float64, 0, n)
	push := func(r *partial, e int, v float64) {
		for m := range s.idx {
			s.idx[m] = append(s.idx[m], r.idx[m][e])
		}
		s.val = append(s.val, v)
	}
	a, b := 0, 0
	for a < len(p.val) || b < len(q.val) {
		switch {
		case b == len(q.val) || (a < len(p.val) && cmpAt(p, a, q, b) < 0):
			push(p, a, p.val[a])
			a++
		case a == len(p.val) || cmpAt(p, a, q, b) > 0:
			push(q, b, q.val[b])
			b++
		default:
			push(p, a, p.val[a]+q.val[b])
			a++
			b++
		}
	}
	return s, nil
}

// table is the sum as a result table: a scalar, or the tensor in the
// default format of its order (as nablasd writes a result).
func (p *partial) table() (*datasets.TableTensor, error) {
	if !p.tensor {
		return &datasets.TableTensor{Scalar: p.scalar}, nil
	}
	t, err := formats.FromSortedCoords(p.shape, p.idx, p.val, datasets.DefaultFormat(len(p.shape), nil))
	if err != nil {
		return nil, fmt.Errorf("internal error: nablasd-beam: %v", err)
	}
	return &datasets.TableTensor{Tensor: t}, nil
}

func encodePartial(p *partial) []byte {
	e := &encoder{}
	e.int(int64(p.blocks))
	e.bool(p.tensor)
	e.real(p.scalar)
	e.ints(p.shape)
	for m := range p.shape {
		e.intsDelta(p.idx[m], m == 0)
	}
	e.reals(p.val)
	return e.b
}

func decodePartial(b []byte) (*partial, error) {
	d := &decoder{b: b}
	p := &partial{blocks: int(d.int()), tensor: d.bool(), scalar: d.real(), shape: d.ints()}
	if d.err == nil && len(p.shape) > 64 {
		d.err = errCorrupt
	}
	p.idx = make([][]int, len(p.shape))
	for m := range p.shape {
		p.idx[m] = d.ints()
	}
	p.val = d.reals()
	if err := d.done(); err != nil {
		return nil, err
	}
	for m := range p.idx {
		if len(p.idx[m]) != len(p.val) {
			return nil, errCorrupt
		}
	}
	return p, nil
}
