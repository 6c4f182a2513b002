package datasets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/nablasd/nablasd/formats"
)

var errBucketsChanged = errors.New("the rows changed between the two passes")

// bucketsFromEntries builds entries (in the order read) into f by a
// bucketBuild, placed a few at a time as batches come.
func bucketsFromEntries(shape []int, idx [][]int, val []float64, f formats.Format) (*formats.Tensor, error) {
	lay, err := f.Layout(len(shape))
	if err != nil {
		return nil, err
	}
	b := newBucketBuild(shape, f, lay, errBucketsChanged)
	for _, x := range idx[b.first] {
		b.count(x)
	}
	b.alloc()
	for lo := 0; lo < len(val); lo += 7 {
		hi := min(lo+7, len(val))
		e := &entries{idx: make([][]int, len(shape)), val: val[lo:hi]}
		for m := range idx {
			e.idx[m] = idx[m][lo:hi]
		}
		if err := b.place(e); err != nil {
			return nil, err
		}
	}
	return b.tensor()
}

// TestBucketBuild: a tensor built from its entries in two passes
// (counted by the first stored mode, placed, each bucket sorted and its
// coordinates stored twice summed) is buildTensor's (sorted whole, then
// summed), to the bit, in every format of orders 1 to 3: entries in
// random order with many coordinates stored twice (values whose sum
// depends on the order), buckets long enough for each way of sorting
// one (by insertion, by sortInPlace, by sort.Stable past its buffer's
// limit, and when the keys do not fit in 64 bits), and sorted entries.
func TestBucketBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(37, 4))
	type tcase struct {
		name  string
		shape []int
		idx   [][]int
		val   []float64
	}
	random := func(name string, shape []int, n int, mode func(m, e int) int) tcase {
		c := tcase{name: name, shape: shape, idx: make([][]int, len(shape))}
		vals := []float64{1e16, 1, -1e16, 0.1, 3, -0.5}
		for e := range n {
			for m, d := range shape {
				x := r.IntN(d)
				if mode != nil {
					x = mode(m, e)
				}
				c.idx[m] = append(c.idx[m], x)
			}
			c.val = append(c.val, vals[r.IntN(len(vals))]*float64(1+r.IntN(3)))
		}
		return c
	}
	var cs []tcase
	for order := 1; order <= 3; order++ {
		small := make([]int, order)
		wide := make([]int, order)
		for m := range small {
			small[m] = 3
			wide[m] = 60
		}
		cs = append(cs,
			random(fmt.Sprintf("order%d/empty", order), small, 0, nil),
			random(fmt.Sprintf("order%d/duplicates", order), small, 200, nil),
			random(fmt.Sprintf("order%d/wide", order), wide, 3000, nil),
			random(fmt.Sprintf("order%d/sorted", order), wide, 500, func(m, e int) int { return (e / (m + 1)) % 60 }),
		)
	}
	cs = append(cs,
		// one row of 10,000 entries, most columns three times or more:
		// past sortInPlace's limit (max(n/8, 4096))
		random("long row", []int{2, 100_000}, 10_000, func(m, e int) int {
			if m == 0 {
				return 0
			}
			return (e * 7919) % 3_000
		}),
		// rows of 2,000: sortInPlace
		random("rows", []int{5, 1 << 20}, 10_000, nil),
		// keys past 64 bits, coordinates stored several times: sort.Stable
		random("wide keys", []int{3, 1 << 40, 1 << 30}, 500, func(m, e int) int {
			return []int{e % 3, (e * 7919) % 97 << 30, (e * 31) % 5}[m]
		}),
	)
	for _, c := range cs {
		for _, f := range formats.ForOrder(len(c.shape)) {
			t.Run(c.name+"/"+f.Name(), func(t *testing.T) {
				lay, _ := f.Layout(len(c.shape))
				size := 1.0
				for _, n := range c.shape {
					size *= float64(n)
				}
				if lay.AllDense() && size > 1<<22 {
					t.Skip("a large dense tensor")
				}
				clone := func() ([][]int, []float64) {
					idx := make([][]int, len(c.idx))
					for m := range idx {
						idx[m] = append([]int(nil), c.idx[m]...)
					}
					return idx, append([]float64(nil), c.val...)
				}
				idx, val := clone()
				want, err := buildTensor(c.shape, idx, val, f)
				if err != nil {
					t.Fatal(err)
				}
				idx, val = clone()
				got, err := bucketsFromEntries(c.shape, idx, val, f)
				if err != nil {
					t.Fatal(err)
				}
				if err := got.Validate(); err != nil {
					t.Fatal(err)
				}
				bits := func(v []float64) []uint64 {
					b := make([]uint64, len(v))
					for i, x := range v {
						b[i] = math.Float64bits(x)
					}
					return b
				}
				norm := func(s [][]int) [][]int {
					out := make([][]int, len(s))
					for i, x := range s {
						if len(x) > 0 {
							out[i] = x
						}
					}
					return out
				}
				if !reflect.DeepEqual(norm(got.Pos), norm(want.Pos)) || !reflect.DeepEqual(norm(got.Idx), norm(want.Idx)) ||
					!reflect.DeepEqual(bits(got.Val), bits(want.Val)) {
					t.Fatalf("the tensors differ:\n got  pos %v idx %v val %v\n want pos %v idx %v val %v",
						got.Pos, got.Idx, got.Val, want.Pos, want.Idx, want.Val)
				}
			})
		}
	}
}

// TestBucketBuildChanged: when the second pass reads other rows than the
// first counted (the file changed between them), the build fails with
// its error instead of building something else or panicking.
func TestBucketBuildChanged(t *testing.T) {
	lay, _ := formats.CSR.Layout(2)
	for _, c := range []struct {
		name   string
		placed []int // the first mode's coordinates placed; 0, 1, 1 were counted
	}{
		{"fewer", []int{0, 1}},
		{"more", []int{0, 1, 1, 1}},
		{"others", []int{1, 1, 0}},
		{"out of range", []int{0, 1, 5}},
	} {
		b := newBucketBuild([]int{2, 2}, formats.CSR, lay, errBucketsChanged)
		for _, x := range []int{0, 1, 1} {
			b.count(x)
		}
		b.alloc()
		n := len(c.placed)
		e := &entries{idx: [][]int{c.placed, make([]int, n)}, val: make([]float64, n)}
		for j := range n {
			e.idx[1][j] = j % 2
		}
		err := b.place(e)
		if err == nil {
			_, err = b.tensor()
		}
		if !errors.Is(err, errBucketsChanged) {
			t.Errorf("%s: err %v, want %v", c.name, err, errBucketsChanged)
		}
	}
}
