package datasets

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"

	"github.com/nablasd/nablasd/formats"
	"github.com/nablasd/nablasd/sdql"
)

var tableExts = []string{".parquet", ".arrow", ".arrows"}

// testTensors returns tensors of an order as coordinates: empty ones, one
// with a zero extent, one with every position, and seeded random ones with
// explicit zeros.
func testTensors(order int) map[string]*Coords {
	r := rand.New(rand.NewPCG(uint64(order), 12))
	cs := map[string]*Coords{}
	shape := func(n int) []int {
		s := make([]int, order)
		for m := range s {
			s[m] = n + m
		}
		return s
	}
	cs["empty"] = &Coords{Shape: shape(3), Idx: make([][]int, order)}
	zero := shape(3)
	zero[order-1] = 0
	cs["zero-extent"] = &Coords{Shape: zero, Idx: make([][]int, order)}
	all := &Coords{Shape: shape(2), Idx: make([][]int, order)}
	x := make([]int, order)
	for e := 0; ; e++ {
		for m := range x {
			all.Idx[m] = append(all.Idx[m], x[m])
		}
		all.Val = append(all.Val, float64(e)-1.5)
		m := order - 1
		for ; m >= 0; m-- {
			if x[m]++; x[m] < all.Shape[m] {
				break
			}
			x[m] = 0
		}
		if m < 0 {
			break
		}
	}
	cs["all"] = all
	for i := range 3 {
		c := &Coords{Shape: shape(2 + r.IntN(9)), Idx: make([][]int, order)}
		for range r.IntN(40) {
			for m := range c.Idx {
				c.Idx[m] = append(c.Idx[m], r.IntN(c.Shape[m]))
			}
			v := float64(r.IntN(7) - 3)
			if r.IntN(3) > 0 {
				v += r.Float64()
			}
			c.Val = append(c.Val, v)
		}
		cs[fmt.Sprintf("random%d", i)] = c
	}
	return cs
}

func mustTensor(t *testing.T, c *Coords, f formats.Format) *formats.Tensor {
	t.Helper()
	x, err := formats.FromCoords(c.Shape, c.Idx, c.Val, f)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// sameContainer reports whether two tensors have the same format, shape
// and arrays (nil and empty slices alike).
func sameContainer(a, b *formats.Tensor) bool {
	norm := func(s [][]int) [][]int {
		out := make([][]int, len(s))
		for i, x := range s {
			if len(x) > 0 {
				out[i] = x
			}
		}
		return out
	}
	return a.Format == b.Format && slices.Equal(a.Shape, b.Shape) && reflect.DeepEqual(norm(a.Pos), norm(b.Pos)) &&
		reflect.DeepEqual(norm(a.Idx), norm(b.Idx)) && slices.Equal(a.Val, b.Val)
}

// TestTableRoundTrip writes every test tensor of orders 1–3 in every
// storage format to Parquet, Arrow IPC file and stream, reads it back in
// its own format (the metadata's default) and checks the container array
// by array, then in every other format of its order and checks the value
// and shape against formats.Convert.
func TestTableRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for order := 1; order <= 3; order++ {
		for name, c := range testTensors(order) {
			for _, f := range formats.ForOrder(order) {
				if f == formats.COO && order >= 2 {
					// COO keeps duplicates; the table reader sums them:
					// compare after summing.
					u := mustTensor(t, c, formats.CSF)
					idx, val, _ := u.Coords()
					c = &Coords{Shape: c.Shape, Idx: idx, Val: val}
				}
				x := mustTensor(t, c, f)
				for _, ext := range tableExts {
					t.Run(fmt.Sprintf("order=%d/%s/%s/%s", order, name, f, ext[1:]), func(t *testing.T) {
						path := filepath.Join(dir, fmt.Sprintf("%d-%s-%s%s", order, name, f, ext))
						if err := WriteTensorTable(path, x, map[string]string{MetaProgram: "A"}); err != nil {
							t.Fatal(err)
						}
						back, err := ReadTable(path, TableOptions{}, formats.Format{})
						if err != nil {
							t.Fatal(err)
						}
						if err := back.Tensor.Validate(); err != nil {
							t.Fatal(err)
						}
						if !sameContainer(back.Tensor, x) {
							t.Fatalf("read back %v pos %v idx %v val %v\nwrote %v pos %v idx %v val %v",
								back.Tensor, back.Tensor.Pos, back.Tensor.Idx, back.Tensor.Val, x, x.Pos, x.Idx, x.Val)
						}
						if back.Meta[MetaProgram] != "A" || back.Meta[MetaFormat] != f.Name() {
							t.Errorf("metadata %v", back.Meta)
						}
						want := formats.ToValue(x)
						for _, g := range formats.ForOrder(order) {
							y, err := ReadTable(path, TableOptions{}, g)
							if err != nil {
								if isDenseFormat(g) {
									continue // past MaxDenseSize: not here
								}
								t.Fatalf("as %s: %v", g, err)
							}
							if err := y.Tensor.Validate(); err != nil {
								t.Fatalf("as %s: %v", g, err)
							}
							conv, err := formats.Convert(x, g)
							if err != nil {
								t.Fatal(err)
							}
							if !sdql.Equal(formats.ToValue(y.Tensor), want) || !slices.Equal(y.Tensor.Shape, x.Shape) {
								t.Fatalf("as %s: value %s shape %v, want %s shape %v", g,
									sdql.FormatValue(formats.ToValue(y.Tensor)), y.Tensor.Shape, sdql.FormatValue(want), x.Shape)
							}
							if !isDenseFormat(f) && !sameContainer(y.Tensor, conv) {
								t.Fatalf("as %s: container differs from formats.Convert's", g)
							}
						}
					})
				}
			}
		}
	}
}

func isDenseFormat(f formats.Format) bool { return f == formats.Dense || f == formats.DenseCol }

func TestTableScalarRoundTrip(t *testing.T) {
	dir := t.TempDir()
	for _, ext := range tableExts {
		path := filepath.Join(dir, "s"+ext)
		if err := WriteTable(path, &TableTensor{Scalar: -2.75}, nil); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTable(path, TableOptions{}, formats.Format{})
		if err != nil {
			t.Fatal(err)
		}
		if back.Tensor != nil || back.Scalar != -2.75 || back.Order() != 0 {
			t.Errorf("%s: read back %+v", ext, back)
		}
	}
}

// TestTableFilePermissions checks that a written table gets 0666 less the
// umask, like a file made by os.Create, and that no temporary file stays.
func TestTableFilePermissions(t *testing.T) {
	dir := t.TempDir()
	probe := filepath.Join(dir, "probe")
	f, err := os.Create(probe)
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	st, _ := os.Stat(probe)
	os.Remove(probe)
	for _, ext := range tableExts {
		path := filepath.Join(dir, "p"+ext)
		if err := WriteTable(path, &TableTensor{Scalar: 1}, nil); err != nil {
			t.Fatal(err)
		}
		got, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got.Mode().Perm() != st.Mode().Perm() {
			t.Errorf("%s: mode %v, want %v (as os.Create)", ext, got.Mode().Perm(), st.Mode().Perm())
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != len(tableExts) {
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		t.Errorf("files left: %v", names)
	}
}
