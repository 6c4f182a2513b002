package formats

import (
	"testing"

	"github.com/nablasd/nablasd/sdql"
)

// bytesReader hands out small ints from fuzz input, zeros when exhausted.
type bytesReader struct{ b []byte }

func (r *bytesReader) next() int {
	if len(r.b) == 0 {
		return 0
	}
	x := int(int8(r.b[0]))
	r.b = r.b[1:]
	return x
}

// small returns an int in 0..n-1 (sometimes negative or past n-1 when
// wild).
func (r *bytesReader) small(n int, wild bool) int {
	x := r.next()
	if wild && x < -100 {
		return x
	}
	if x < 0 {
		x = -x
	}
	return x % n
}

func (r *bytesReader) ints(max int) []int {
	n := r.small(12, false)
	if n == 11 {
		return nil
	}
	xs := make([]int, n)
	for i := range xs {
		xs[i] = r.small(max, true)
	}
	return xs
}

// fuzzTensor decodes a tensor: either raw slices (mostly invalid) or
// entries stored by FromCoords, then possibly corrupted.
func fuzzTensor(data []byte) *Tensor {
	r := &bytesReader{data}
	mode := r.small(3, false)
	f := builtins[r.small(len(builtins), false)]
	order := 1 + r.small(3, false)
	shape := make([]int, order)
	for m := range shape {
		shape[m] = r.small(5, mode == 0)
	}
	if mode == 0 {
		t := &Tensor{Format: f, Shape: shape, Pos: make([][]int, order), Idx: make([][]int, order)}
		if r.small(8, false) == 7 {
			t.Pos = t.Pos[:order-1]
		}
		for k := range t.Pos {
			t.Pos[k], t.Idx[k] = r.ints(6), r.ints(6)
		}
		for n := r.small(16, false); n > 0; n-- {
			t.Val = append(t.Val, float64(r.next()))
		}
		return t
	}
	n := r.small(10, false)
	idx := make([][]int, order)
	val := make([]float64, n)
	for e := range val {
		for m := range idx {
			idx[m] = append(idx[m], r.small(max(shape[m], 1), false)%max(shape[m], 1))
		}
		val[e] = float64(r.next())
	}
	t, err := FromCoords(shape, idx, val, f)
	if err != nil {
		return &Tensor{Format: f, Shape: shape}
	}
	if mode == 2 {
		// Corrupt one entry of one array.
		k := r.small(order, false)
		arr := t.Idx[k]
		if r.small(2, false) == 0 && t.Pos[k] != nil {
			arr = t.Pos[k]
		}
		if len(arr) > 0 {
			arr[r.small(len(arr), false)] += r.next()%3 - 1
		}
	}
	return t
}

// FuzzValidate checks that Validate, Convert and the other entry points
// never panic on arbitrary containers, and that valid ones convert to
// every format of their order and agree with their definition.
func FuzzValidate(f *testing.F) {
	f.Add([]byte{0, 3, 1, 2, 3, 2, 0, 1, 1, 2, 0, 1, 3, 1, 2})
	f.Add([]byte{1, 2, 1, 3, 4, 5, 0, 1, 7, 2, 3, 9, 1, 1, 5, 3, 3, 0})
	f.Add([]byte{2, 4, 2, 2, 2, 3, 6, 0, 0, 1, 4, 1, 1, 0, 2, 2, 1, 1, 9, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		x := fuzzTensor(data)
		err := x.Validate()
		if _, cerr := Convert(x, COO); (err == nil) != (cerr == nil) {
			t.Fatalf("Validate = %v but Convert = %v", err, cerr)
		}
		if _, berr := Bind(x, "A"); (err == nil) != (berr == nil) {
			t.Fatalf("Validate = %v but Bind = %v", err, berr)
		}
		if err != nil {
			return
		}
		want := ToValue(x)
		for _, g := range ForOrder(x.Order()) {
			y, err := Convert(x, g)
			if err != nil {
				t.Fatalf("%s -> %s: %v", x.Format, g, err)
			}
			if err := y.Validate(); err != nil {
				t.Fatalf("%s -> %s: invalid result: %v", x.Format, g, err)
			}
			if !sdql.Equal(ToValue(y), want) {
				t.Fatalf("%s -> %s: value changed", x.Format, g)
			}
		}
		got, def, err := evalDefinition(x, "A")
		if err != nil {
			t.Fatalf("%s\n%v", def, err)
		}
		if err := sameValue(got, want); err != nil {
			t.Fatalf("%s\n%v", def, err)
		}
	})
}
