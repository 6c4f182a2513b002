package pipeline

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/nablasd/nablasd/datasets"
	"github.com/nablasd/nablasd/formats"
)

// TestCodecRoundTrips: every element the stages pass decodes to what was
// encoded (nil and empty slices kept apart, as formats need), and a
// truncated element is an error, never a panic.
func TestCodecRoundTrips(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	c := &chunk{input: "A", Chunk: datasets.Chunk{Key: datasets.Key{Str: "day 3", IsStr: true}, Row: 1 << 40,
		Idx: [][]int{{0, 5, 5, 2}, {9, -1, 3, 0}}, Val: []float64{1.5, math.Inf(-1), -0.0, 3}}}
	if got, err := decodeChunk(encodeChunk(c)); err != nil || !reflect.DeepEqual(got, c) {
		t.Errorf("chunk: %+v, %v", got, err)
	}
	for _, f := range formats.All() {
		for order := 1; order <= 3; order++ {
			if !f.Supports(order) {
				continue
			}
			shape := []int{5, 4, 3}[:order]
			idx := make([][]int, order)
			var val []float64
			for range 7 {
				for m := range idx {
					idx[m] = append(idx[m], r.IntN(shape[m]))
				}
				val = append(val, r.NormFloat64())
			}
			tn, err := formats.FromCoords(shape, idx, val, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, v := range []*datasets.TableTensor{{Tensor: tn}, {Scalar: -2.5}} {
				n := &named{name: "x", first: true, value: v}
				got, err := decodeNamed(encodeNamed(n))
				if err != nil || !reflect.DeepEqual(got, n) {
					t.Errorf("%s order %d: %+v, %v", f.Name(), order, got, err)
				}
				res := &result{key: datasets.Key{Int: -7}, value: v}
				b := encodeResult(res)
				if got, err := decodeResult(b); err != nil || !reflect.DeepEqual(got, res) {
					t.Errorf("result: %+v, %v", got, err)
				}
				for cut := range len(b) {
					if _, err := decodeResult(b[:cut]); err == nil {
						t.Errorf("%s: a result cut to %d of %d bytes decodes", f.Name(), cut, len(b))
						break
					}
				}
			}
		}
	}
	if s, err := decodeSplit(encodeSplit(split{3, 1000})); err != nil || s != (split{3, 1000}) {
		t.Errorf("split: %v, %v", s, err)
	}
	for _, k := range []datasets.Key{{Int: -5}, {Str: "", IsStr: true}, {Str: "i7", IsStr: true}} {
		if got, err := parseKey(keyString(k)); err != nil || got != k {
			t.Errorf("key %v: %v, %v", k, got, err)
		}
	}
}

// TestPartialsAdd: adding blocks' results in any grouping and order gives
// the entries of the whole (a map's sum), each coordinate once, in order.
func TestPartialsAdd(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 9))
	shape := []int{6, 5}
	want := map[[2]int]float64{}
	var parts []*partial
	for range 9 {
		var idx [2][]int
		var val []float64
		for range r.IntN(12) {
			i, j := r.IntN(6), r.IntN(5)
			v := float64(r.IntN(9) - 4)
			idx[0], idx[1] = append(idx[0], i), append(idx[1], j)
			val = append(val, v)
			want[[2]int{i, j}] += v
		}
		tn, err := formats.FromCoords(shape, idx[:], val, formats.CSC)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPartial(&datasets.TableTensor{Tensor: tn})
		if err != nil {
			t.Fatal(err)
		}
		if q, err := decodePartial(encodePartial(p)); err != nil || !reflect.DeepEqual(q, p) {
			t.Fatalf("partial round trip: %+v, %v", q, err)
		}
		parts = append(parts, p)
	}
	for round := range 5 {
		r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
		// add as a tree, as lifted combines do
		sums := slices.Clone(parts)
		for len(sums) > 1 {
			var next []*partial
			for i := 0; i < len(sums); i += 2 {
				if i+1 == len(sums) {
					next = append(next, sums[i])
					continue
				}
				s, err := add(sums[i], sums[i+1])
				if err != nil {
					t.Fatal(err)
				}
				next = append(next, s)
			}
			sums = next
		}
		s, err := add(&partial{}, sums[0])
		if err != nil || s.blocks != len(parts) || !s.sorted() || len(s.val) != len(want) {
			t.Fatalf("round %d: %d blocks, %d entries (want %d), sorted %v, %v", round, s.blocks, len(s.val), len(want), s.sorted(), err)
		}
		for e, v := range s.val {
			if w := want[[2]int{s.idx[0][e], s.idx[1][e]}]; v != w {
				t.Errorf("round %d: (%d, %d) = %v, want %v", round, s.idx[0][e], s.idx[1][e], v, w)
			}
		}
	}
	if _, err := add(&partial{blocks: 1, tensor: true, shape: []int{2}}, &partial{blocks: 1}); err == nil {
		t.Error("a scalar added to a tensor")
	}
}

// TestJobError: the workers' marked error is found in a runner's report.
func TestJobError(t *testing.T) {
	err := fmt.Errorf("job failed: bundle inst004 failed: %w\n\tgoroutine 7 [running]:", inputError(errors.New("A.parquet: column val, row 3: null value")))
	if got := JobError(err); got.Error() != "A.parquet: column val, row 3: null value" {
		t.Errorf("JobError: %v", got)
	}
	plain := errors.New("connection refused")
	if JobError(plain) != plain || inputError(inputError(plain)).Error() != inputError(plain).Error() {
		t.Error("unmarked errors")
	}
}
