package legacyexec

import (
	"github.com/nablasd/nablasd/sdql"
)

// parallel runs the outermost loop of a program, a sum over a range, in
// chunks on up to Options.Threads goroutines (the general path, for
// programs whose outermost loop no whole-loop primitive runs), one chunk
// per goroutine, each on its runner's frame (team.go). Chunk 0 writes
// into the destination, chunk p > 0 into a destination of its own kept in
// the Result, merged after by semi-ring addition in chunk order, so
// results equal the serial ones up to floating-point reassociation. When
// every iteration writes only its own key (the body is { i -> ... } with i
// the range's value, under lets and ifs), the chunks' keys are disjoint:
// a dense destination of known extent is then written by all chunks at
// once (no merge), and otherwise the chunks' entries are moved into the
// destination, not added (hdict.adopt); either way the loop is cut into
// finer chunks, partsPerRunner per goroutine.
type parallel struct {
	lo, hi iexpr
	// disjoint: each iteration writes only the key of its range value
	disjoint bool
	id       int // the job slot
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
	p := &parallel{lo: c.int(rng.Lo, nil), hi: c.int(rng.Hi, nil), id: c.newJob()}
	p.disjoint = s.Val.Name != "_" && s.Key.Name != s.Val.Name && ownKey(s.Body, s.Val.Name)
	return p
}

// ownKey reports whether every entry e writes has the key i.
func ownKey(e sdql.Expr, i string) bool {
	switch x := e.(type) {
	case *sdql.DictExpr:
		for _, en := range x.Entries {
			if identName(en.Key) != i {
				return false
			}
		}
		return true
	case *sdql.LetExpr:
		for _, n := range x.Names {
			if n.Name == i {
				return false
			}
		}
		return ownKey(x.Body, i)
	case *sdql.IfExpr:
		return ownKey(x.Then, i) && (x.Else == nil || ownKey(x.Else, i))
	}
	return false
}

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

// splitJob is the parallel step of the general path.
type splitJob struct {
	k      *Kernel
	r      *Result
	direct bool // every chunk writes into r
}

func (j *splitJob) part(t *team, r, p int) {
	fr := t.frame(r)
	fr.split, fr.splitLo, fr.splitHi = true, t.cuts[p], t.cuts[p+1]
	res := j.r
	if p > 0 && !j.direct {
		res = j.r.par[p]
		j.k.prepare(res, fr)
	}
	j.k.top(fr, res)
}

// run runs the kernel's top with the outermost loop split.
func (p *parallel) run(k *Kernel, fr *frame, r *Result) {
	lo, hi := p.lo(fr), p.hi(fr)
	c := k.c
	n := c.workers(fr, hi-lo, minSplitIterations)
	if n <= 1 {
		k.top(fr, r)
		return
	}
	t := c.teamOf(fr)
	t.syncFrames(n)
	j := jobAt[splitJob](fr, p.id)
	j.k, j.r = k, r
	j.direct = p.disjoint && r.dict != nil && r.dict.mode == modeFull
	// parts of their own destinations cost a merge each, unless their
	// entries are moved (disjoint keys): then finer parts balance better
	parts := n
	if p.disjoint {
		parts = min(partsPerRunner*n, hi-lo)
	}
	t.evenCuts(parts, lo, hi)
	if !j.direct {
		for len(r.par) < parts {
			r.par = append(r.par, nil)
		}
		for q := 1; q < parts; q++ {
			if r.par[q] == nil {
				r.par[q] = k.NewResult()
			}
		}
	}
	defer func() { fr.split = false }()
	c.fork(fr, n, parts, j)
	if j.direct {
		return
	}
	for _, rp := range r.par[1:parts] {
		r.scalar += rp.scalar
		switch {
		case r.dict == nil:
		case p.disjoint:
			r.dict.adopt(rp.dict)
		default:
			r.dict.addDict(rp.dict, 1)
		}
	}
}

// adopt moves the entries of src, whose keys d does not hold, into d:
// a child dictionary changes places with d's (empty) one, so both keep
// their storage for the next run.
func (d *hdict) adopt(src *hdict) {
	if src.t.isLeaf() {
		d.addDict(src, 1)
		return
	}
	for i, n := 0, src.Len(); i < n; i++ {
		k, p := src.entry(i)
		d.child(k)
		q := k
		if d.mode == modeHash {
			q = d.find(k)
		}
		if src.d[p] != nil {
			d.d[q], src.d[p] = src.d[p], d.d[q]
		}
	}
}
