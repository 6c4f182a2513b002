package exec

import (
	"github.com/nablasd/nablasd/lower"
)

// Parallel loops that write their result in place. A parallel loop that
// adds into a tensor runs its workers but the first on copies of it,
// added in after (parallel.go). When the loop's keys at the tensor's
// level 0 are its own variable plus constants (a stencil's gradient adds
// into rows i - 1, i and i + 1 of iteration i), a chunk of iterations
// l..h-1 writes rows l + dmin .. h - 1 + dmax only, so two chunks share
// the rows of the first dmax - dmin iterations of the later one; with a
// stride and inner loops (a strided filter's gradient adds into 2i + k,
// k < K_len), rows 2l .. 2(h - 1) + K_len - 1, shared by the first
// (K_len - 1) / 2 iterations (lower.InPlaceRowsOf finds such loops,
// lower.InPlaceRows.Skip the count). Every worker then writes the
// tensor itself, the later chunks leaving those iterations out, and they
// run after the workers, one chunk after the other: no copy to clear, no
// merge, as a hand-written split writes in place (the two goroutines of
// the stencil's hand-written gradient ran 1.85× its one against 1.34×
// privatized, on this project's VM). The result is the serial one up to
// the order of additions into the rows two chunks write, the same for a
// given number of threads.

// rows is a parallel loop's lower.InPlaceRows with its inner loops'
// ranges compiled.
type rows struct {
	*lower.InPlaceRows
	ranges map[*lower.For][2]iexpr
}

// inPlaceRows compiles the rows of a parallel loop s whose every tensor
// it adds into can be written in place (lower.InPlaceRowsOf), or nil.
func (c *compiler) inPlaceRows(s *lower.For) *rows {
	ip := lower.InPlaceRowsOf(s)
	if ip == nil {
		return nil
	}
	r := &rows{InPlaceRows: ip, ranges: map[*lower.For][2]iexpr{}}
	for _, k := range ip.Keys {
		for _, f := range k.Inner {
			r.ranges[f] = [2]iexpr{c.int(f.Lo), c.int(f.Hi)}
		}
	}
	return r
}

// skip returns, for chunks of the loop l..h-1, how many first
// iterations of a chunk write rows of the chunk before, and whether
// every row the loop writes lies in level 0 of size n (so that no level
// grows while the workers write it): lower.InPlaceRows.Skip.
func (r *rows) skip(fr *frame, l, h, n int) (int, bool) {
	lo, hi := r.Extent(func(f *lower.For) (int, int) {
		b := r.ranges[f]
		return b[0](fr), b[1](fr)
	})
	return r.Skip(l, h, lo, hi, n)
}

// skipAll is skip for every tensor the loop adds into: the most
// iterations a chunk leaves to run after the workers, and whether every
// row lies in its tensor's level 0.
func (r *rows) skipAll(fr *frame, par *lower.Par, l, h int) (int, bool) {
	most := 0
	for _, t := range par.Tensors {
		k, ok := r.skip(fr, l, h, fr.t[t.ID].levels[0].size)
		if !ok {
			return 0, false
		}
		most = max(most, k)
	}
	return most, true
}

// inPlace runs a parallel loop's iterations l..h-1 on the workers, in
// place (rows.skipAll gave span): worker i runs its chunk but, for i > 0,
// its first span iterations, into the run's own tensors; then those run
// on the run's frame, chunk after chunk. The loop's variables are added
// into the run's in worker order.
func (fr *frame) inPlace(workers []*frame, par *lower.Par, chunk stmt, clo, chi, l, h, span int, pos []int) {
	w := len(workers)
	for i, wf := range workers {
		wf.copyFrom(fr, par, true)
		a, b := split(l, h, i, w, pos), split(l, h, i+1, w, pos)
		if i > 0 {
			a = min(a+span, b)
		}
		wf.i[clo], wf.i[chi] = a, b
	}
	runWorkers(workers, chunk)
	for _, wf := range workers {
		fr.merge(wf, par, true, nil)
	}
	for i := 1; i < w; i++ {
		a, b := split(l, h, i, w, pos), split(l, h, i+1, w, pos)
		fr.i[clo], fr.i[chi] = a, min(a+span, b)
		chunk(fr)
	}
	fr.used = max(fr.used, w)
}
