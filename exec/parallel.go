package exec

import (
	"sync"

	"github.com/nablasd/nablasd/sdql"
)

// parallel runs the outermost loop of a program, a sum over a range, in
// Options.Threads chunks on goroutines, each into its own destination;
// the destinations are then merged by semi-ring addition (so results equal
// the serial ones up to floating-point reassociation).
type parallel struct {
	lo, hi iexpr
}

// splitTop finds the outermost range loop that can be split: the program
// itself must be a sum over a range whose bounds use only inputs.
func (c *compiler) splitTop(e sdql.Expr) *parallel {
	s, ok := e.(*sdql.SumExpr)
	if !ok {
		return nil
	}
	rng, ok := s.Src.(*sdql.RangeExpr)
	if !ok {
		return nil
	}
	c.splitRange = rng
	return &parallel{lo: c.int(rng.Lo, nil), hi: c.int(rng.Hi, nil)}
}

func (c *compiler) parallelReal(e sdql.Expr) *parallel { return c.splitTop(e) }
func (c *compiler) parallelInto(e sdql.Expr) *parallel { return c.splitTop(e) }

// rangeBounds compiles the bounds of a range source; the split range reads
// the worker's chunk from the frame.
func (c *compiler) rangeBounds(src *sdql.RangeExpr, env *scope) (iexpr, iexpr) {
	lo, hi := c.int(src.Lo, env), c.int(src.Hi, env)
	if src != c.splitRange {
		return lo, hi
	}
	return func(fr *frame) int {
			if fr.split {
				return fr.splitLo
			}
			return lo(fr)
		}, func(fr *frame) int {
			if fr.split {
				return fr.splitHi
			}
			return hi(fr)
		}
}

func (p *parallel) run(k *Kernel, fr *frame, r *Result, bindings map[string]sdql.Value) error {
	lo, hi := p.lo(fr), p.hi(fr)
	n := k.opts.Threads
	if hi-lo < 2*n {
		k.top(fr, r)
		return nil
	}
	results := make([]*Result, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	chunk := (hi - lo + n - 1) / n
	for w := 0; w < n; w++ {
		wlo, whi := lo+w*chunk, min(lo+(w+1)*chunk, hi)
		rw := k.NewResult()
		results[w] = rw
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() {
				if p := recover(); p != nil {
					errs[w] = panicError(p)
				}
			}()
			fw := k.newFrame()
			if err := k.bind(fw, bindings); err != nil {
				errs[w] = err
				return
			}
			fw.split, fw.splitLo, fw.splitHi = true, wlo, whi
			k.prepare(rw, fw)
			k.top(fw, rw)
		}()
	}
	wg.Wait()
	for w, rw := range results {
		if errs[w] != nil {
			return errs[w]
		}
		r.scalar += rw.scalar
		if r.dict != nil {
			r.dict.addDict(rw.dict, 1)
		}
	}
	return nil
}
