package datasets

import (
	"errors"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/nablasd/nablasd/formats"
)

// Building a group's tensor from its rows read twice
//
// A group's rows read into arrays of coordinates and values (24 bytes an
// entry of a matrix) and then sorted (16 bytes an entry of keys) hold 2.5
// times the group's CSR (16 bytes an entry) at once. A bucketBuild reads
// the rows twice instead. The first pass counts the entries of every
// coordinate of the format's first stored mode (a CSR's rows); the
// second puts each entry's other coordinates and its value straight into
// its row's place, in arrays of the exact size, in the order the rows
// come (a counting sort). Each row is then sorted in place by the other
// coordinates, stably, so that coordinates stored twice are summed in the
// order read, as sorting the whole group does: the tensor is the same to
// the bit. The counts become the CSR's positions
// (formats.FromSortedBuckets), so the arrays built are the tensor's own:
// a group holds its tensor, one record batch and the sort buffer of its
// longest row (at most an eighth of its entries; a longer row is sorted
// without one).
//
// A bucketBuild is used for a group of more than one record batch (a
// smaller one is converted in place, without a copy where it can be) when
// its format stores the first mode densely (CSR, CSC, dense) or that
// mode's extent is at most the group's rows (counts no larger than the
// entries); other groups are read once and sorted (buildTensorInPlace).

// bucketBuild is a group's tensor being built in two passes: count, then
// alloc, place (for every chunk of entries, in order), and tensor.
type bucketBuild struct {
	shape []int
	f     formats.Format
	first int   // the first stored mode
	rest  []int // the other modes, in storage order
	// pos holds, for coordinate x of the first mode, its count at x+2
	// while counting, then where its next entry goes at x+1 while
	// placing; after placing, pos[:extent+1] are the buckets' starts
	pos []int
	n   int // entries counted
	// sum and placedSum hash the first mode's coordinates in the order
	// counted and placed: the two passes must read the same rows
	sum, placedSum uint64
	idx            [][]int // the entries' coordinates, but the first mode's
	val            []float64
	placed         int
	// changed is the error when the two passes disagree (the file
	// changed while it was read)
	changed error
}

// bucketable reports whether a group of n rows in format f (layout lay)
// of the given shape is built by a bucketBuild.
func bucketable(shape []int, lay formats.Layout, n int64) bool {
	if len(shape) == 0 {
		return false
	}
	extent := shape[lay.ModeOrder[0]]
	if _, dense := lay.Levels[0].(formats.DenseLevel); dense {
		return extent <= formats.MaxDenseSize // the format's own positions
	}
	return int64(extent) <= n
}

func newBucketBuild(shape []int, f formats.Format, lay formats.Layout, changed error) *bucketBuild {
	b := &bucketBuild{shape: shape, f: f, first: lay.ModeOrder[0], rest: lay.ModeOrder[1:], changed: changed}
	b.pos = make([]int, shape[b.first]+2)
	return b
}

// hashStep is one step of the passes' hash of the first mode's
// coordinates.
func hashStep(h uint64, x int) uint64 { return h*0x9e3779b97f4a7c15 + uint64(x) + 1 }

// count counts one entry with coordinate x in the first mode (not one
// out of range: the second pass reports it).
func (b *bucketBuild) count(x int) {
	if uint(x) >= uint(b.shape[b.first]) {
		return
	}
	b.pos[x+2]++
	b.n++
	b.sum = hashStep(b.sum, x)
}

// countColumn counts rows lo to hi of a column of the first mode's
// coordinates. Nulls (group markers, or errors the second pass reports)
// and coordinates out of range (errors too) are not counted.
func (b *bucketBuild) countColumn(a arrow.Array, lo, hi int) {
	if ints, ok := a.(*array.Int64); ok && a.NullN() == 0 {
		for _, x := range ints.Int64Values()[lo:hi] {
			b.count(int(x))
		}
		return
	}
	for i := lo; i < hi; i++ {
		if a.IsNull(i) {
			continue
		}
		if x, ok, tooBig := integerAt(a, i); ok && !tooBig {
			b.count(int(x))
		}
	}
}

// alloc makes the arrays, of the entries counted, and turns the counts
// into where each coordinate's entries go.
func (b *bucketBuild) alloc() {
	for i := 1; i < len(b.pos); i++ {
		b.pos[i] += b.pos[i-1]
	}
	b.idx = make([][]int, len(b.shape))
	for _, m := range b.rest {
		b.idx[m] = make([]int, b.n)
	}
	b.val = make([]float64, b.n)
}

// place puts entries (of every mode, in the order read) in their first
// coordinate's bucket.
func (b *bucketBuild) place(e *entries) error {
	xs := e.idx[b.first]
	extent := b.shape[b.first]
	var ys, dst []int
	if len(b.rest) == 1 {
		ys, dst = e.idx[b.rest[0]], b.idx[b.rest[0]]
	}
	for j, x := range xs {
		if x < 0 || x >= extent {
			return b.changed
		}
		p := b.pos[x+1]
		if p >= b.n {
			return b.changed
		}
		b.pos[x+1] = p + 1
		b.placedSum = hashStep(b.placedSum, x)
		if dst != nil {
			dst[p] = ys[j]
		} else {
			for _, m := range b.rest {
				b.idx[m][p] = e.idx[m][j]
			}
		}
		b.val[p] = e.val[j]
	}
	b.placed += len(xs)
	return nil
}

// tensor sorts each bucket by the other modes, sums coordinates stored
// twice and stores the entries in the format.
func (b *bucketBuild) tensor() (*formats.Tensor, error) {
	if b.placed != b.n || b.placedSum != b.sum {
		return nil, b.changed
	}
	extent := b.shape[b.first]
	start := b.pos[:extent+1]
	sc := &sortScratch{}
	limit := max(b.n/8, 1<<12)
	w, lo := 0, 0
	for x := range extent {
		hi := start[x+1]
		start[x] = w
		asc := b.ascending(lo, hi)
		if asc < 0 {
			b.sortBucket(lo, hi, sc, limit)
			asc = 0
		}
		if asc > 0 && w == lo {
			w = hi // strictly ascending, nothing moved before it: as it is
		} else {
			w = b.compact(lo, hi, w)
		}
		lo = hi
	}
	start[extent] = w
	for _, m := range b.rest {
		b.idx[m] = b.idx[m][:w]
	}
	b.val = b.val[:w]
	return formats.FromSortedBuckets(b.shape, start, b.idx, b.val, b.f)
}

// table is tensor as a table's tensor: errors name the file.
func (b *bucketBuild) table(c *columns, meta map[string]string) (*TableTensor, error) {
	t, err := b.tensor()
	if errors.Is(err, b.changed) {
		return nil, err
	}
	if err != nil {
		return nil, tableErrorf(c.file, "", -1, "%v", strings.TrimPrefix(err.Error(), "formats: "))
	}
	return &TableTensor{Tensor: t, Meta: meta}, nil
}

// ascending reports whether the entries lo to hi-1 (of one bucket) are
// sorted strictly by the other modes (1), sorted with coordinates stored
// twice (0), or not sorted (-1).
func (b *bucketBuild) ascending(lo, hi int) int {
	if len(b.rest) == 0 {
		if hi-lo > 1 {
			return 0
		}
		return 1
	}
	res := 1
	for e := lo + 1; e < hi; e++ {
		switch b.compare(e-1, e) {
		case 1:
			return -1
		case 0:
			res = 0
		}
	}
	return res
}

// compare compares entries a and b by the other modes, in storage order.
func (b *bucketBuild) compare(x, y int) int {
	for _, m := range b.rest {
		if p, q := b.idx[m][x], b.idx[m][y]; p != q {
			if p < q {
				return -1
			}
			return 1
		}
	}
	return 0
}

// compact moves a sorted bucket's entries lo to hi-1 to w on, summing
// those stored twice in order, and returns where the next bucket goes.
func (b *bucketBuild) compact(lo, hi, w int) int {
	start := w
	for e := lo; e < hi; e++ {
		if w > start && b.same(w-1, e) {
			b.val[w-1] += b.val[e]
			continue
		}
		for _, m := range b.rest {
			b.idx[m][w] = b.idx[m][e]
		}
		b.val[w] = b.val[e]
		w++
	}
	return w
}

func (b *bucketBuild) same(x, y int) bool {
	for _, m := range b.rest {
		if b.idx[m][x] != b.idx[m][y] {
			return false
		}
	}
	return true
}

// sortBucket sorts the entries lo to hi-1 by the other modes, stably:
// by insertion when they are few, by sortInPlace (its buffers at most
// limit entries) when they fit, else by sort.Stable, which takes no
// memory.
func (b *bucketBuild) sortBucket(lo, hi int, sc *sortScratch, limit int) {
	s := &bucketSorter{b: b, lo: lo}
	if hi-lo <= 12 {
		for i := 1; i < hi-lo; i++ {
			for j := i; j > 0 && s.Less(j, j-1); j-- {
				s.Swap(j, j-1)
			}
		}
		return
	}
	if hi-lo <= limit {
		idx := make([][]int, len(b.idx))
		for _, m := range b.rest {
			idx[m] = b.idx[m][lo:hi]
		}
		if sortInPlace(b.shape, b.rest, idx, b.val[lo:hi], sc) {
			return
		}
	}
	s.n = hi - lo
	sort.Stable(s)
}

// bucketSorter sorts one bucket's entries in place (sort.Interface).
type bucketSorter struct {
	b     *bucketBuild
	lo, n int
}

func (s *bucketSorter) Len() int           { return s.n }
func (s *bucketSorter) Less(i, j int) bool { return s.b.compare(s.lo+i, s.lo+j) < 0 }
func (s *bucketSorter) Swap(i, j int) {
	b, i, j := s.b, s.lo+i, s.lo+j
	for _, m := range b.rest {
		b.idx[m][i], b.idx[m][j] = b.idx[m][j], b.idx[m][i]
	}
	b.val[i], b.val[j] = b.val[j], b.val[i]
}
