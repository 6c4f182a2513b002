package nablasd

import (
	"cmp"
	"slices"

	"github.com/nablasd/nablasd/formats"
)

// Completing a gradient to its input's stored positions
//
// A compiled or native run of a scalar program's gradient with respect to
// a sparse tensor input computes only the positions the program reads;
// the gradient is given on the input's stored positions (DESIGN,
// "Gradients"), so the result is completed to them (Kernel.completion),
// lazily. Value builds the completed dictionary (ad.OnStoredPositions over
// sdql values); Entries, which Tensor and the table writers read, need
// not: completedEntries merges the run's entries with the input's stored
// coordinates, both in key order, in two flat arrays (a batch job does
// this for every group).

// completedEntries calls f for the entries of a run's gradient completed
// to x's stored positions, as Entries would after the completion: the
// run's entries and x's stored coordinates merged in ascending key order,
// a zero where the run computed none. ok is false (and f not called) when
// x's coordinates or the run's entries do not come in ascending order (a
// CSC input), or their orders differ: Entries then completes the value.
func (r *Result) completedEntries(x *formats.Tensor, f func(coords []int, v float64) bool) (ok bool, err error) {
	order := r.Order()
	if x == nil || x.Order() != order || order == 0 {
		return false, nil
	}
	// the run's entries, flattened
	var gk []int
	var gv []float64
	sorted := true
	each := func(c []int, v float64) bool {
		if n := len(gk); n > 0 && slices.Compare(gk[n-order:], c) >= 0 {
			sorted = false
			return false
		}
		gk = append(gk, c...)
		gv = append(gv, v)
		return true
	}
	switch {
	case r.jr != nil:
		r.jr.k.entries(r.jr.dst, each)
	case r.ex != nil:
		if err := r.ex.Entries(each); err != nil {
			return true, err
		}
	default:
		return false, nil
	}
	if !sorted {
		return false, nil
	}
	idx, _, err := x.Coords()
	if err != nil {
		return false, nil
	}
	n, xn := len(gv), len(idx[0])
	// cmpX compares x's coordinates p and q, cmpGX the run's entry i with
	// x's coordinate p
	cmpX := func(p, q int) int {
		for m := range order {
			if c := cmp.Compare(idx[m][p], idx[m][q]); c != 0 {
				return c
			}
		}
		return 0
	}
	cmpGX := func(i, p int) int {
		for m := range order {
			if c := cmp.Compare(gk[i*order+m], idx[m][p]); c != 0 {
				return c
			}
		}
		return 0
	}
	for p := 1; p < xn; p++ {
		if cmpX(p-1, p) > 0 {
			return false, nil
		}
	}
	coords := make([]int, order)
	for i, p := 0, 0; i < n || p < xn; {
		c := -1
		switch {
		case i == n:
			c = 1
		case p < xn:
			c = cmpGX(i, p)
		}
		v, from := 0.0, p
		if c <= 0 {
			copy(coords, gk[i*order:(i+1)*order])
			v = gv[i]
			i++
		} else {
			for m := range order {
				coords[m] = idx[m][p]
			}
		}
		if c >= 0 {
			// x's position, and the same coordinates stored again
			for p++; p < xn && cmpX(from, p) == 0; p++ {
			}
		}
		if !f(coords, v) {
			return true, nil
		}
	}
	return true, nil
}
